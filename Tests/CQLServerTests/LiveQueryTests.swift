import CQLEval
import CQLKit
@testable import CQLServer
import Foundation
import XCTest

/// LiveQuery against `cql serve` on SQLite and PostgreSQL: the client
/// Tests/Clients/livequery_client.py speaks each subprotocol as LeanCloud's
/// SDKs do (the route, login cmd 8, the REST subscribe of each SDK's body)
/// and checks the five events, which subscriber heard what under ACLs
/// (a private object, a role's, one moving out of reach), keep-alives,
/// unsubscribe, re-subscribe after a reconnect, and hostile frames.
final class LiveQueryTests: XCTestCase {
    func testProtobufClient() async throws { try await runClient("lc.protobuf2.3") }
    func testBase64Client() async throws { try await runClient("lc.proto2base64.3") }
    func testJSONClient() async throws { try await runClient("lc.json.3") }

    func runClient(_ wire: String) async throws {
        guard FileManager.default.isExecutableFile(atPath: PythonSDKTests.python) else {
            XCTFail("\(PythonSDKTests.python) is missing: scripts/setup makes the virtualenv (with websockets and protobuf)")
            return
        }
        try await onEachDatabase { h, db in
            let (status, output, errors) = try PythonSDKTests.run(
                [PythonSDKTests.root + "/Tests/Clients/livequery_client.py", wire], port: h.port,
                environment: ["CQL_APP_ID": ServerHarness.keys.appId, "CQL_APP_KEY": ServerHarness.keys.appKey,
                              "CQL_MASTER_KEY": ServerHarness.keys.masterKey])
            XCTAssertEqual(status, 0, "\(db) \(wire): the client failed:\n\(errors)\n\(output)")
            let asserts = try PythonSDKTests.checkedAsserts(output, "\(db) \(wire)").count
            XCTAssertGreaterThanOrEqual(asserts, 30, "\(db) \(wire): asserts checked\n\(errors)")
        }
    }

    /// An attacker with the app key may subscribe to no more than a find
    /// may ask: a condition on `_User`'s secrets is 105, as in a find (else
    /// each sign-up would tell it whether a password hash matched a prefix).
    func testASubscriptionCannotAskForSecrets() async throws {
        try await onEachDatabase { h, db in
            for where_ in [#"{"password":"x"}"#, #"{"password":{"$regex":"^a"}}"#, #"{"salt":{"$exists":true}}"#,
                           #"{"sessionToken":"x"}"#, #"{"$or":[{"username":"a"},{"password":"x"}]}"#] {
                let body = try JSONReader.parse(#"{"query":{"className":"_User","where":\#(where_)},"id":"attacker"}"#)
                let a = try await h.call(.POST, "/1.1/LiveQuery/subscribe", body: body)
                XCTAssertEqual([a.status, Int(a.body["code"]?.int ?? 0)], [400, 105], "\(db) \(where_): \(a.text)")
            }
            let fine = try await h.call(.POST, "/1.1/LiveQuery/subscribe", body: try JSONReader.parse(#"{"query":{"className":"_User","where":{"username":"a"}},"id":"d"}"#))
            XCTAssertEqual(fine.status, 200, "\(db): \(fine.text)")
        }
    }

    /// Hostile frames: each subprotocol's decoder answers an error, never crashes.
    func testFrameDecoderRefusesGarbage() throws {
        var g = SystemRandomNumberGenerator()
        for wire in LiveQueryProtocol.allCases {
            for length in [0, 1, 2, 5, 17, 300, 4000] {
                for _ in 0..<50 {
                    let bytes = (0..<length).map { _ in UInt8.random(in: 0...255, using: &g) }
                    for text in [true, false] { _ = try? wire.decode(bytes, text: text) }
                }
            }
            // Deeply nested JSON and protobuf submessages.
            _ = try? wire.decode(Array((String(repeating: "[", count: 100_000)).utf8), text: true)
            _ = try? wire.decode([UInt8](repeating: 0xEA, count: 10_000) + [0x06], text: false)
        }
        XCTAssertEqual(try LiveQueryProtocol.json.decode(Array(" {} ".utf8), text: true), .keepAlive)
        guard case .command(let c) = try LiveQueryProtocol.json.decode(Array(#"{"cmd":"login","i":2,"appId":"a","service":1,"x":1}"#.utf8), text: true)
        else { return XCTFail("not a command") }
        XCTAssertEqual(c.cmd, .login)
        XCTAssertEqual(c.i, 2)
    }

    /// The index: 10,000 subscriptions on one class with an equality key
    /// each; a write is matched against the few it may concern.
    func testEqualityIndexNarrowsCandidates() throws {
        var limits = LiveQueryHub.Limits()
        limits.subscriptionsPerInstallation = 20_000
        let big = LiveQueryHub(limits: limits)
        for n in 0..<10_000 {
            let q = try WhereJSONReader.read(.object(["className": "Todo", "where": .object(["list": .string("l\(n)")])]))
            _ = try big.subscribe(try Subscription(query: q, fingerprint: "l\(n)", installationId: "d", userId: nil, grantees: ["*"], hidden: []))
        }
        let unindexed = try WhereJSONReader.read(.object(["className": "Todo", "where": .object(["score": .object(["$gt": 1])])]))
        _ = try big.subscribe(try Subscription(query: unindexed, fingerprint: "u", installationId: "d", userId: nil, grantees: ["*"], hidden: []))
        let change = ObjectChange(className: "Todo", objectId: "o1", before: ["list": "l7"], after: ["list": .array(["l9", "l11"])])
        XCTAssertEqual(big.candidates(change).count, 4)
        XCTAssertEqual(big.candidates(ObjectChange(className: "Note", objectId: "o1", before: nil, after: ["list": "l7"])).count, 0)
    }
}
