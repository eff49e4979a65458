@testable import CQLServer
import XCTest

/// Where reads run among the event loops' lanes (Server.md, "Slow
/// neighbours"): with the storage's scan permits (one fewer than all the
/// lanes), a point read never lands where scans hold every lane, and stays
/// on its own loop whenever it can.
final class LanePlacementTests: XCTestCase {
    func testTheExampleOfTheDocumentation() {
        var p = LanePlacement(lanes: [2, 2])
        XCTAssertEqual(p.place(.scan, home: 0), 0)
        XCTAssertEqual(p.place(.scan, home: 0), 1)
        XCTAssertEqual(p.place(.scan, home: 0), 0)
        XCTAssertEqual(p.place(.point, home: 0), 1)
        XCTAssertEqual(p.place(.point, home: 1), 1)
        p.done(.scan, on: 0)
        XCTAssertEqual(p.place(.point, home: 0), 0)
    }

    /// Random arrivals and ends of scans within the permits, on shapes a
    /// server makes (`--readers` spread over 1 to 4 loops).
    func testAPointReadAlwaysFindsALaneNoScanHolds() {
        var rng = SystemRandomNumberGenerator()
        for shape in [[1], [2], [1, 1], [2, 2], [3, 2], [2, 1], [1, 1, 1, 1], [3, 3, 2, 2]] {
            let permits = max(1, shape.reduce(0, +) - 1)
            var p = LanePlacement(lanes: shape)
            var running: [Int] = []
            for _ in 0..<2_000 {
                if running.count < permits, Bool.random(using: &rng) {
                    running.append(p.place(.scan, home: Int.random(in: shape.indices, using: &rng)))
                } else if !running.isEmpty {
                    p.done(.scan, on: running.remove(at: Int.random(in: running.indices, using: &rng)))
                }
                XCTAssertTrue(zip(p.scans, shape).allSatisfy { $0 <= $1 }, "\(shape): more scans than lanes: \(p.scans)")
                let home = Int.random(in: shape.indices, using: &rng)
                let loop = p.place(.point, home: home)
                if shape.count > 1 || shape[0] > 1 {
                    XCTAssertLessThan(p.scans[loop], shape[loop], "\(shape): a get put where scans hold every lane: \(p.scans)")
                }
                if p.scans[home] < shape[home] { XCTAssertEqual(loop, home, "\(shape): a get left a loop with a free lane") }
                p.done(.point, on: loop)
            }
        }
    }
}
