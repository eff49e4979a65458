import CQLKit
import CQLServer
import Foundation
import XCTest

/// Sign-up, login, sessions, token refresh, password change and the
/// guards of `_User` over real HTTP, on SQLite and PostgreSQL.
final class UsersTests: XCTestCase {
    typealias H = ServerHarness

    /// Signs up and returns (objectId, sessionToken).
    static func signUp(_ h: ServerHarness, _ body: Value) async throws -> (id: String, token: String) {
        let a = try await h.call(.POST, "/1.1/users", body: body)
        XCTAssertEqual(a.status, 201, a.text)
        return (a.body["objectId"]?.string ?? "", a.body["sessionToken"]?.string ?? "")
    }

    func testSignUpLoginMeAndErrors() async throws {
        try await onEachDatabase { h, db in
            // Missing username / password.
            var a = try await h.call(.POST, "/1.1/users", body: ["password": "x"])
            XCTAssertEqual(a.body["code"], 200, "\(db) \(a.text)")
            a = try await h.call(.POST, "/1.1/users", body: ["username": "ann"])
            XCTAssertEqual(a.body["code"], 201, "\(db) \(a.text)")
            a = try await h.call(.POST, "/1.1/users", body: ["username": "ann", "password": "pw-ann", "sessionToken": "mine"])
            XCTAssertEqual(a.body["code"], 105, "\(db) \(a.text)")
            // Sign-up: 201, Location, objectId, createdAt and a token.
            a = try await h.call(.POST, "/1.1/users", body: ["username": "ann", "password": "pw-ann", "email": "ann@example.com",
                                                             "mobilePhoneNumber": "+8613800000001", "age": 30])
            XCTAssertEqual(a.status, 201, "\(db) \(a.text)")
            let ann = a.body["objectId"]?.string ?? "", annToken = a.body["sessionToken"]?.string ?? ""
            XCTAssertEqual(a.headers["Location"].first, "/1.1/users/\(ann)")
            XCTAssertNotNil(a.body["createdAt"]?.string)
            XCTAssertGreaterThanOrEqual(annToken.count, 22, "\(db): a token of at least 128 bits")
            // Taken names: 202, 203, 214.
            for (body, code) in [(["username": "ann", "password": "p"] as Value, 202),
                                 (["username": "ann2", "password": "p", "email": "ann@example.com"], 203),
                                 (["username": "ann3", "password": "p", "mobilePhoneNumber": "+8613800000001"], 214)] {
                a = try await h.call(.POST, "/1.1/users", body: body)
                XCTAssertEqual(a.body["code"]?.int, Int64(code), "\(db) \(a.text)")
            }
            // The SDKs sign up through the class API.
            a = try await h.call(.POST, "/1.1/classes/_User", query: [("fetchWhenSave", "true")], body: ["username": "bob", "password": "pw-bob"])
            XCTAssertEqual(a.status, 201, "\(db) \(a.text)")
            XCTAssertEqual(a.body["username"], "bob")
            XCTAssertNil(a.body["password"], "\(db) \(a.text)")
            let bob = a.body["objectId"]?.string ?? "", bobToken = a.body["sessionToken"]?.string ?? ""
            // The default ACL: public read, the user alone writes.
            a = try await h.call(.GET, "/1.1/classes/_User/\(ann)", query: [("returnACL", "true")], headers: H.masterHeaders)
            XCTAssertEqual(a.body["ACL"], .object(["*": .object(["read": true]), ann: .object(["read": true, "write": true])]), "\(db) \(a.text)")
            // me: the header, or `session_token` as `become` sends it.
            for (query, headers) in [([], H.sessionHeaders(annToken)), ([("session_token", annToken)], H.appHeaders)] {
                a = try await h.call(.GET, "/1.1/users/me", query: query, headers: headers)
                XCTAssertEqual(a.status, 200, "\(db) \(a.text)")
                XCTAssertEqual(a.body["username"], "ann")
                XCTAssertEqual(a.body["sessionToken"]?.string, annToken)
                for secret in ["password", "salt"] { XCTAssertNil(a.body[secret], "\(db) me shows \(secret)") }
            }
            a = try await h.call(.GET, "/1.1/users/me")
            XCTAssertEqual(a.body["code"], 211, "\(db) \(a.text)")
            // An unknown token is 211 where the session is the point, else the anonymous caller.
            for (path, status) in [("/1.1/users/me", 400), ("/1.1/classes/Todo", 200), ("/1.1/users", 200)] {
                a = try await h.call(.GET, path, headers: H.sessionHeaders("not-a-token"))
                XCTAssertEqual(a.status, status, "\(db) \(path) \(a.text)")
                if status == 400 { XCTAssertEqual(a.body["code"], 211, "\(db) \(path) \(a.text)") }
            }
            // Login by username, email, phone: each a new token; all work.
            var tokens: [String] = []
            for body: Value in [["username": "ann", "password": "pw-ann"], ["email": "ann@example.com", "password": "pw-ann"],
                                ["mobilePhoneNumber": "+8613800000001", "password": "pw-ann"]] {
                a = try await h.call(.POST, "/1.1/login", body: body)
                XCTAssertEqual(a.status, 200, "\(db) \(a.text)")
                XCTAssertEqual(a.body["objectId"]?.string, ann)
                XCTAssertNil(a.body["password"])
                tokens.append(a.body["sessionToken"]?.string ?? "")
            }
            XCTAssertEqual(Set(tokens + [annToken]).count, 4, "\(db): each login a new token")
            for t in tokens {
                let v1 = try await h.call(.GET, "/1.1/users/me", headers: H.sessionHeaders(t)).status
                XCTAssertEqual(v1, 200)
            }
            a = try await h.call(.POST, "/1.1/login", body: ["username": "ann", "password": "wrong"])
            XCTAssertEqual(a.body["code"], 210, "\(db) \(a.text)")
            a = try await h.call(.POST, "/1.1/login", body: ["username": "nobody", "password": "x"])
            XCTAssertEqual(a.body["code"], 211, "\(db) \(a.text)")
            a = try await h.call(.POST, "/1.1/login", body: ["password": "x"])
            XCTAssertEqual(a.body["code"], 200, "\(db) \(a.text)")
            // GET /users and /users/<id> are the class API's.
            a = try await h.call(.GET, "/1.1/users", query: [("order", "username")])
            XCTAssertEqual(a.body["results"]?.array.compactMap { $0["username"]?.string }, ["ann", "bob"], "\(db) \(a.text)")
            a = try await h.call(.GET, "/1.1/users/\(bob)")
            XCTAssertEqual(a.body["username"], "bob", "\(db) \(a.text)")
            _ = bobToken
        }
    }

    func testUsersChangeOnlyThemselves() async throws {
        try await onEachDatabase { h, db in
            let (ann, annToken) = try await Self.signUp(h, ["username": "ann", "password": "pw-ann"])
            let (bob, bobToken) = try await Self.signUp(h, ["username": "bob", "password": "pw-bob"])
            let forbidden: [(String, [(String, String)])] = [("anonymous", H.appHeaders), ("bob", H.sessionHeaders(bobToken))]
            for (who, headers) in forbidden {
                for path in ["/1.1/users/\(ann)", "/1.1/classes/_User/\(ann)"] {
                    var a = try await h.call(.PUT, path, body: ["nickname": "hacked"], headers: headers)
                    XCTAssertEqual(a.status, 403, "\(db) \(who) PUT \(path): \(a.text)")
                    XCTAssertEqual(a.body["code"], 206)
                    a = try await h.call(.DELETE, path, headers: headers)
                    XCTAssertEqual(a.body["code"], 206, "\(db) \(who) DELETE \(path): \(a.text)")
                }
                var a = try await h.call(.POST, "/1.1/batch", body: ["requests": [["method": "PUT", "path": .string("/1.1/classes/_User/\(ann)"), "body": ["nickname": "hacked"]]]],
                                         headers: headers)
                XCTAssertEqual(a.body.array.first?["error"]?["code"], 206, "\(db) \(who) batch: \(a.text)")
                for cql in ["update _User set nickname = 'hacked' where objectId = '\(ann)'", "delete from _User where objectId = '\(ann)'"] {
                    a = try await h.call(.GET, "/1.1/cloudQuery", query: [("cql", cql)], headers: headers)
                    XCTAssertEqual(a.body["code"], 206, "\(db) \(who) \(cql): \(a.text)")
                }
                a = try await h.call(.GET, "/1.1/cloudQuery", query: [("cql", "insert into _User(username) values('eve')")], headers: headers)
                XCTAssertEqual(a.body["code"], 119, "\(db) \(who) CQL insert: \(a.text)")
                a = try await h.call(.PUT, "/1.1/users/\(ann)/refreshSessionToken", headers: headers)
                XCTAssertEqual(a.body["code"], 206, "\(db) \(who) refresh: \(a.text)")
                a = try await h.call(.PUT, "/1.1/users/\(ann)/updatePassword", body: ["old_password": "pw-ann", "new_password": "x"], headers: headers)
                XCTAssertEqual(a.body["code"], 206, "\(db) \(who) updatePassword: \(a.text)")
            }
            // Nothing changed.
            var a = try await h.call(.GET, "/1.1/users/\(ann)")
            XCTAssertNil(a.body["nickname"], "\(db) \(a.text)")
            let v2 = try await h.call(.POST, "/1.1/login", body: ["username": "ann", "password": "pw-ann"]).status
            XCTAssertEqual(v2, 200)
            // The user itself, and the master key, may.
            a = try await h.call(.PUT, "/1.1/users/\(ann)", body: ["nickname": "Ann"], headers: H.sessionHeaders(annToken))
            XCTAssertEqual(a.status, 200, "\(db) \(a.text)")
            a = try await h.call(.PUT, "/1.1/classes/_User/\(ann)", body: ["nickname": "Annie"], headers: H.masterHeaders)
            XCTAssertEqual(a.status, 200, "\(db) \(a.text)")
            let v3 = try await h.call(.GET, "/1.1/users/\(ann)").body["nickname"]
            XCTAssertEqual(v3, "Annie")
            // A deleted user's session ends with it.
            a = try await h.call(.DELETE, "/1.1/users/\(bob)", headers: H.sessionHeaders(bobToken))
            XCTAssertEqual(a.status, 200, "\(db) \(a.text)")
            a = try await h.call(.GET, "/1.1/users/me", headers: H.sessionHeaders(bobToken))
            XCTAssertEqual(a.body["code"], 211, "\(db) \(a.text)")
        }
    }

    func testRefreshAndUpdatePasswordRetireOldTokens() async throws {
        try await onEachDatabase { h, db in
            let (ann, first) = try await Self.signUp(h, ["username": "ann", "password": "pw-ann"])
            let second = try await h.call(.POST, "/1.1/login", body: ["username": "ann", "password": "pw-ann"]).body["sessionToken"]?.string ?? ""
            var a = try await h.call(.PUT, "/1.1/users/\(ann)/refreshSessionToken", headers: H.sessionHeaders(first))
            XCTAssertEqual(a.status, 200, "\(db) \(a.text)")
            XCTAssertEqual(a.body["username"], "ann")
            let refreshed = a.body["sessionToken"]?.string ?? ""
            XCTAssertFalse(refreshed.isEmpty || refreshed == first || refreshed == second)
            for old in [first, second] {
                a = try await h.call(.GET, "/1.1/users/me", headers: H.sessionHeaders(old))
                XCTAssertEqual(a.body["code"], 211, "\(db): an old token still works: \(a.text)")
            }
            let v4 = try await h.call(.GET, "/1.1/users/me", headers: H.sessionHeaders(refreshed)).status
            XCTAssertEqual(v4, 200)
            // The master key refreshes too.
            a = try await h.call(.PUT, "/1.1/users/\(ann)/refreshSessionToken", headers: H.masterHeaders)
            let byMaster = a.body["sessionToken"]?.string ?? ""
            let v5 = try await h.call(.GET, "/1.1/users/me", headers: H.sessionHeaders(refreshed)).body["code"]
            XCTAssertEqual(v5, 211)
            // updatePassword: the old password must be right (210); then a new token, the old ones end.
            a = try await h.call(.PUT, "/1.1/users/\(ann)/updatePassword", body: ["old_password": "nope", "new_password": "pw-new"],
                                 headers: H.sessionHeaders(byMaster))
            XCTAssertEqual(a.body["code"], 210, "\(db) \(a.text)")
            a = try await h.call(.PUT, "/1.1/users/\(ann)/updatePassword", body: ["old_password": "pw-ann", "new_password": "pw-new"],
                                 headers: H.sessionHeaders(byMaster))
            XCTAssertEqual(a.status, 200, "\(db) \(a.text)")
            let afterChange = a.body["sessionToken"]?.string ?? ""
            let v6 = try await h.call(.GET, "/1.1/users/me", headers: H.sessionHeaders(byMaster)).body["code"]
            XCTAssertEqual(v6, 211)
            let v7 = try await h.call(.GET, "/1.1/users/me", headers: H.sessionHeaders(afterChange)).status
            XCTAssertEqual(v7, 200)
            let v8 = try await h.call(.POST, "/1.1/login", body: ["username": "ann", "password": "pw-ann"]).body["code"]
            XCTAssertEqual(v8, 210)
            let v9 = try await h.call(.POST, "/1.1/login", body: ["username": "ann", "password": "pw-new"]).status
            XCTAssertEqual(v9, 200)
        }
    }

    /// Secrets are not queryable: no `$regex`, order or `$select` on them,
    /// from any path; the sessions table is no class.
    func testSecretsAreNotQueryableAndSessionsAreNoClass() async throws {
        try await onEachDatabase { h, db in
            _ = try await Self.signUp(h, ["username": "ann", "password": "pw-ann"])
            let attempts: [(String, [(String, String)])] = [
                ("/1.1/classes/_User", [("where", #"{"password":{"$regex":"^p"}}"#)]),
                ("/1.1/users", [("where", #"{"salt":{"$exists":true}}"#)]),
                ("/1.1/classes/_User", [("order", "password")]),
                ("/1.1/classes/Note", [("where", #"{"author":{"$inQuery":{"className":"_User","where":{"password":{"$gt":"a"}}}}}"#)]),
                ("/1.1/classes/Note", [("where", #"{"k":{"$select":{"query":{"className":"_User"},"key":"password"}}}"#)]),
                ("/1.1/cloudQuery", [("cql", "select * from _User where sessionToken is exists")]),
                ("/1.1/scan/classes/_User", [("scan_key", "password")]),
            ]
            for (isMaster, headers) in [(false, H.appHeaders), (true, H.masterHeaders)] {
                // (scan needs the master key: 119 before anything else with the app key.)
                for (path, query) in attempts where isMaster || !path.hasPrefix("/1.1/scan") {
                    let a = try await h.call(.GET, path, query: query, headers: headers)
                    XCTAssertEqual(a.body["code"], 105, "\(db) \(path) \(query): \(a.text)")
                }
            }
            for path in ["/1.1/classes/cql:sessions", "/1.1/classes/cql%3Asessions"] {
                let a = try await h.call(.GET, path, headers: H.masterHeaders)
                XCTAssertEqual(a.body["code"], 103, "\(db) \(path): \(a.text)")
            }
            var a = try await h.call(.GET, "/1.1/classes/_User", query: [("where", #"{"objectId":{"$inQuery":{"className":"cql:sessions","where":{}}}}"#)],
                                     headers: H.masterHeaders)
            XCTAssertEqual(a.body["code"], 103, "\(db) \(a.text)")
            a = try await h.call(.GET, "/1.1/schemas", headers: H.masterHeaders)
            XCTAssertFalse(a.text.contains("cql:sessions"), "\(db) \(a.text)")
        }
    }

    /// Many sign-ups at once for one name: exactly one gets it.
    func testConcurrentSignUpsKeepNamesUnique() async throws {
        try await onEachDatabase { h, db in
            for (field, code) in [("username", 202), ("email", 203)] {
                let statuses = try await withThrowingTaskGroup(of: (Int, Int64?).self) { group in
                    for i in 0..<12 {
                        let body: Value = field == "username" ? ["username": "same", "password": "p"]
                            : ["username": .string("user\(i)"), "password": "p", "email": "same@example.com"]
                        group.addTask { let a = try await h.call(.POST, "/1.1/users", body: body); return (a.status, a.body["code"]?.int) }
                    }
                    var all: [(Int, Int64?)] = []
                    for try await s in group { all.append(s) }
                    return all
                }
                XCTAssertEqual(statuses.filter { $0.0 == 201 }.count, 1, "\(db) \(field): \(statuses)")
                XCTAssertEqual(statuses.filter { $0.1 == Int64(code) }.count, 11, "\(db) \(field): \(statuses)")
            }
        }
    }

    /// 3 failures lock the account (219, even with the right password), not
    /// others; the lock ends after its time.
    func testFailedLoginsLockTheAccount() async throws {
        for database in ServerHarness.Database.allCases {
            let h = try await ServerHarness.start(database) { c in
                c.loginAttempts = 3
                c.loginLockout = 1.5
            }
            _ = try await Self.signUp(h, ["username": "ann", "password": "pw-ann"])
            _ = try await Self.signUp(h, ["username": "bob", "password": "pw-bob"])
            for _ in 0..<3 {
                let v10 = try await h.call(.POST, "/1.1/login", body: ["username": "ann", "password": "guess"]).body["code"]
                XCTAssertEqual(v10, 210)
            }
            var a = try await h.call(.POST, "/1.1/login", body: ["username": "ann", "password": "pw-ann"])
            XCTAssertEqual(a.body["code"], 219, "\(database) \(a.text)")
            a = try await h.call(.POST, "/1.1/login", body: ["email": "nobody", "username": "ann", "password": "guess"])
            XCTAssertEqual(a.body["code"], 219, "\(database) \(a.text)")
            let v11 = try await h.call(.POST, "/1.1/login", body: ["username": "bob", "password": "pw-bob"]).status
            XCTAssertEqual(v11, 200)
            try await Task.sleep(for: .seconds(1.7))
            a = try await h.call(.POST, "/1.1/login", body: ["username": "ann", "password": "pw-ann"])
            XCTAssertEqual(a.status, 200, "\(database) \(a.text)")
            await h.stop()
        }
    }

    /// The server's default (600,000 iterations): the stored form names it.
    func testDefaultPasswordHashing() async throws {
        let h = try await ServerHarness.start(.sqlite, passwordIterations: Passwords.defaultIterations)
        let start = ContinuousClock.now
        let (id, _) = try await Self.signUp(h, ["username": "ann", "password": "pw-ann"])
        let elapsed = ContinuousClock.now - start
        let stored = try await Self.storedUser(h, id)
        XCTAssertTrue(stored["password"]?.string?.hasPrefix("pbkdf2_sha256$600000$") == true, "\(stored)")
        let v12 = try await h.call(.POST, "/1.1/login", body: ["username": "ann", "password": "pw-ann"]).status
        XCTAssertEqual(v12, 200)
        let v13 = try await h.call(.POST, "/1.1/login", body: ["username": "ann", "password": "pw-anN"]).body["code"]
        XCTAssertEqual(v13, 210)
        print("sign-up with 600,000 PBKDF2 iterations: \(elapsed)")
        await h.stop()
    }

    /// The user as stored (with its secrets), read past the API.
    static func storedUser(_ h: ServerHarness, _ id: String) async throws -> [String: Value] {
        let q = try WhereJSONReader.read(.object(["className": "_User", "where": .object(["objectId": .string(id)])]))
        return try await h.server.storage.find(q).objects.first ?? [:]
    }
}
