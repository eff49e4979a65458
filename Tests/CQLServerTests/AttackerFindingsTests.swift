import CQLKit
import CQLSQL
import CQLServer
import Foundation
import XCTest

/// What an attacker holding the public app key (and sometimes an ordinary
/// account) tried against `cql serve`, one test a finding, over HTTP on
/// SQLite and PostgreSQL. Each test also runs a control — the owner, or the
/// master key — so that a server refusing everything fails it too.
final class AttackerFindingsTests: XCTestCase {
    struct User {
        var id: String
        var token: String
        var headers: [(String, String)] { ServerHarness.sessionHeaders(token) }
    }

    func signUp(_ h: ServerHarness, _ name: String) async throws -> User {
        let a = try await h.call(.POST, "/1.1/users", body: ["username": .string(name), "password": .string("pw-\(name)")])
        XCTAssertEqual(a.status, 201, a.text)
        return User(id: try XCTUnwrap(a.body["objectId"]?.string), token: try XCTUnwrap(a.body["sessionToken"]?.string))
    }

    func create(_ h: ServerHarness, _ className: String, _ body: Value, headers: [(String, String)] = ServerHarness.masterHeaders) async throws -> String {
        let a = try await h.call(.POST, "/1.1/classes/\(className)", body: body, headers: headers)
        XCTAssertEqual(a.status, 201, a.text)
        return try XCTUnwrap(a.body["objectId"]?.string)
    }

    static func privateACL(_ owner: String) -> Value { .object([owner: ["read": true, "write": true]]) }
    static func json(_ v: Value) -> String { JSONWriter.string(v) }

    // MARK: 1. `_user` is `_User`, with all its rules

    func testSystemClassesInAnyLetterCaseKeepTheirRules() async throws {
        try await onEachDatabase { h, db in
            let victim = try await signUp(h, "victim")
            let attacker = try await signUp(h, "attacker")
            // A POST to `_user` is a sign-up (no password: refused), never a bare insert.
            let bare = try await h.call(.POST, "/1.1/classes/_user", body: ["x": 1])
            XCTAssertNotEqual(bare.status, 201, "\(db): \(bare.text)")
            for name in ["_user", "_USER", "_uSeR"] {
                let found = try await h.call(.GET, "/1.1/classes/\(name)", headers: ServerHarness.masterHeaders)
                XCTAssertEqual(found.status, 200, "\(db): \(found.text)")
                XCTAssertEqual(found.body["results"]?.array.count, 2, "\(db) \(name): the users themselves: \(found.text)")
                for u in found.body["results"]?.array ?? [] { XCTAssertNil(u["password"], "\(db) \(name): \(found.text)") }
                let probe = try await h.call(.GET, "/1.1/classes/\(name)", query: [("where", #"{"password":{"$regex":"^pbkdf2"}}"#)])
                XCTAssertEqual(probe.body["code"], 105, "\(db) \(name): \(probe.text)")
                let cql = try await h.call(.GET, "/1.1/cloudQuery", query: [("cql", "select username, password from \(name)")])
                XCTAssertEqual(cql.status, 200, "\(db) \(name): \(cql.text)")
                XCTAssertFalse(cql.text.contains("pbkdf2"), "\(db) \(name): \(cql.text)")
            }
            // Another user's row through any spelling: refused, and its secrets untouched.
            for name in ["_user", "_User"] {
                let put = try await h.call(.PUT, "/1.1/classes/\(name)/\(victim.id)", body: ["nickname": "owned"], headers: attacker.headers)
                XCTAssertEqual(put.status, 403, "\(db) \(name): \(put.text)")
                let flags = try await h.call(.POST, "/1.1/batch", body: ["requests": [[
                    "method": "PUT", "path": .string("/1.1/classes/\(name)/\(attacker.id)"), "body": ["emailVerified": true]]]],
                    headers: attacker.headers)
                XCTAssertEqual(flags.body.array.first?["error"]?["code"], 105, "\(db) \(name): \(flags.text)")
            }
            let insert = try await h.call(.GET, "/1.1/cloudQuery", query: [("cql", "insert into _user(username, password) values ('victim', 'x')")],
                                          headers: attacker.headers)
            XCTAssertTrue([105, 119].contains(insert.body["code"]?.int ?? 0), "\(db): \(insert.text)")
            let named = try await h.call(.GET, "/1.1/cloudQuery", query: [("cql", "insert into _user(username) values ('victim')")],
                                         headers: attacker.headers)
            XCTAssertEqual(named.body["code"], 119, "\(db): \(named.text)")
            // Deleting oneself through `_user` ends one's sessions too.
            let gone = try await h.call(.DELETE, "/1.1/classes/_user/\(attacker.id)", headers: attacker.headers)
            XCTAssertEqual(gone.status, 200, "\(db): \(gone.text)")
            let me = try await h.call(.GET, "/1.1/users/me", headers: attacker.headers)
            XCTAssertEqual(me.body["code"], 211, "\(db): \(me.text)")
            // The victim still logs in with its own password.
            let login = try await h.call(.POST, "/1.1/login", body: ["username": "victim", "password": "pw-victim"])
            XCTAssertEqual(login.body["objectId"]?.string, victim.id, "\(db): \(login.text)")
        }
    }

    func testRolesInAnyLetterCaseAreRolesAndCannotBeJoined() async throws {
        try await onEachDatabase { h, db in
            let member = try await signUp(h, "member")
            let attacker = try await signUp(h, "attacker")
            _ = try await create(h, "_Role", ["name": "staff", "ACL": ["*": ["read": true]],
                                              "users": ["__op": "AddRelation", "objects": [.pointer(Pointer(className: "_User", objectId: member.id))]]])
            let secret = try await create(h, "Note", ["title": "staff only", "ACL": ["role:staff": ["read": true]]])
            for name in ["_role", "_ROLE"] {
                let claim = try await h.call(.POST, "/1.1/classes/\(name)", body: [
                    "name": "staff", "ACL": ["*": ["read": true]],
                    "users": ["__op": "AddRelation", "objects": [.pointer(Pointer(className: "_User", objectId: attacker.id))]]],
                    headers: attacker.headers)
                XCTAssertNotEqual(claim.status, 201, "\(db) \(name): \(claim.text)")
            }
            let read = try await h.call(.GET, "/1.1/classes/Note/\(secret)", headers: attacker.headers)
            XCTAssertEqual(read.body, .object([:]), "\(db): \(read.text)")
            // Control: the member reads it.
            let control = try await h.call(.GET, "/1.1/classes/Note/\(secret)", headers: member.headers)
            XCTAssertEqual(control.body["title"], "staff only", "\(db): \(control.text)")
        }
    }

    func testClassNamesDifferingOnlyInLetterCaseAreRefused() async throws {
        try await onEachDatabase { h, db in
            _ = try await create(h, "Note", ["title": "a"], headers: ServerHarness.appHeaders)
            let second = try await h.call(.POST, "/1.1/classes/note", body: ["title": "b"])
            XCTAssertEqual(second.status, 400, "\(db): \(second.text)")
            XCTAssertEqual(second.body["code"], 103, "\(db): \(second.text)")
            let read = try await h.call(.GET, "/1.1/classes/NOTE")
            XCTAssertEqual(read.body["code"], 103, "\(db): \(read.text)")
            let sub = try await h.call(.GET, "/1.1/classes/Note", query: [("where", #"{"x":{"$inQuery":{"className":"nOTE","where":{}}}}"#)])
            XCTAssertEqual(sub.body["code"], 103, "\(db): \(sub.text)")
            let all = try await h.call(.GET, "/1.1/classes/Note")
            XCTAssertEqual(all.body["results"]?.array.count, 1, "\(db): \(all.text)")
        }
    }

    func testASystemClassTableInAnotherLetterCaseIsRefusedWhenOpened() throws {
        let directory = NSTemporaryDirectory() + "cql-spelling-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let db = try SQLiteDatabase(path: directory + "/app.db")
        try db.insert([["objectId": "u1", "username": "x"]], into: "_user")
        XCTAssertThrowsError(try ServerStorage(.sqlite(path: directory + "/app.db"))) { error in
            XCTAssertTrue("\(error)".contains("'_user' holds the system class '_User'"), "\(error)")
        }
    }

    // MARK: 2. A conditional write's condition reads only what the caller may read

    func testConditionalWritesLearnNothingFromUnreadableObjects() async throws {
        try await onEachDatabase { h, db in
            let owner = try await signUp(h, "owner")
            let attacker = try await signUp(h, "attacker")
            _ = try await create(h, "Note", ["title": "launch-2027", "owner": .string(owner.id), "ACL": Self.privateACL(owner.id)])
            let probe = try await create(h, "Probe", ["k": .string(owner.id), "ACL": Self.privateACL(attacker.id)], headers: attacker.headers)
            func condition(_ prefix: String) -> String {
                #"{"k":{"$select":{"query":{"className":"Note","where":{"title":{"$regex":"^"# + prefix + #""}}},"key":"owner"}}}"#
            }
            func attempts(_ prefix: String, _ who: User) async throws -> [String] {
                let w = condition(prefix)
                var out: [String] = []
                out.append(try await h.call(.PUT, "/1.1/classes/Probe/\(probe)", query: [("where", w)], body: ["n": 1], headers: who.headers).text)
                out.append(try await h.call(.PUT, "/1.1/classes/Probe/\(probe)", query: [("where", w)], body: [:], headers: who.headers).text)
                out.append(try await h.call(.POST, "/1.1/batch", body: ["requests": [[
                    "method": "PUT", "path": .string("/1.1/classes/Probe/\(probe)"), "body": ["n": 2],
                    "params": ["where": .string(w)]]]], headers: who.headers).text)
                out.append(try await h.call(.GET, "/1.1/cloudQuery", query: [(
                    "cql", "update Probe set n = 3 where objectId = '\(probe)' and k in (select owner from Note where title like '\(prefix)%')")],
                    headers: who.headers).text)
                out.append(try await h.call(.DELETE, "/1.1/classes/Probe/\(probe)", query: [("where", w)], headers: who.headers).text)
                return out.map { $0.replacingOccurrences(of: #""updatedAt":"[^"]*""#, with: "", options: .regularExpression) }
            }
            let hit = try await attempts("launch", attacker), miss = try await attempts("zzz", attacker)
            XCTAssertEqual(hit, miss, "\(db): the answers tell whether a private title starts with 'launch'")
            for a in hit { XCTAssertTrue(a.contains("305"), "\(db): \(a)") }
            // Control: with the condition on a class the attacker may read, the write applies.
            _ = try await create(h, "Note", ["title": "public-x", "owner": .string(owner.id)])
            let applied = try await h.call(.PUT, "/1.1/classes/Probe/\(probe)", query: [("where", condition("public"))], body: ["n": 9],
                                           headers: attacker.headers)
            XCTAssertEqual(applied.status, 200, "\(db): \(applied.text)")
            // Conditions cannot read tables that are not classes.
            let sessions = try await h.call(.PUT, "/1.1/classes/Probe/\(probe)", query: [(
                "where", #"{"k":{"$inQuery":{"className":"cql:sessions","where":{}}}}"#)], body: ["n": 1], headers: attacker.headers)
            XCTAssertEqual(sessions.body["code"], 103, "\(db): \(sessions.text)")
        }
    }

    // MARK: 3. No error depends on an unreadable row

    func testRegexErrorsDependOnlyOnReadableObjects() async throws {
        try await onEachDatabase { h, db in
            let owner = try await signUp(h, "owner")
            let title = "salary " + String(repeating: "x", count: 60)
            _ = try await create(h, "Note", ["title": .string(title), "ACL": Self.privateACL(owner.id)])
            _ = try await create(h, "Note", ["title": "public"])
            func expensive(_ prefix: String) -> String {
                #"{"title":{"$regex":"^(?=\#(prefix))(?:.|.|.|.|.|.|.|.)*(?!)"}}"#
            }
            for headers in [ServerHarness.appHeaders] {
                let hit = try await h.call(.GET, "/1.1/classes/Note", query: [("where", expensive("salary"))], headers: headers)
                let miss = try await h.call(.GET, "/1.1/classes/Note", query: [("where", expensive("zzzzzz"))], headers: headers)
                XCTAssertEqual(hit.text, miss.text, "\(db)")
                XCTAssertEqual(hit.status, 200, "\(db): \(hit.text)")
                let sub = try await h.call(.GET, "/1.1/classes/Note", query: [(
                    "where", #"{"title":{"$inQuery":{"className":"Note","where":"# + expensive("salary") + "}}}")], headers: headers)
                XCTAssertEqual(sub.status, 200, "\(db): \(sub.text)")
            }
            // Control: the owner, who reads the row, meets the regex's limit.
            let control = try await h.call(.GET, "/1.1/classes/Note", query: [("where", expensive("salary"))], headers: owner.headers)
            XCTAssertEqual(control.status, 400, "\(db): \(control.text)")
        }
    }

    // MARK: 4. File references expand only from a readable `_File`

    func testFileReferencesExpandOnlyFromReadableFiles() async throws {
        try await onEachDatabase { h, db in
            let owner = try await signUp(h, "owner")
            let attacker = try await signUp(h, "attacker")
            let file = try await create(h, "_File", ["name": "payroll.pdf", "url": "https://files.example.com/payroll.pdf",
                                                     "ACL": Self.privateACL(owner.id)])
            for (who, sees) in [(attacker, false), (owner, true)] {
                let a = try await h.call(.POST, "/1.1/classes/Attachment", query: [("fetchWhenSave", "true")],
                                         body: ["f": ["__type": "File", "id": .string(file)]], headers: who.headers)
                XCTAssertEqual(a.status, 201, "\(db): \(a.text)")
                XCTAssertEqual(a.body["f"]?["url"]?.string != nil, sees, "\(db): \(a.text)")
                XCTAssertFalse(!sees && a.text.contains("payroll"), "\(db): \(a.text)")
                let id = try XCTUnwrap(a.body["objectId"]?.string)
                let got = try await h.call(.GET, "/1.1/classes/Attachment/\(id)", headers: who.headers)
                XCTAssertEqual(got.text.contains("payroll"), sees, "\(db): \(got.text)")
            }
        }
    }

    // MARK: Low: relations through unreadable owners, batches after a session ends

    func testRelatedToListsNothingThroughAnUnreadableOwner() async throws {
        try await onEachDatabase { h, db in
            let owner = try await signUp(h, "owner")
            let attacker = try await signUp(h, "attacker")
            let note = try await create(h, "Note", ["title": "public"])
            let folder = try await create(h, "Folder", ["ACL": Self.privateACL(owner.id),
                                                        "notes": ["__op": "AddRelation", "objects": [.pointer(Pointer(className: "Note", objectId: note))]]])
            let related = #"{"$relatedTo":{"object":{"__type":"Pointer","className":"Folder","objectId":"\#(folder)"},"key":"notes"}}"#
            let seen = try await h.call(.GET, "/1.1/classes/Note", query: [("where", related)], headers: attacker.headers)
            XCTAssertEqual(seen.body["results"]?.array.count, 0, "\(db): \(seen.text)")
            let counted = try await h.call(.GET, "/1.1/classes/Note", query: [("where", related), ("count", "1"), ("limit", "0")], headers: attacker.headers)
            XCTAssertEqual(counted.body["count"], 0, "\(db): \(counted.text)")
            let control = try await h.call(.GET, "/1.1/classes/Note", query: [("where", related)], headers: owner.headers)
            XCTAssertEqual(control.body["results"]?.array.count, 1, "\(db): \(control.text)")
        }
    }

    func testABatchIsTheCallerAsItIsAtEachSubRequest() async throws {
        try await onEachDatabase { h, db in
            let user = try await signUp(h, "leaving")
            let note = try await create(h, "Note", ["title": "mine", "ACL": Self.privateACL(user.id)])
            // Once the user is deleted, its session is gone: the rest of the batch is the anonymous caller.
            let answers = try await h.call(.POST, "/1.1/batch", body: ["requests": [
                ["method": "DELETE", "path": .string("/1.1/classes/_User/\(user.id)")],
                ["method": "PUT", "path": .string("/1.1/classes/Note/\(note)"), "body": ["title": "after"]],
                ["method": "GET", "path": .string("/1.1/classes/Note/\(note)")],
            ]], headers: user.headers)
            XCTAssertNotNil(answers.body.array.first?["success"], "\(db): \(answers.text)")
            XCTAssertNotNil(answers.body.array.dropFirst().first?["error"], "\(db): \(answers.text)")
            XCTAssertEqual(answers.body.array.last?["success"], .null, "\(db): \(answers.text)")
            let notes = try await h.call(.GET, "/1.1/classes/Note/\(note)", headers: ServerHarness.masterHeaders)
            XCTAssertEqual(notes.body["title"], "mine", "\(db): \(notes.text)")
        }
    }
}
