import CQLEval
import CQLKit
import XCTest

@testable import CQLServer

/// The dispatcher's batches (``PendingWrites``): the writes waiting are
/// taken together, in commit order, and each installation id's events of a
/// batch leave in as few `data` messages as ``LiveQueryHub/eventsPerFrame``
/// and ``LiveQueryHub/bytesPerFrame`` allow; a `_Role` write inside a batch
/// still makes the later writes wait for the new roles.
final class LiveQueryBatchTests: XCTestCase {
    private func write(_ id: String, _ fields: [String: Value] = [:]) -> CommittedWrite {
        var after: [String: Value] = ["objectId": .string(id), "kind": "a"]
        after.merge(fields) { $1 }
        return CommittedWrite(changes: [ObjectChange(className: "Post", objectId: id, before: nil, after: after)],
                              caller: Identity(isMaster: true))
    }

    private func subscription(installationId: String = "d") throws -> Subscription {
        let q: [String: Value] = ["className": "Post", "where": ["kind": "a"]]
        return try Subscription(query: try WhereJSONReader.read(.object(q)), fingerprint: "kind-a-" + installationId,
                                installationId: installationId, userId: nil, grantees: ["*"], hidden: [])
    }

    /// The messages a connection is sent until `count` events arrived: the objectIds of each message.
    private func messages(_ connection: LiveQueryConnection, events count: Int) async -> [[String]] {
        var found: [[String]] = [], total = 0
        for await message in connection.stream {
            guard case .events(_, let texts) = message else { continue }
            found.append(texts.map { (try? JSONReader.parse($0).objectValue?["object"]?.objectValue?["objectId"]?.stringValue) ?? "?" })
            total += texts.count
            if total >= count { break }
        }
        return found
    }

    func testPendingWritesAreTakenTogetherInOrderAndEndOnFinish() async throws {
        let pending = PendingWrites(limit: 3)
        XCTAssertEqual(pending.append(write("a")), .queued)
        XCTAssertEqual(pending.append(write("b")), .queued)
        XCTAssertEqual(pending.append(write("c")), .queued)
        XCTAssertEqual(pending.append(write("d")), .full, "past the limit: refused, nothing queued")
        let batch = await pending.take()
        XCTAssertEqual(batch?.map(\.changes[0].objectId), ["a", "b", "c"])
        XCTAssertEqual(pending.append(write("e")), .queued)
        pending.finish()
        XCTAssertEqual(pending.append(write("f")), .finished, "after finish: refused")
        let last = await pending.take()
        XCTAssertEqual(last?.map(\.changes[0].objectId), ["e"], "what waits is still taken after finish")
        let end = await pending.take()
        XCTAssertNil(end)
    }

    func testABatchIsAtMostTheLimitAndTheRestFollowsInOrder() async throws {
        let pending = PendingWrites(limit: 10_000)
        for i in 0..<(PendingWrites.batchLimit + 10) { XCTAssertEqual(pending.append(write("w\(i)")), .queued) }
        let first = await pending.take(), second = await pending.take()
        XCTAssertEqual(first?.count, PendingWrites.batchLimit)
        XCTAssertEqual(second?.map(\.changes[0].objectId), (PendingWrites.batchLimit..<(PendingWrites.batchLimit + 10)).map { "w\($0)" })
        XCTAssertEqual(pending.count, 0)
    }

    func testAWaitingTakeIsWokenByAWriteAndEndsWhenCancelled() async throws {
        let pending = PendingWrites(limit: 10)
        let woken = Task { await pending.take() }
        try await Task.sleep(for: .milliseconds(20))
        XCTAssertEqual(pending.append(write("late")), .queued)
        let got = await woken.value
        XCTAssertEqual(got?.map(\.changes[0].objectId), ["late"])
        let cancelled = Task { await pending.take() }
        try await Task.sleep(for: .milliseconds(20))
        cancelled.cancel()
        let none = await cancelled.value
        XCTAssertNil(none, "a cancelled dispatcher stops waiting")
    }

    func testTheWritesOfABatchReachAConnectionInOneMessageInCommitOrder() async throws {
        let hub = LiveQueryHub()
        _ = try hub.subscribe(try subscription())
        let connection = LiveQueryConnection(wire: .json, buffer: 100)
        XCTAssertTrue(hub.open(connection))
        hub.login(connection, installationId: "d")
        // Committed before the dispatcher runs: one batch.
        for i in 0..<5 { hub.committed(write("p\(i)")) }
        let run = Task { await hub.run() }
        defer { run.cancel() }
        let heard = await messages(connection, events: 5)
        XCTAssertEqual(heard, [["p0", "p1", "p2", "p3", "p4"]])
    }

    func testARoleWriteInABatchSendsWhatCameBeforeAndRefreshesRolesFirst() async throws {
        let hub = LiveQueryHub()
        let refreshed = LockedValue<[String]>([])
        hub.refreshGrantees = { user in
            refreshed.update { $0.append(user) }
            return ["*", user, "role:editors"]
        }
        let q: [String: Value] = ["className": "Post", "where": ["kind": "a"]]
        _ = try hub.subscribe(try Subscription(query: try WhereJSONReader.read(.object(q)), fingerprint: "u1-kind-a", installationId: "d",
                                               userId: "u1", grantees: ["*", "u1"], hidden: []))
        let connection = LiveQueryConnection(wire: .json, buffer: 100)
        XCTAssertTrue(hub.open(connection))
        hub.login(connection, installationId: "d")
        hub.committed(write("p1"))
        hub.committed(CommittedWrite(changes: [ObjectChange(className: "_Role", objectId: "r1", before: nil,
                                                            after: ["objectId": "r1", "name": "editors"])],
                                     caller: Identity(isMaster: true)))
        hub.committed(write("p2"))
        let run = Task { await hub.run() }
        defer { run.cancel() }
        let heard = await messages(connection, events: 2)
        XCTAssertEqual(heard, [["p1"], ["p2"]], "the events before the role write leave before the roles are computed again")
        XCTAssertEqual(refreshed.value, ["u1"])
    }

    func testMessagesAreCutByCountAndBytes() throws {
        let small = (0..<(2 * LiveQueryHub.eventsPerFrame + 2)).map { "{\"n\":\($0)}" }
        let cut = LiveQueryHub.frames(small)
        XCTAssertEqual(cut.map(\.count), [LiveQueryHub.eventsPerFrame, LiveQueryHub.eventsPerFrame, 2])
        XCTAssertEqual(cut.flatMap { $0 }, small, "nothing lost, nothing reordered")
        let big = String(repeating: "x", count: LiveQueryHub.bytesPerFrame / 2 + 1)
        XCTAssertEqual(LiveQueryHub.frames([big, big, "s", big]).map(\.count), [1, 2, 1], "past the bytes: a new message")
        let huge = String(repeating: "y", count: 2 * LiveQueryHub.bytesPerFrame)
        XCTAssertEqual(LiveQueryHub.frames([huge]).map(\.count), [1], "an event larger than the budget still goes, alone")
        XCTAssertEqual(LiveQueryHub.frames([]).count, 0)
    }

    func testAnInstallationWithoutAConnectionDoesNotHoldUpTheOthers() async throws {
        let hub = LiveQueryHub()
        _ = try hub.subscribe(try subscription(installationId: "gone"))
        _ = try hub.subscribe(try subscription(installationId: "here"))
        let here = LiveQueryConnection(wire: .json, buffer: 100)
        XCTAssertTrue(hub.open(here))
        hub.login(here, installationId: "here")
        let run = Task { await hub.run() }
        defer { run.cancel() }
        hub.committed(write("p1"))
        hub.committed(write("p2"))
        let heard = await messages(here, events: 2)
        XCTAssertEqual(heard.flatMap { $0 }, ["p1", "p2"])
    }
}
