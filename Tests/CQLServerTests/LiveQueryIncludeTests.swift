import CQLEval
import CQLKit
import XCTest

@testable import CQLServer

/// The hub's side of `include` (``LiveQueryHub/includeObjects``): only a
/// subscription with `include` asks for the pointed objects, events stay in
/// commit order while they are read, a failed read still delivers the event
/// (Pointers as stored), and a `leave` out of reach asks nothing. What the
/// objects are — as the subscriber's find includes them — is checked
/// against a real server by Tests/Clients/livequery_client.py.
final class LiveQueryIncludeTests: XCTestCase {
    /// The objectIds the include reader was asked for.
    private final class Calls: @unchecked Sendable {
        private let lock = NSLock()
        private var stored: [String] = []
        func add(_ id: String) { lock.withLock { stored.append(id) } }
        var ids: [String] { lock.withLock { stored } }
    }

    private func subscription(_ where_: String, include: String?, grantees: [String]? = ["*"]) throws -> Subscription {
        var q: [String: Value] = ["className": "Post", "where": try JSONReader.parse(where_)]
        if let include { q["include"] = .string(include) }
        return try Subscription(query: try WhereJSONReader.read(.object(q)), fingerprint: where_ + (include ?? ""), installationId: "d",
                                userId: nil, grantees: grantees, hidden: [])
    }

    private func events(_ connection: LiveQueryConnection, count: Int) async -> [[String: Value]] {
        var found: [[String: Value]] = []
        for await message in connection.stream {
            if case .events(_, let texts) = message {
                found += texts.compactMap { try? JSONReader.parse($0).objectValue }
            }
            if found.count >= count { break }
        }
        return found
    }

    private static let author: Value = .pointer(Pointer(className: "_User", objectId: "u1"))
    /// ``author`` as an event's JSON carries it.
    private static let authorJSON: Value = ["__type": "Pointer", "className": "_User", "objectId": "u1"]

    func testOnlyIncludeSubscriptionsAskAndEventsKeepTheirOrder() async throws {
        let hub = LiveQueryHub()
        let calls = Calls()
        hub.includeObjects = { object, s in
            calls.add(object["objectId"]?.stringValue ?? "?")
            try await Task.sleep(for: .milliseconds(20))  // a slow read: later writes must wait for it
            var o = object
            o["author"] = .typedObject(className: "_User", fields: ["objectId": "u1", "username": "ada"])
            return o
        }
        _ = try hub.subscribe(try subscription(#"{"kind":"a"}"#, include: "author"))
        _ = try hub.subscribe(try subscription(#"{"kind":"b"}"#, include: nil))
        let connection = LiveQueryConnection(wire: .json, buffer: 100)
        XCTAssertTrue(hub.open(connection))
        hub.login(connection, installationId: "d")
        let run = Task { await hub.run() }
        defer { run.cancel() }
        for (id, kind) in [("p1", "a"), ("p2", "b"), ("p3", "a"), ("p4", "b")] {
            hub.committed(CommittedWrite(changes: [ObjectChange(className: "Post", objectId: id, before: nil,
                                                                after: ["objectId": .string(id), "kind": .string(kind), "author": Self.author])],
                                         caller: Identity(isMaster: true)))
        }
        let heard = await events(connection, count: 4)
        XCTAssertEqual(heard.map { $0["object"]?.objectValue?["objectId"]?.stringValue }, ["p1", "p2", "p3", "p4"])
        XCTAssertEqual(calls.ids, ["p1", "p3"], "only the subscription with include asks")
        XCTAssertEqual(heard[0]["object"]?.objectValue?["author"]?.objectValue?["username"], "ada")
        XCTAssertEqual(heard[1]["object"]?.objectValue?["author"], Self.authorJSON, "without include: the Pointer as stored")
    }

    func testAFailedReadStillDeliversTheEventWithItsPointers() async throws {
        let hub = LiveQueryHub()
        hub.includeObjects = { _, _ in throw QueryError(.data, "the database is away") }
        _ = try hub.subscribe(try subscription(#"{"kind":"a"}"#, include: "author"))
        let connection = LiveQueryConnection(wire: .json, buffer: 100)
        XCTAssertTrue(hub.open(connection))
        hub.login(connection, installationId: "d")
        let sent = await hub.dispatch(CommittedWrite(changes: [ObjectChange(className: "Post", objectId: "p1", before: nil,
                                                                             after: ["objectId": "p1", "kind": "a", "author": Self.author])],
                                                      caller: Identity(isMaster: true)))
        XCTAssertFalse(sent)
        let heard = await events(connection, count: 1)
        XCTAssertEqual(heard.first?["op"], "create")
        XCTAssertEqual(heard.first?["object"]?.objectValue?["author"], Self.authorJSON)
    }

    func testALeaveOutOfReachAsksNothing() async throws {
        let hub = LiveQueryHub()
        let calls = Calls()
        hub.includeObjects = { object, _ in
            calls.add(object["objectId"]?.stringValue ?? "?")
            return object
        }
        _ = try hub.subscribe(try subscription(#"{"kind":"a"}"#, include: "author", grantees: ["*"]))
        let connection = LiveQueryConnection(wire: .json, buffer: 100)
        XCTAssertTrue(hub.open(connection))
        hub.login(connection, installationId: "d")
        // The object becomes private to someone else: a leave without content.
        await hub.dispatch(CommittedWrite(changes: [ObjectChange(className: "Post", objectId: "p1",
                                                                 before: ["objectId": "p1", "kind": "a", "author": Self.author],
                                                                 after: ["objectId": "p1", "kind": "a", "author": Self.author,
                                                                         "ACL": ["u9": ["read": true]]])],
                                          caller: Identity(isMaster: true)))
        let heard = await events(connection, count: 1)
        XCTAssertEqual(heard.first?["op"], "leave")
        XCTAssertEqual(heard.first?["object"], ["className": "Post", "objectId": "p1"])
        XCTAssertEqual(calls.ids, [])
    }
}
