import CorpusSupport
import CQLEval
import CQLKit
import XCTest

@testable import CQLServer

/// The hub's index (subscriptions by class and by one string or number
/// equality) may only narrow what is matched, never lose an event: for
/// random subscriptions and random writes, every subscription whose
/// matcher gives an event is among the write's candidates.
final class LiveQueryIndexTests: XCTestCase {
    private static let wheres: [String] = [
        #"{"room":"r1"}"#, #"{"room":"r2"}"#, #"{"room":"中文"}"#, #"{"n":1}"#, #"{"n":2}"#, #"{"n":1.5}"#, #"{"n":-0.0}"#,
        #"{"n":0}"#, #"{"n":9007199254740993}"#, #"{"done":true}"#, #"{"n":{"$gt":1}}"#, #"{"room":"r1","n":2}"#,
        #"{"n":2,"room":{"$in":["r1","r2"]}}"#, #"{"tags":"a"}"#, #"{"tags":3}"#, #"{}"#, #"{"room":{"$ne":"r1"}}"#,
        #"{"$or":[{"room":"r1"},{"n":1}]}"#, #"{"room":null}"#,
    ]
    private static let values: [Value?] = [
        nil, .null, .string("r1"), .string("r2"), .string("中文"), .int(1), .int(2), .double(1.0), .double(2.0), .double(1.5),
        .double(-0.0), .int(0), .int(9_007_199_254_740_993), .int(9_007_199_254_740_992), .bool(true), .bool(false),
        .array([.string("a"), .int(3)]), .array([.double(3.0)]), .array([]), .object(["x": .int(1)]),
    ]

    func testEveryEventIsAmongTheCandidates() throws {
        let hub = LiveQueryHub()
        var subscriptions: [Subscription] = []
        for (i, whereText) in Self.wheres.enumerated() {
            let where_ = try JSONReader.parse(whereText)
            let query = try WhereJSONReader.read(.object(["className": .string("Todo"), "where": where_]))
            let s = try Subscription(query: query, fingerprint: whereText, installationId: "d\(i)", userId: nil, grantees: nil, hidden: [])
            _ = try hub.subscribe(s)
            subscriptions.append(s)
        }
        // Indexed on a number too: only the unindexable ones stay out of the index.
        XCTAssertEqual(subscriptions.filter { $0.indexKey == nil }.count, 6)
        var rng = SplitMix64(seed: 42)
        var events = 0
        for _ in 0..<5_000 {
            func object() -> [String: Value]? {
                guard rng.chance(0.85) else { return nil }
                var o: [String: Value] = ["objectId": "a"]
                for key in ["room", "n", "done", "tags"] { if let v = rng.pick(Self.values) { o[key] = v } }
                return o
            }
            let change = ObjectChange(className: "Todo", objectId: "a", before: object(), after: object())
            guard change.before != nil || change.after != nil else { continue }
            let candidates = Set(hub.candidates(change).map(\.queryId))
            for s in subscriptions where try s.matcher.event(before: change.before, after: change.after) != nil {
                events += 1
                XCTAssertTrue(candidates.contains(s.queryId), "\(s.fingerprint) hears \(change) but is no candidate")
            }
        }
        XCTAssertGreaterThan(events, 5_000)
        // And the index narrows: a write on room r2 with n 2 is not matched against room r1's.
        let narrow = hub.candidates(ObjectChange(className: "Todo", objectId: "b", before: nil, after: ["room": "r2", "n": .int(2)]))
        XCTAssertFalse(narrow.contains { $0.fingerprint == #"{"room":"r1"}"# || $0.fingerprint == #"{"n":1}"# })
        XCTAssertTrue(narrow.contains { $0.fingerprint == #"{"n":2}"# })
    }
}
