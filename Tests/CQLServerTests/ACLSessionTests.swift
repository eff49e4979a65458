import CQLKit
import CQLServer
import Foundation
import XCTest

/// The ACL over real HTTP with real sessions, end to end: a user signs up
/// and logs in, `X-LC-Session` becomes the caller, the caller's grantees go
/// into the query. Another user's session, an anonymous caller and a
/// forged token learn nothing of a private object and change nothing; its
/// owner and the holder of a role it is shared with read it.
final class ACLSessionTests: XCTestCase {
    typealias H = ServerHarness

    func testSessionsAreTheCallersTheACLFilters() async throws {
        try await onEachDatabase { h, db in
            let ann = try await UsersTests.signUp(h, ["username": "ann", "password": "pw-ann"])
            let bob = try await UsersTests.signUp(h, ["username": "bob", "password": "pw-bob"])
            let cat = try await UsersTests.signUp(h, ["username": "cat", "password": "pw-cat"])
            // Ann's private note, a public one, and one shared with role:staff (Cat).
            var a = try await h.call(.POST, "/1.1/classes/Note", body: ["text": "ann's secret", "ACL": [ann.id: ["read": true, "write": true]]],
                                     headers: H.sessionHeaders(ann.token))
            XCTAssertEqual(a.status, 201, "\(db) \(a.text)")
            let secret = a.body["objectId"]?.string ?? ""
            a = try await h.call(.POST, "/1.1/classes/Note", body: ["text": "hello", "ACL": ["*": ["read": true]]], headers: H.sessionHeaders(ann.token))
            XCTAssertEqual(a.status, 201, "\(db) \(a.text)")
            a = try await h.call(.POST, "/1.1/classes/Note", body: ["text": "staff only", "ACL": ["role:staff": ["read": true]]],
                                 headers: H.sessionHeaders(ann.token))
            let staffNote = a.body["objectId"]?.string ?? ""
            a = try await h.call(.POST, "/1.1/roles", body: [
                "name": "staff", "ACL": ["*": ["read": true]],
                "users": ["__op": "AddRelation", "objects": [["__type": "Pointer", "className": "_User", "objectId": .string(cat.id)]]],
            ], headers: H.masterHeaders)
            XCTAssertEqual(a.status, 201, "\(db) \(a.text)")

            func texts(_ headers: [(String, String)]) async throws -> (texts: Set<String>, count: Int64?) {
                let r = try await h.call(.GET, "/1.1/classes/Note", query: [("count", "1")], headers: headers)
                XCTAssertEqual(r.status, 200, "\(db) \(r.text)")
                let texts = (r.body["results"]?.array ?? []).compactMap { $0["text"]?.string }
                return (Set(texts), r.body["count"]?.int)
            }
            // Each caller sees exactly what the ACLs grant it, counts included.
            var seen = try await texts(H.sessionHeaders(ann.token))
            XCTAssertEqual(seen.texts, ["ann's secret", "hello"], db.rawValue)
            XCTAssertEqual(seen.count, 2)
            seen = try await texts(H.sessionHeaders(bob.token))
            XCTAssertEqual(seen.texts, ["hello"], db.rawValue)
            XCTAssertEqual(seen.count, 1)
            seen = try await texts(H.appHeaders)
            XCTAssertEqual(seen.texts, ["hello"], db.rawValue)
            seen = try await texts(H.sessionHeaders(cat.token))
            XCTAssertEqual(seen.texts, ["hello", "staff only"], db.rawValue)
            XCTAssertEqual(seen.count, 2)
            // Bob: the secret is missing to him (get {}, update/delete 101),
            // also through CQL; it is unchanged afterwards.
            a = try await h.call(.GET, "/1.1/classes/Note/\(secret)", headers: H.sessionHeaders(bob.token))
            XCTAssertEqual(a.text, "{}", db.rawValue)
            a = try await h.call(.PUT, "/1.1/classes/Note/\(secret)", body: ["text": "pwned"], headers: H.sessionHeaders(bob.token))
            XCTAssertEqual(a.body["code"], 101, "\(db) \(a.text)")
            a = try await h.call(.DELETE, "/1.1/classes/Note/\(secret)", headers: H.sessionHeaders(bob.token))
            XCTAssertEqual(a.body["code"], 101, "\(db) \(a.text)")
            a = try await h.call(.GET, "/1.1/cloudQuery", query: [("cql", "select count(*) from Note where text = 'ann''s secret'")],
                                 headers: H.sessionHeaders(bob.token))
            XCTAssertEqual(a.body["count"], 0, "\(db) \(a.text)")
            // Cat reads the staff note through her role but may not write it.
            a = try await h.call(.GET, "/1.1/classes/Note/\(staffNote)", headers: H.sessionHeaders(cat.token))
            XCTAssertEqual(a.body["text"], "staff only", "\(db) \(a.text)")
            a = try await h.call(.PUT, "/1.1/classes/Note/\(staffNote)", body: ["text": "edited"], headers: H.sessionHeaders(cat.token))
            XCTAssertEqual(a.status, 403, "\(db) \(a.text)")
            // A forged token is the anonymous caller (as a stale one is, on LeanCloud): nobody's notes.
            a = try await h.call(.GET, "/1.1/classes/Note", headers: H.sessionHeaders("forged" + ann.token.dropFirst(6)))
            XCTAssertEqual(a.status, 200, "\(db) \(a.text)")
            XCTAssertFalse(a.body["results"]?.array.contains { $0["text"] == "ann's secret" } ?? true, "\(db) \(a.text)")
            // Ann still reads her note as she wrote it.
            a = try await h.call(.GET, "/1.1/classes/Note/\(secret)", headers: H.sessionHeaders(ann.token))
            XCTAssertEqual(a.body["text"], "ann's secret", "\(db) \(a.text)")
        }
    }
}
