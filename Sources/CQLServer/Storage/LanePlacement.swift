/// Which event loop's connection a read runs on (``EventLoopReaders``), so
/// that no get waits behind scans (Server.md, "Slow neighbours").
///
/// The storage's scan permits leave one of all the lanes free of scans,
/// but lanes belong to loops: with two lanes a loop, two scans could hold
/// both of one loop's lanes, and a get handled there would wait for one of
/// them to end. So a scan goes where it leaves a lane free (its own loop
/// first), and a point read stays on its own loop unless scans hold every
/// lane there: then it runs on the loop with the most lanes free of scans
/// (one hop of threads, only then).
///
/// ```swift
/// var p = LanePlacement(lanes: [2, 2])
/// p.place(.scan, home: 0)    // 0
/// p.place(.scan, home: 0)    // 1: loop 0 keeps a lane free
/// p.place(.scan, home: 0)    // 0: no loop keeps one now; loop 0's lanes are all scans'
/// p.place(.point, home: 0)   // 1
/// ```
struct LanePlacement: Sendable {
    /// Each loop's lanes, and how many scans run on it now.
    let lanes: [Int]
    private(set) var scans: [Int]

    init(lanes: [Int]) {
        self.lanes = lanes
        scans = Array(repeating: 0, count: lanes.count)
    }

    /// The loop a read of `kind` from loop `home` runs on; a scan counts
    /// there until ``done(_:on:)``.
    mutating func place(_ kind: ReadKind, home: Int) -> Int {
        switch kind {
        case .point:
            if scans[home] < lanes[home] { return home }
            return mostFree(preferring: home)
        case .scan:
            let loop = leavesALaneFree(home) ? home : (lanes.indices.first(where: leavesALaneFree) ?? mostFree(preferring: home))
            scans[loop] += 1
            return loop
        }
    }

    /// A read placed by ``place(_:home:)`` on `loop` has ended.
    mutating func done(_ kind: ReadKind, on loop: Int) {
        if kind == .scan { scans[loop] -= 1 }
    }

    private func leavesALaneFree(_ loop: Int) -> Bool { scans[loop] + 1 < lanes[loop] }

    /// The loop with the most lanes no scan holds (`home` on a tie).
    private func mostFree(preferring home: Int) -> Int {
        var best = home
        for loop in lanes.indices where lanes[loop] - scans[loop] > lanes[best] - scans[best] { best = loop }
        return best
    }
}
