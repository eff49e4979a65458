import CQLEval
import CQLKit
import XCTest

@testable import CQLServer

/// The notification one process sends and every process reads
/// (``LiveQueryNotifications/payload(_:)`` and ``LiveQueryNotifications/changes(_:)``):
/// the changes come back as they went, typed values and text intact,
/// `_User`'s secrets never in it, and what is not the server's is an error.
final class LiveQueryPayloadTests: XCTestCase {
    func testChangesComeBackAsTheyWent() throws {
        let after: [String: Value] = [
            "objectId": "a1", "title": "引号 \" and \\ and \n and 🙂", "n": 3, "x": 2.5, "done": true, "none": .null,
            "at": .date(DateValue(millisecondsSince1970: 1_796_284_800_000)),
            "who": .pointer(Pointer(className: "_User", objectId: "u1")), "tags": ["a", 1],
            "ACL": ["*": ["read": true]],
        ]
        let changes = [
            ObjectChange(className: "Todo", objectId: "a1", before: nil, after: after),
            ObjectChange(className: "Todo", objectId: "a2", before: ["objectId": "a2", "n": 1], after: nil),
        ]
        let back = try XCTUnwrap(LiveQueryNotifications.changes(LiveQueryNotifications.payload(changes)).changes)
        XCTAssertEqual(back.map(\.className), ["Todo", "Todo"])
        XCTAssertEqual(back.map(\.objectId), ["a1", "a2"])
        XCTAssertEqual(back[0].after, after)
        XCTAssertNil(back[0].before)
        XCTAssertEqual(back[1].before, ["objectId": "a2", "n": 1])
        XCTAssertNil(back[1].after)
    }

    func testAUsersSecretsNeverLeave() throws {
        let user: [String: Value] = ["objectId": "u1", "username": "ada", "password": "pbkdf2$...", "salt": "s", "sessionToken": "t"]
        let payload = LiveQueryNotifications.payload([ObjectChange(className: "_User", objectId: "u1", before: user, after: user)])
        for secret in ["pbkdf2", "\"salt\"", "sessionToken"] { XCTAssertFalse(payload.contains(secret), payload) }
        let back = try XCTUnwrap(LiveQueryNotifications.changes(payload).changes)
        XCTAssertEqual(back[0].after, ["objectId": "u1", "username": "ada"])
    }

    func testASpilledReferenceAndWhatIsNotTheServers() throws {
        XCTAssertEqual(try LiveQueryNotifications.changes(#"{"r":42}"#).reference, 42)
        for bad in ["", "[]", #"{"r":"x"}"#, #"{"c":{}}"#, #"{"c":[{"i":"a"}]}"#, #"{"c":[{"c":"T","i":"a","a":{"n":1}}]}"#,
                    #"{"c":[{"c":"T","i":"a","a":"not json"}]}"#] {
            XCTAssertThrowsError(try LiveQueryNotifications.changes(bad), bad)
        }
    }
}
