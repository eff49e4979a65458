import CQLKit
import CQLServer
import XCTest

/// `_User`'s password hash, salt and session token never leave the server,
/// and the class API cannot write them (a password written there would be
/// kept in clear).
final class UserSecretsTests: XCTestCase {
    func testUserSecretsAreNeitherReturnedNorWritable() async throws {
        let users: [[String: Value]] = [[
            "objectId": "u1", "username": "alice", "password": "tA7BLW+NK0UeARng0693gCaVnljkglCB9snqlpCSUKjx2RgYp8VZZOQt0S5iUtlDrkJXfT3gknS4rRqjYsd/Ug==",
            "salt": "h60d8x797d3oa0naxybxxv9bn7xpt2yiowz68mpiwou7gwr2", "sessionToken": "secret-token", "email": "a@example.com",
        ]]
        let notes: [[String: Value]] = [["objectId": "n1", "text": "hi", "author": .pointer(Pointer(className: "_User", objectId: "u1"))]]
        for database in ServerHarness.Database.allCases {
            let h = try await ServerHarness.start(database, seed: ["_User": users, "Note": notes])
            for headers in [ServerHarness.appHeaders, ServerHarness.masterHeaders] {
                let answers = [
                    try await h.call(.GET, "/1.1/classes/_User/u1", headers: headers).body,
                    try await h.call(.GET, "/1.1/classes/_User", query: [("where", #"{"username":"alice"}"#)], headers: headers).body["results"]?.array.first ?? .null,
                    try await h.call(.GET, "/1.1/classes/Note/n1", query: [("include", "author")], headers: headers).body["author"] ?? .null,
                    try await h.call(.GET, "/1.1/cloudQuery", query: [("cql", "select * from _User")], headers: headers).body["results"]?.array.first ?? .null,
                    try await h.call(.GET, "/1.1/scan/classes/_User", headers: ServerHarness.masterHeaders).body["results"]?.array.first ?? .null,
                ]
                for (i, a) in answers.enumerated() {
                    XCTAssertEqual(a["username"], "alice", "\(database) answer \(i): \(JSONWriter.string(a))")
                    for secret in ["password", "salt", "sessionToken"] { XCTAssertNil(a[secret], "\(database) answer \(i) shows \(secret)") }
                }
            }
            // Not writable through the class API or a CQL write, even with the
            // master key (a `password` in a sign-up, which is what a POST to
            // `_User` is, is hashed: PasswordStorageTests).
            for headers in [ServerHarness.appHeaders, ServerHarness.masterHeaders] {
                for secret in ["salt", "sessionToken"] {
                    let created = try await h.call(.POST, "/1.1/classes/_User", body: ["username": "bob", "password": "plain", secret: "x"], headers: headers)
                    XCTAssertEqual(created.body["code"], 105, created.text)
                }
                let updated = try await h.call(.PUT, "/1.1/classes/_User/u1", body: ["sessionToken": "mine"], headers: headers)
                XCTAssertEqual(updated.body["code"], 105, updated.text)
                let cql = try await h.call(.GET, "/1.1/cloudQuery", query: [("cql", "update _User set salt = 'x' where objectId = 'u1'")], headers: headers)
                XCTAssertEqual(cql.body["code"], 105, cql.text)
            }
            // The verification flags need the master key.
            do {
                let value = try await h.call(.PUT, "/1.1/classes/_User/u1", body: ["emailVerified": true]).body["code"]
                XCTAssertEqual(value, 105)
            }
            do {
                let value = try await h.call(.PUT, "/1.1/classes/_User/u1", body: ["emailVerified": true], headers: ServerHarness.masterHeaders).status
                XCTAssertEqual(value, 200)
            }
            await h.stop()
        }
    }
}
