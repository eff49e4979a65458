import CQLKit
import CQLServer
import Foundation
import NIOHTTP1
import XCTest

/// Answers matched to what LeanCloud's own servers answered (as recorded
/// by its JavaScript SDK's test suite), each named after the behaviour, on
/// SQLite and PostgreSQL.
final class LeanCloudAnswersTests: XCTestCase {
    typealias H = ServerHarness

    static func keys(_ v: Value) -> Set<String> {
        guard case .object(let o) = v else { return [] }
        return Set(o.keys)
    }

    func testAStaleSessionIsAnonymousExceptWhereTheSessionIsThePoint() async throws {
        try await onEachDatabase { h, db in
            let (ann, token) = try await UsersTests.signUp(h, ["username": "ann", "password": "pw-ann"])
            _ = try await h.call(.POST, "/1.1/classes/Note", body: ["t": "public"])
            // The user is deleted while the app still holds its session.
            var a = try await h.call(.DELETE, "/1.1/users/\(ann)", headers: H.sessionHeaders(token))
            XCTAssertEqual(a.status, 200, "\(db) \(a.text)")
            let stale = H.sessionHeaders(token)
            // Reads, sign-up and login answer as for the anonymous caller.
            a = try await h.call(.GET, "/1.1/classes/Note", headers: stale)
            XCTAssertEqual(a.status, 200, "\(db) \(a.text)")
            XCTAssertEqual(a.body["results"]?.array.count, 1, "\(db) \(a.text)")
            a = try await h.call(.POST, "/1.1/users", body: ["username": "ann", "password": "pw-2"], headers: stale)
            XCTAssertEqual(a.status, 201, "\(db) \(a.text)")
            a = try await h.call(.POST, "/1.1/login", body: ["username": "ann", "password": "pw-2"], headers: stale)
            XCTAssertEqual(a.status, 200, "\(db) \(a.text)")
            let fresh = a.body["sessionToken"]?.string ?? "", newId = a.body["objectId"]?.string ?? ""
            a = try await h.call(.GET, "/1.1/classes/Note", headers: H.masterHeaders + [("X-LC-Session", token)])
            XCTAssertEqual(a.status, 200, "\(db) master with a stale session: \(a.text)")
            // Where the session is the point: 211.
            a = try await h.call(.GET, "/1.1/users/me", headers: stale)
            XCTAssertEqual(a.body["code"], 211, "\(db) \(a.text)")
            for path in ["refreshSessionToken", "updatePassword"] {
                a = try await h.call(.PUT, "/1.1/users/\(newId)/\(path)", body: ["old_password": "pw-2", "new_password": "pw-3"], headers: stale)
                XCTAssertEqual(a.body["code"], 211, "\(db) \(path) \(a.text)")
            }
            // After updatePassword, the SDK's next login still carries the retired token.
            a = try await h.call(.PUT, "/1.1/users/\(newId)/updatePassword", body: ["old_password": "pw-2", "new_password": "pw-3"],
                                 headers: H.sessionHeaders(fresh))
            XCTAssertEqual(a.status, 200, "\(db) \(a.text)")
            XCTAssertEqual(Self.keys(a.body), ["objectId", "updatedAt", "sessionToken"], "\(db) \(a.text)")
            a = try await h.call(.POST, "/1.1/login", body: ["username": "ann", "password": "pw-3"], headers: H.sessionHeaders(fresh))
            XCTAssertEqual(a.status, 200, "\(db) \(a.text)")
            // A batch whose sub-request retires the session goes on as the anonymous caller.
            let now = a.body["sessionToken"]?.string ?? ""
            a = try await h.call(.POST, "/1.1/batch", body: ["requests": [
                ["method": "PUT", "path": .string("/1.1/users/\(newId)/refreshSessionToken")],
                ["method": "GET", "path": "/1.1/classes/Note"],
            ]], headers: H.sessionHeaders(now))
            XCTAssertEqual(a.body.array.last?["success"]?["results"]?.array.count, 1, "\(db) \(a.text)")
        }
    }

    func testSignUpAnswersTheWholeUser() async throws {
        try await onEachDatabase { h, db in
            var a = try await h.call(.POST, "/1.1/users", body: ["username": "tester1", "password": "password1", "email": "t1@example.com", "gender": "female"])
            XCTAssertEqual(a.status, 201, "\(db) \(a.text)")
            XCTAssertEqual(Self.keys(a.body),
                           ["createdAt", "updatedAt", "objectId", "sessionToken", "username", "email", "gender", "emailVerified", "mobilePhoneVerified"],
                           "\(db) \(a.text)")
            XCTAssertEqual(a.body["emailVerified"], false)
            XCTAssertEqual(a.body["mobilePhoneVerified"], false)
            XCTAssertEqual(a.body["createdAt"], a.body["updatedAt"], "\(db) \(a.text)")
            let id = a.body["objectId"]?.string ?? ""
            // Finds, logins and me show the flags too.
            a = try await h.call(.GET, "/1.1/classes/_User", query: [("where", #"{"username":"tester1"}"#)])
            XCTAssertEqual(a.body["results"]?.array.first?["emailVerified"], false, "\(db) \(a.text)")
            a = try await h.call(.POST, "/1.1/login", body: ["username": "tester1", "password": "password1"])
            XCTAssertEqual(a.body["mobilePhoneVerified"], false, "\(db) \(a.text)")
            XCTAssertEqual(a.body["objectId"]?.string, id)
        }
    }

    func testAnonymousLoginThenRegistration() async throws {
        try await onEachDatabase { h, db in
            let anon: Value = ["authData": ["anonymous": ["id": "1b671a64-40d5-491e-99b0-da01ff1f3341"]]]
            // failOnNotExist: no such user yet.
            var a = try await h.call(.POST, "/1.1/users", query: [("failOnNotExist", "true")], body: anon)
            XCTAssertEqual(a.status, 400, "\(db) \(a.text)")
            XCTAssertEqual(a.body["code"], 211, "\(db) \(a.text)")
            XCTAssertEqual(a.body["error"], "Could not find user.")
            a = try await h.call(.POST, "/1.1/users", body: anon)
            XCTAssertEqual(a.status, 201, "\(db) \(a.text)")
            let id = a.body["objectId"]?.string ?? "", token = a.body["sessionToken"]?.string ?? ""
            XCTAssertEqual(a.body["username"]?.string?.count, 25, "\(db) a generated username: \(a.text)")
            XCTAssertEqual(a.body["authData"], anon["authData"])
            // The same id logs the same user in.
            a = try await h.call(.POST, "/1.1/users", body: anon)
            XCTAssertEqual(a.status, 200, "\(db) \(a.text)")
            XCTAssertEqual(a.body["objectId"]?.string, id)
            // The SDK then registers it.
            a = try await h.call(.PUT, "/1.1/classes/_User/\(id)", body: ["username": "justsomeuniquename", "password": "justsomeuniquename"],
                                 headers: H.sessionHeaders(token))
            XCTAssertEqual(a.status, 200, "\(db) \(a.text)")
            a = try await h.call(.POST, "/1.1/login", body: ["username": "justsomeuniquename", "password": "justsomeuniquename"])
            XCTAssertEqual(a.status, 200, "\(db) \(a.text)")
            XCTAssertEqual(a.body["authData"], .object([:]), "\(db) no longer anonymous: \(a.text)")
            XCTAssertNil(a.body["password"])
            // The stored password is a hash.
            a = try await h.call(.GET, "/1.1/classes/_User/\(id)", headers: H.masterHeaders)
            XCTAssertNil(a.body["password"])
            // Another user cannot set it.
            let (_, other) = try await UsersTests.signUp(h, ["username": "mallory", "password": "pw-m"])
            a = try await h.call(.PUT, "/1.1/users/\(id)", body: ["password": "taken"], headers: H.sessionHeaders(other))
            XCTAssertEqual(a.body["code"], 206, "\(db) \(a.text)")
            // A third-party platform's claim from a client cannot be verified here.
            a = try await h.call(.POST, "/1.1/users", body: ["authData": ["weixin": ["openid": "o1", "access_token": "t"]]])
            XCTAssertEqual(a.body["code"], 251, "\(db) \(a.text)")
            a = try await h.call(.POST, "/1.1/users", body: ["authData": ["weixin": ["openid": "o1", "access_token": "t"]]], headers: H.masterHeaders)
            XCTAssertEqual(a.status, 201, "\(db) the master key vouches for it: \(a.text)")
        }
    }

    func testRelationQueryRedirectsToTheTargetClass() async throws {
        try await onEachDatabase { h, db in
            let (u1, _) = try await UsersTests.signUp(h, ["username": "u1", "password": "pw"])
            var a = try await h.call(.POST, "/1.1/classes/Post", body: [
                "title": "t", "likes": ["__op": "AddRelation", "objects": [["__type": "Pointer", "className": "_User", "objectId": .string(u1)]]],
            ])
            XCTAssertEqual(a.status, 201, "\(db) \(a.text)")
            let post = a.body["objectId"]?.string ?? ""
            let related: Value = ["$relatedTo": ["object": ["__type": "Pointer", "className": "Post", "objectId": .string(post)], "key": "likes"]]
            a = try await h.call(.GET, "/1.1/classes/Post", query: [("redirectClassNameForKey", "likes"), ("where", JSONWriter.string(related))])
            XCTAssertEqual(a.status, 200, "\(db) \(a.text)")
            XCTAssertEqual(a.body["className"], "_User", "\(db) \(a.text)")
            XCTAssertEqual(a.body["results"]?.array.compactMap { $0["objectId"]?.string }, [u1], "\(db) \(a.text)")
            // An owner that does not exist relates nothing.
            let none: Value = ["$relatedTo": ["object": ["__type": "Pointer", "className": "Post", "objectId": "nope"], "key": "likes"]]
            a = try await h.call(.GET, "/1.1/classes/Post", query: [("redirectClassNameForKey", "likes"), ("where", JSONWriter.string(none))])
            XCTAssertEqual(a.body, ["results": []], "\(db) \(a.text)")
            // A redirect without a $relatedTo is an error, not an empty answer.
            a = try await h.call(.GET, "/1.1/classes/Post", query: [("redirectClassNameForKey", "likes")])
            XCTAssertEqual(a.body["code"], 102, "\(db) \(a.text)")
        }
    }

    func testAUsersRolesByRelationEquality() async throws {
        try await onEachDatabase { h, db in
            let (u1, token) = try await UsersTests.signUp(h, ["username": "u1", "password": "pw"])
            let (u2, _) = try await UsersTests.signUp(h, ["username": "u2", "password": "pw"])
            func pointer(_ id: String) -> Value { ["__type": "Pointer", "className": "_User", "objectId": .string(id)] }
            func names(_ where: Value, headers: [(String, String)] = ServerHarness.appHeaders) async throws -> [String] {
                let a = try await h.call(.GET, "/1.1/roles", query: [("where", JSONWriter.string(`where`)), ("order", "name")], headers: headers)
                XCTAssertEqual(a.status, 200, "\(db) \(a.text)")
                return a.body["results"]?.array.compactMap { $0["name"]?.string } ?? []
            }
            // No role has a users relation yet: the key is no relation, nothing holds u1.
            var found = try await names(["users": pointer(u1)])
            XCTAssertEqual(found, [], "\(db)")
            for (name, members, acl) in [("editors", [u1, u2], true), ("admins", [u2], true), ("readers", [u1], true), ("hidden", [u1], false)] {
                let a = try await h.call(.POST, "/1.1/roles", body: [
                    "name": .string(name), "ACL": acl ? ["*": ["read": true]] : [:],
                    "users": ["__op": "AddRelation", "objects": .array(members.map(pointer))],
                ], headers: ServerHarness.masterHeaders)
                XCTAssertEqual(a.status, 201, "\(db) \(a.text)")
            }
            // What AV.User#getRoles and the Python SDK's User.get_roles send: the roles
            // whose relation holds the user, and only those the caller may read.
            found = try await names(["users": pointer(u1)])
            XCTAssertEqual(found, ["editors", "readers"], "\(db)")
            found = try await names(["users": pointer(u1)], headers: ServerHarness.sessionHeaders(token))
            XCTAssertEqual(found, ["editors", "readers"], "\(db): the hidden role's ACL grants nobody")
            found = try await names(["users": pointer(u1)], headers: ServerHarness.masterHeaders)
            XCTAssertEqual(found, ["editors", "hidden", "readers"], "\(db)")
            found = try await names(["users": ["$ne": pointer(u1)]])
            XCTAssertEqual(found, ["admins"], "\(db)")
            found = try await names(["users": ["$in": [pointer(u2), pointer("nobody")]]])
            XCTAssertEqual(found, ["admins", "editors"], "\(db)")
            found = try await names(["users": ["$all": [pointer(u1), pointer(u2)]]])
            XCTAssertEqual(found, ["editors"], "\(db)")
            // Removing the user from a role takes the role off its list.
            let readers = try await h.call(.GET, "/1.1/roles", query: [("where", #"{"name":"readers"}"#)]).body["results"]?.array.first?["objectId"]?.string ?? ""
            let a = try await h.call(.PUT, "/1.1/roles/\(readers)", body: ["users": ["__op": "RemoveRelation", "objects": [pointer(u1)]]],
                                     headers: ServerHarness.masterHeaders)
            XCTAssertEqual(a.status, 200, "\(db) \(a.text)")
            found = try await names(["users": pointer(u1)])
            XCTAssertEqual(found, ["editors"], "\(db)")
            // A count asks the same.
            let count = try await h.call(.GET, "/1.1/roles", query: [("where", JSONWriter.string(["users": pointer(u2)])), ("count", "1"), ("limit", "0")])
            XCTAssertEqual(count.body["count"], 2, "\(db) \(count.text)")
        }
    }

    func testBatchGetOfAMissingObjectIsNull() async throws {
        try await onEachDatabase { h, db in
            var a = try await h.call(.POST, "/1.1/classes/GameScore", body: ["score": 10000])
            let id = a.body["objectId"]?.string ?? ""
            a = try await h.call(.POST, "/1.1/batch", body: ["requests": [
                ["method": "GET", "path": .string("/1.1/classes/GameScore/\(id)")],
                ["method": "GET", "path": "/1.1/classes/GameScore/fakeId"],
                ["method": "GET", "path": .string("/1.1/classes/FakeClass/\(id)")],
            ]])
            XCTAssertEqual(a.status, 200, "\(db) \(a.text)")
            let answers = a.body.array
            XCTAssertEqual(answers.count, 3)
            XCTAssertEqual(answers.first?["success"]?["score"], 10000, "\(db) \(a.text)")
            XCTAssertEqual(answers.dropFirst().first, ["success": .null], "\(db) \(a.text)")
            XCTAssertEqual(answers.last?["error"]?["code"], 101, "\(db) \(a.text)")
        }
    }

    func testSmallerDifferences() async throws {
        try await onEachDatabase { h, db in
            var a = try await h.call(.POST, "/1.1/classes/Todo", body: ["t": "x"])
            let id = a.body["objectId"]?.string ?? ""
            // returnACL on an object stored without an ACL: the public default.
            for path in ["/1.1/classes/Todo/\(id)", "/1.1/classes/Todo"] {
                a = try await h.call(.GET, path, query: [("returnACL", "true")])
                let object = a.body["results"]?.array.first ?? a.body
                XCTAssertEqual(object["ACL"], ["*": ["read": true, "write": true]], "\(db) \(path) \(a.text)")
            }
            // __ignore_hooks is accepted in a PUT and a DELETE body, and never stored.
            a = try await h.call(.PUT, "/1.1/classes/Todo/\(id)", body: ["t": "y", "__ignore_hooks": true])
            XCTAssertEqual(a.status, 200, "\(db) \(a.text)")
            a = try await h.call(.GET, "/1.1/classes/Todo/\(id)")
            XCTAssertNil(a.body["__ignore_hooks"], "\(db) \(a.text)")
            // An unknown operation is 111 (as in a create).
            a = try await h.call(.PUT, "/1.1/classes/Todo/\(id)", body: ["n": ["__op": "Multiply", "amount": 2]])
            XCTAssertEqual(a.body["code"], 111, "\(db) \(a.text)")
            a = try await h.call(.DELETE, "/1.1/classes/Todo/\(id)", body: ["__ignore_hooks": true])
            XCTAssertEqual(a.status, 200, "\(db) \(a.text)")
            // A signature from a device whose clock is an hour off says so.
            let old = Int64(Date().timeIntervalSince1970 * 1000) - 3_600_000
            a = try await h.call(.GET, "/1.1/classes/Todo", headers: [("X-LC-Id", H.keys.appId), ("X-LC-Sign", H.signature(key: H.keys.appKey, timestamp: old))])
            XCTAssertEqual(a.status, 401, "\(db) \(a.text)")
            XCTAssertTrue(a.body["error"]?.string?.contains("clock") == true, "\(db) \(a.text)")
            // A wrong key tells nothing more.
            a = try await h.call(.GET, "/1.1/classes/Todo", headers: [("X-LC-Id", H.keys.appId), ("X-LC-Sign", H.signature(key: "wrong", timestamp: old))])
            XCTAssertEqual(a.body, ["code": 401, "error": "Unauthorized."], "\(db) \(a.text)")
            // cloudQuery ignores values past the placeholders, as LeanCloud did.
            a = try await h.call(.GET, "/1.1/cloudQuery", query: [("cql", "select count(*), * from Todo"), ("pvalues", #"["score"]"#)])
            XCTAssertEqual(a.status, 200, "\(db) \(a.text)")
        }
    }

    /// What the Python SDK's `test_matches_key_in_query` does, in its order
    /// on a fresh database — counts and finds of classes that do not exist
    /// yet, creates, then sub-queries, then more writes — each answer
    /// checked: no kept answer, statement or stand-in table outlives a write.
    func testSubQueriesSeeEveryWriteOnFreshClasses() async throws {
        try await onEachDatabase { h, db in
            let matches = #"{"work_year":{"$select":{"query":{"className":"A","where":{"age":1}},"key":"age"}}}"#
            let misses = #"{"work_year":{"$dontSelect":{"query":{"className":"A","where":{"age":1}},"key":"age"}}}"#
            func count(_ className: String, _ condition: String? = nil) async throws -> Int64? {
                let q = [("count", "1"), ("limit", "0")] + (condition.map { [("where", $0)] } ?? [])
                return try await h.call(.GET, "/1.1/classes/\(className)", query: q).body["count"]?.int
            }
            // Before the classes exist: nothing, and the sub-queries find nothing.
            for c in ["A", "B"] { let n = try await count(c); XCTAssertEqual(n, 0, "\(db) \(c)") }
            do { let n = try await count("B", matches); XCTAssertEqual(n, 0, "\(db)") }
            var requests: [Value] = []
            for _ in 0..<5 {
                for k in 0..<10 {
                    requests.append(["method": "POST", "path": "/1.1/classes/A", "body": ["age": .int(Int64(k))]])
                    requests.append(["method": "POST", "path": "/1.1/classes/B", "body": ["work_year": .int(Int64(k))]])
                }
            }
            _ = try await h.call(.POST, "/1.1/batch", body: ["requests": .array(requests)])
            do { let n = try await count("B", matches); XCTAssertEqual(n, 5, "\(db)") }
            do { let n = try await count("B", misses); XCTAssertEqual(n, 45, "\(db)") }
            do { let n = try await count("B", matches); XCTAssertEqual(n, 5, "\(db) again") }
            // A write to the sub-query's class changes the next answer.
            let ones = try await h.call(.GET, "/1.1/classes/A", query: [("where", #"{"age":1}"#)]).body["results"]?.array ?? []
            for o in ones { _ = try await h.call(.DELETE, "/1.1/classes/A/\(o["objectId"]?.string ?? "")") }
            do { let n = try await count("B", matches); XCTAssertEqual(n, 0, "\(db) after deleting A's age 1") }
            do { let n = try await count("B", misses); XCTAssertEqual(n, 50, "\(db) after deleting A's age 1") }
        }
    }

    /// No silent wrong answer: a parameter a route does not read is an
    /// error naming it, never ignored (a kept find included, and a batch's
    /// `params`); the parameters the SDKs send all work.
    func testEveryUnknownParameterIsAnError() async throws {
        try await onEachDatabase { h, db in
            var a = try await h.call(.POST, "/1.1/classes/Todo", query: [("fetchWhenSave", "true")], body: ["t": "x", "n": 1])
            XCTAssertEqual(a.status, 201, "\(db) \(a.text)")
            let id = a.body["objectId"]?.string ?? ""
            let refused: [(HTTPMethod, String, [(String, String)], Value)] = [
                (.GET, "/1.1/classes/Todo", [("limt", "5")], .null),
                (.GET, "/1.1/classes/Todo", [("excludeKeys", "t")], .null),
                (.GET, "/1.1/classes/Todo/\(id)", [("where", "{}")], .null),
                (.POST, "/1.1/classes/Todo", [("fetchWhenSav", "true")], ["t": "y"]),
                (.PUT, "/1.1/classes/Todo/\(id)", [("whre", #"{"n":1}"#)], ["t": "z"]),
                (.GET, "/1.1/cloudQuery", [("cql", "select * from Todo"), ("values", "[1]")], .null),
                (.GET, "/1.1/scan/classes/Todo", [("order", "t")], .null),
                (.GET, "/1.1/date", [("x", "1")], .null),
            ]
            for (method, path, query, body) in refused {
                for _ in 0..<2 {  // twice: the second find would be a kept one
                    a = try await h.call(method, path, query: query, body: body, headers: H.masterHeaders)
                    XCTAssertEqual(a.body["code"], 107, "\(db) \(method) \(path) \(query): \(a.text)")
                    XCTAssertTrue(a.body["error"]?.string?.contains("'\(query.last?.0 ?? "")'") == true, "\(db) \(a.text)")
                }
            }
            a = try await h.call(.POST, "/1.1/batch", body: ["requests": [["method": "GET", "path": "/1.1/classes/Todo", "params": ["limt": 1]]]])
            XCTAssertEqual(a.body.array.first?["error"]?["code"], 107, "\(db) \(a.text)")
            // The untouched object, and scan's own parameters.
            a = try await h.call(.GET, "/1.1/classes/Todo/\(id)")
            XCTAssertEqual(a.body["t"], "x", "\(db) \(a.text)")
            a = try await h.call(.GET, "/1.1/scan/classes/Todo", query: [("keys", "n"), ("limit", "1")], headers: H.masterHeaders)
            XCTAssertEqual(a.body["results"]?.array.first?["n"], 1, "\(db) \(a.text)")
            XCTAssertNil(a.body["results"]?.array.first?["t"], "\(db) \(a.text)")
            a = try await h.call(.GET, "/1.1/scan/classes/Todo", query: [("limit", "many")], headers: H.masterHeaders)
            XCTAssertEqual(a.body["code"], 102, "\(db) \(a.text)")
        }
    }
}
