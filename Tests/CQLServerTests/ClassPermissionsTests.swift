import CQLKit
import CQLSQL
@testable import CQLServer
import Foundation
import NIOHTTP1
import XCTest

/// Class-level permissions (Server.md, "Class-level permissions"): each
/// operation granted to everyone, logged-in users, listed users or roles,
/// or nobody but the master key; enforced on every route; the defaults of
/// `_Role` and `_User`; protected fields neither returned nor queryable.
final class ClassPermissionsTests: XCTestCase {
    typealias H = ServerHarness

    /// Ann is listed by objectId, Bob holds role:staff, Cat is only logged
    /// in, and the anonymous caller is none of them.
    struct Callers {
        var ann: (id: String, token: String)
        var bob: (id: String, token: String)
        var cat: (id: String, token: String)
        var all: [(name: String, headers: [(String, String)])] {
            [("anonymous", H.appHeaders), ("ann", H.sessionHeaders(ann.token)), ("bob", H.sessionHeaders(bob.token)),
             ("cat", H.sessionHeaders(cat.token))]
        }
    }

    static func callers(_ h: ServerHarness) async throws -> Callers {
        let ann = try await UsersTests.signUp(h, ["username": "ann", "password": "pw-ann", "email": "ann@example.com",
                                                  "mobilePhoneNumber": "15500000001"])
        let bob = try await UsersTests.signUp(h, ["username": "bob", "password": "pw-bob", "email": "bob@example.com"])
        let cat = try await UsersTests.signUp(h, ["username": "cat", "password": "pw-cat"])
        let a = try await h.call(.POST, "/1.1/roles", body: [
            "name": "staff", "ACL": ["*": ["read": true]],
            "users": ["__op": "AddRelation", "objects": [["__type": "Pointer", "className": "_User", "objectId": .string(bob.id)]]],
        ], headers: H.masterHeaders)
        XCTAssertEqual(a.status, 201, a.text)
        return Callers(ann: ann, bob: bob, cat: cat)
    }

    @discardableResult
    static func setPermissions(_ h: ServerHarness, _ className: String, _ body: Value) async throws -> ServerHarness.Answer {
        let a = try await h.call(.PUT, "/1.1/schemas/\(className)", body: body, headers: H.masterHeaders)
        XCTAssertEqual(a.status, 200, a.text)
        return a
    }

    static func isRefused(_ a: ServerHarness.Answer) -> Bool { a.status == 403 && a.body["code"] == 119 }

    /// Every operation × every kind of grant × every caller: allowed exactly
    /// when the grant names the caller; refused with 403/119 otherwise; the
    /// master key always allowed.
    func testEachOperationForEachKindOfGrant() async throws {
        try await onEachDatabase { h, db in
            let c = try await Self.callers(h)
            var a = try await h.call(.POST, "/1.1/classes/Doc", body: ["title": "seed"], headers: H.masterHeaders)
            let seed = a.body["objectId"]?.string ?? ""
            let grants: [(name: String, grant: Value, admitted: Set<String>)] = [
                ("everyone", ["*": true], ["anonymous", "ann", "bob", "cat"]),
                ("logged-in", ["onlySignInUsers": true], ["ann", "bob", "cat"]),
                ("listed user", ["users": [Value.string(c.ann.id)], "roles": []], ["ann"]),
                ("listed role", ["users": [], "roles": ["staff"]], ["bob"]),
                ("Parse's form", [c.ann.id: true, "role:staff": true], ["ann", "bob"]),
                ("nobody", [:], []),
            ]
            var n = 0
            for op in ClassPermissions.Operation.allCases {
                for g in grants {
                    try await Self.setPermissions(h, "Doc", ["permissions": [op.rawValue: g.grant]])
                    for caller in c.all + [("master", H.masterHeaders)] {
                        n += 1
                        // A fresh object for each update and delete (its ACL open to all).
                        a = try await h.call(.POST, "/1.1/classes/Doc", body: ["title": .string("t\(n)"), "ACL": ["*": ["read": true, "write": true]]],
                                             headers: H.masterHeaders)
                        let id = a.body["objectId"]?.string ?? ""
                        switch op {
                        case .create: a = try await h.call(.POST, "/1.1/classes/Doc", body: ["title": "new"], headers: caller.headers)
                        case .find: a = try await h.call(.GET, "/1.1/classes/Doc", query: [("limit", "1")], headers: caller.headers)
                        case .get: a = try await h.call(.GET, "/1.1/classes/Doc/\(seed)", headers: caller.headers)
                        case .update: a = try await h.call(.PUT, "/1.1/classes/Doc/\(id)", body: ["title": "changed"], headers: caller.headers)
                        case .delete: a = try await h.call(.DELETE, "/1.1/classes/Doc/\(id)", headers: caller.headers)
                        case .addFields: a = try await h.call(.PUT, "/1.1/classes/Doc/\(id)", body: ["key\(n)": 1], headers: caller.headers)
                        }
                        let admitted = caller.0 == "master" || g.admitted.contains(caller.0)
                        if admitted {
                            XCTAssert(a.status == 200 || a.status == 201, "\(db) \(op) \(g.name) \(caller.0): \(a.status) \(a.text)")
                        } else {
                            XCTAssert(Self.isRefused(a), "\(db) \(op) \(g.name) \(caller.0): \(a.status) \(a.text)")
                        }
                    }
                }
            }
            // The stored shape, shown in LeanCloud's form.
            try await Self.setPermissions(h, "Doc", ["classLevelPermissions": ["find": ["requiresAuthentication": true], "addField": [:]],
                                                     "protectedFields": ["*": ["title"]]])
            a = try await h.call(.GET, "/1.1/schemas/Doc/permissions", headers: H.masterHeaders)
            XCTAssertEqual(a.body["permissions"]?["find"], ["onlySignInUsers": true], "\(db) \(a.text)")
            XCTAssertEqual(a.body["permissions"]?["add_fields"], ["users": [], "roles": []], "\(db) \(a.text)")
            XCTAssertEqual(a.body["permissions"]?["get"], ["*": true], "\(db) \(a.text)")
            XCTAssertEqual(a.body["protectedFields"], ["*": ["title"]], "\(db) \(a.text)")
            // Only the master key reads or sets them; a bad shape is 107.
            a = try await h.call(.GET, "/1.1/schemas/Doc/permissions", headers: H.sessionHeaders(c.ann.token))
            XCTAssert(Self.isRefused(a), "\(db) \(a.text)")
            a = try await h.call(.PUT, "/1.1/schemas/Doc", body: ["permissions": ["find": ["*": true]]], headers: H.sessionHeaders(c.ann.token))
            XCTAssert(Self.isRefused(a), "\(db) \(a.text)")
            a = try await h.call(.PUT, "/1.1/schemas/Doc", body: ["permissions": ["read": ["*": true]]], headers: H.masterHeaders)
            XCTAssertEqual(a.body["code"], 107, "\(db) \(a.text)")
            // `{}` resets the class to its defaults: open.
            try await Self.setPermissions(h, "Doc", [:])
            a = try await h.call(.GET, "/1.1/classes/Doc", headers: H.appHeaders)
            XCTAssertEqual(a.status, 200, "\(db) \(a.text)")
            XCTAssertEqual(a.body["results"]?.array.first?["title"] != nil, true, "\(db) \(a.text)")
        }
    }

    /// `_Role`: no user creates one (class API, `/1.1/roles`, batch,
    /// cloudQuery); anyone finds and gets them. `_User`: another user's
    /// `email`, `mobilePhoneNumber` and `authData` are neither returned
    /// (get, find, cloudQuery, include) nor queryable (where, order,
    /// sub-queries, CQL); the user itself and the master key see them.
    func testReservedClassDefaults() async throws {
        try await onEachDatabase { h, db in
            let c = try await Self.callers(h)
            let ann = H.sessionHeaders(c.ann.token), bob = H.sessionHeaders(c.bob.token)
            let role: Value = ["name": "admins", "ACL": ["*": ["read": true]]]
            var a = try await h.call(.POST, "/1.1/roles", body: role, headers: ann)
            XCTAssert(Self.isRefused(a), "\(db) \(a.text)")
            a = try await h.call(.POST, "/1.1/classes/_Role", body: role, headers: H.appHeaders)
            XCTAssert(Self.isRefused(a), "\(db) \(a.text)")
            a = try await h.call(.POST, "/1.1/batch", body: ["requests": [["method": "POST", "path": "/1.1/roles", "body": role]]], headers: ann)
            XCTAssertEqual(a.body.array.first?["error"]?["code"], 119, "\(db) \(a.text)")
            a = try await h.call(.GET, "/1.1/cloudQuery", query: [("cql", "insert into _Role(name, ACL) values ('admins', ?)"),
                                                                  ("pvalues", #"[{"*":{"read":true}}]"#)], headers: ann)
            XCTAssert(Self.isRefused(a), "\(db) \(a.text)")
            a = try await h.call(.GET, "/1.1/classes/_Role", query: [("where", #"{"name":"admins"}"#)], headers: H.masterHeaders)
            XCTAssertEqual(a.body["results"]?.array.count, 0, "\(db) \(a.text)")
            a = try await h.call(.GET, "/1.1/roles", headers: H.appHeaders)
            XCTAssertEqual(a.body["results"]?.array.count, 1, "\(db) \(a.text)")
            let staff = a.body["results"]?.array.first?["objectId"]?.string ?? ""
            a = try await h.call(.GET, "/1.1/roles/\(staff)", headers: bob)
            XCTAssertEqual(a.body["name"], "staff", "\(db) \(a.text)")
            a = try await h.call(.POST, "/1.1/roles", body: role, headers: H.masterHeaders)
            XCTAssertEqual(a.status, 201, "\(db) \(a.text)")

            // Ann's authData, set by the master key.
            a = try await h.call(.PUT, "/1.1/users/\(c.ann.id)", body: ["authData": ["weixin": ["openid": "o-ann", "access_token": "tok"]]],
                                 headers: H.masterHeaders)
            XCTAssertEqual(a.status, 200, "\(db) \(a.text)")
            let protected = ["email", "mobilePhoneNumber", "authData"]
            func shows(_ o: Value?, _ keys: [String]) -> Bool { keys.allSatisfy { o?[$0] != nil } }
            func hides(_ o: Value?, _ keys: [String]) -> Bool { keys.allSatisfy { o?[$0] == nil } }
            a = try await h.call(.GET, "/1.1/users/\(c.ann.id)", headers: bob)
            XCTAssert(hides(a.body, protected) && a.body["username"] == "ann", "\(db) \(a.text)")
            a = try await h.call(.GET, "/1.1/users/\(c.ann.id)", headers: H.appHeaders)
            XCTAssert(hides(a.body, protected), "\(db) \(a.text)")
            a = try await h.call(.GET, "/1.1/users/\(c.ann.id)", headers: ann)
            XCTAssert(shows(a.body, protected), "\(db) \(a.text)")
            a = try await h.call(.GET, "/1.1/users/\(c.ann.id)", headers: H.masterHeaders)
            XCTAssert(shows(a.body, protected), "\(db) \(a.text)")
            a = try await h.call(.GET, "/1.1/users/me", headers: ann)
            XCTAssert(shows(a.body, protected), "\(db) \(a.text)")
            a = try await h.call(.POST, "/1.1/login", body: ["email": "ann@example.com", "password": "pw-ann"])
            XCTAssertEqual(a.body["email"], "ann@example.com", "\(db) \(a.text)")
            // Find, as Bob: Bob's own email shows, Ann's does not.
            a = try await h.call(.GET, "/1.1/users", headers: bob)
            for u in a.body["results"]?.array ?? [] {
                if u["objectId"]?.string == c.bob.id { XCTAssertEqual(u["email"], "bob@example.com", "\(db) \(a.text)") }
                else { XCTAssert(hides(u, protected), "\(db) \(a.text)") }
            }
            XCTAssertEqual(a.body["results"]?.array.count, 3, "\(db) \(a.text)")
            a = try await h.call(.GET, "/1.1/cloudQuery", query: [("cql", "select * from _User where username = 'ann'")], headers: bob)
            XCTAssert(a.body["results"]?.array.count == 1 && hides(a.body["results"]?.array.first, protected), "\(db) \(a.text)")
            // Included: a Post whose author is Ann.
            a = try await h.call(.POST, "/1.1/classes/Post", body: ["title": "p", "author": ["__type": "Pointer", "className": "_User",
                                                                                            "objectId": .string(c.ann.id)]], headers: ann)
            a = try await h.call(.GET, "/1.1/classes/Post", query: [("include", "author")], headers: bob)
            let author = a.body["results"]?.array.first?["author"]
            XCTAssert(author?["username"] == "ann" && hides(author, protected), "\(db) \(a.text)")
            a = try await h.call(.GET, "/1.1/classes/Post", query: [("include", "author")], headers: ann)
            XCTAssert(shows(a.body["results"]?.array.first?["author"], protected), "\(db) \(a.text)")

            // Not queryable by any user (decided by who asks, not by what matches).
            let probes: [(String, [(String, String)])] = [
                ("/1.1/users", [("where", #"{"email":"ann@example.com"}"#)]),
                ("/1.1/users", [("where", #"{"email":{"$regex":"^a"}}"#)]),
                ("/1.1/classes/_User", [("where", #"{"mobilePhoneNumber":{"$exists":true}}"#), ("count", "1"), ("limit", "0")]),
                ("/1.1/classes/_User", [("where", #"{"authData.weixin.openid":"o-ann"}"#)]),
                ("/1.1/users", [("order", "email")]),
                ("/1.1/classes/Post", [("where", #"{"author":{"$inQuery":{"className":"_User","where":{"email":{"$regex":"^ann"}}}}}"#)]),
                ("/1.1/classes/Post", [("where", #"{"title":{"$select":{"query":{"className":"_User"},"key":"email"}}}"#)]),
                ("/1.1/classes/Post", [("where", #"{"author":{"$inQuery":{"className":"Post","where":{"author":{"$inQuery":{"className":"_User","where":{"email":"x"}}}}}}}"#)]),
            ]
            for (path, query) in probes {
                for headers in [bob, ann, H.appHeaders] {
                    a = try await h.call(.GET, path, query: query, headers: headers)
                    XCTAssert(Self.isRefused(a), "\(db) \(path) \(query): \(a.status) \(a.text)")
                }
                a = try await h.call(.GET, path, query: query, headers: H.masterHeaders)
                XCTAssertEqual(a.status, 200, "\(db) \(path) \(query): \(a.text)")
            }
            for cql in ["select * from _User where email = 'ann@example.com'", "select count(*) from _User where mobilePhoneNumber like '155%'",
                        "select * from _User order by email", "select * from Post where author in (select * from _User where email = 'x')"] {
                a = try await h.call(.GET, "/1.1/cloudQuery", query: [("cql", cql)], headers: bob)
                XCTAssert(Self.isRefused(a), "\(db) \(cql): \(a.text)")
            }
            a = try await h.call(.PUT, "/1.1/users/\(c.bob.id)", query: [("where", #"{"email":"bob@example.com"}"#)], body: ["nickname": "b"],
                                 headers: bob)
            XCTAssert(Self.isRefused(a), "\(db) \(a.text)")
            // The master key may open a field to a role: staff (Bob) sees emails then.
            try await Self.setPermissions(h, "_User", ["protectedFields": ["*": ["email", "mobilePhoneNumber"], "role:staff": []]])
            a = try await h.call(.GET, "/1.1/users/\(c.ann.id)", headers: bob)
            XCTAssert(a.body["email"] == "ann@example.com" && a.body["authData"] == nil, "\(db) \(a.text)")
            a = try await h.call(.GET, "/1.1/users/\(c.ann.id)", headers: H.sessionHeaders(c.cat.token))
            XCTAssert(hides(a.body, protected), "\(db) \(a.text)")
        }
    }

    /// A class whose find and get are the master key's: refused on every
    /// path that reads it — find, count, get (missing or present alike),
    /// batch, cloudQuery, sub-queries at any depth, conditional writes —
    /// and an included object of it comes back as a bare Pointer. Creates
    /// and new keys refused the same way through batch and cloudQuery.
    func testEveryPathIsChecked() async throws {
        try await onEachDatabase { h, db in
            let c = try await Self.callers(h)
            let ann = H.sessionHeaders(c.ann.token)
            var a = try await h.call(.POST, "/1.1/classes/Secret", body: ["code": "s3", "ACL": ["*": ["read": true]]], headers: H.masterHeaders)
            let secret = a.body["objectId"]?.string ?? ""
            a = try await h.call(.POST, "/1.1/classes/Open", body: ["k": "s3", "ACL": ["*": ["read": true, "write": true]],
                                                                  "ref": ["__type": "Pointer", "className": "Secret", "objectId": .string(secret)]],
                                 headers: H.masterHeaders)
            let open = a.body["objectId"]?.string ?? ""
            try await Self.setPermissions(h, "Secret", ["permissions": ["find": [:], "get": [:], "create": [:]]])
            let refused: [(HTTPMethodName, String, [(String, String)], Value)] = [
                (.GET, "/1.1/classes/Secret", [], .null),
                (.GET, "/1.1/classes/Secret", [("count", "1"), ("limit", "0")], .null),
                (.GET, "/1.1/classes/Secret/\(secret)", [], .null),
                (.GET, "/1.1/classes/Secret/nonexistent", [], .null),
                (.POST, "/1.1/classes/Secret", [], ["code": "x"]),
                (.GET, "/1.1/classes/Open", [("where", #"{"k":{"$select":{"query":{"className":"Secret"},"key":"code"}}}"#)], .null),
                (.GET, "/1.1/classes/Open", [("where", #"{"ref":{"$inQuery":{"className":"Secret","where":{"code":"s3"}}}}"#)], .null),
                (.GET, "/1.1/classes/Open", [("where", #"{"ref":{"$notInQuery":{"className":"Secret"}}}"#)], .null),
                (.GET, "/1.1/classes/Open", [("where", #"{"$or":[{"k":"a"},{"ref":{"$inQuery":{"className":"Open","where":{"ref":{"$inQuery":{"className":"Secret"}}}}}}]}"#)], .null),
                (.PUT, "/1.1/classes/Open/\(open)", [("where", #"{"k":{"$select":{"query":{"className":"Secret","where":{"code":{"$regex":"^s"}}},"key":"code"}}}"#)], ["n": 1]),
                (.PUT, "/1.1/classes/Open/\(open)", [("where", #"{"ref":{"$inQuery":{"className":"Secret"}}}"#)], [:]),
                (.DELETE, "/1.1/classes/Open/\(open)", [("where", #"{"ref":{"$inQuery":{"className":"Secret"}}}"#)], .null),
                (.GET, "/1.1/classes/Open", [("where", #"{"$relatedTo":{"object":{"__type":"Pointer","className":"Secret","objectId":"\#(secret)"},"key":"rel"}}"#)], .null),
                (.GET, "/1.1/cloudQuery", [("cql", "select * from Secret")], .null),
                (.GET, "/1.1/cloudQuery", [("cql", "select count(*) from Secret")], .null),
                (.GET, "/1.1/cloudQuery", [("cql", "insert into Secret(code) values ('x')")], .null),
                (.GET, "/1.1/cloudQuery", [("cql", "select * from Open where ref in (select * from Secret)")], .null),
                (.GET, "/1.1/cloudQuery", [("cql", "update Open set n = 1 where objectId = '\(open)' and k in (select code from Secret)")], .null),
                (.GET, "/1.1/cloudQuery", [("cql", "delete from Open where objectId = '\(open)' and ref in (select * from Secret)")], .null),
                (.GET, "/1.1/scan/classes/Secret", [], .null),
            ]
            for (method, path, query, body) in refused {
                for headers in [ann, H.appHeaders] {
                    a = try await h.call(method.nio, path, query: query, body: body, headers: headers)
                    XCTAssert(Self.isRefused(a), "\(db) \(method) \(path) \(query): \(a.status) \(a.text)")
                }
            }
            // Batch sub-requests go through the same routes.
            a = try await h.call(.POST, "/1.1/batch", body: ["requests": [
                ["method": "GET", "path": "/1.1/classes/Secret"],
                ["method": "GET", "path": .string("/1.1/classes/Secret/\(secret)")],
                ["method": "POST", "path": "/1.1/classes/Secret", "body": ["code": "y"]],
                ["method": "PUT", "path": .string("/1.1/classes/Open/\(open)"), "body": ["n": 2],
                 "params": ["where": ["ref": ["$inQuery": ["className": "Secret"]]]]],
                ["method": "GET", "path": "/1.1/classes/Open"],
            ]], headers: ann)
            let answers = a.body.array
            XCTAssertEqual(answers.count, 5, "\(db) \(a.text)")
            for i in 0..<4 { XCTAssertEqual(answers[i]["error"]?["code"], 119, "\(db) \(i) \(a.text)") }
            XCTAssertNotNil(answers.last?["success"], "\(db) \(a.text)")
            // Include: a bare Pointer for the caller, the object for the master key.
            for cql in [false, true] {
                for (headers, full) in [(ann, false), (H.masterHeaders, true)] {
                    if cql {
                        a = try await h.call(.GET, "/1.1/cloudQuery", query: [("cql", "select include ref, * from Open")], headers: headers)
                    } else {
                        a = try await h.call(.GET, "/1.1/classes/Open/\(open)", query: [("include", "ref")], headers: headers)
                    }
                    let ref = cql ? a.body["results"]?.array.first?["ref"] : a.body["ref"]
                    XCTAssertEqual(ref?["objectId"]?.string, secret, "\(db) \(a.text)")
                    XCTAssertEqual(ref?["code"] != nil, full, "\(db) cql \(cql) \(a.text)")
                }
            }
            // The Open object was never changed nor deleted.
            a = try await h.call(.GET, "/1.1/classes/Open/\(open)", headers: H.masterHeaders)
            XCTAssert(a.body["k"] == "s3" && a.body["n"] == nil, "\(db) \(a.text)")
            // The master key reads and writes the class as before.
            a = try await h.call(.GET, "/1.1/classes/Secret", headers: H.masterHeaders)
            XCTAssertEqual(a.body["results"]?.array.count, 1, "\(db) \(a.text)")

            // `_User`'s find and get, closed: /1.1/users refuses; me still answers.
            try await Self.setPermissions(h, "_User", ["permissions": ["find": [:], "get": ["users": [.string(c.ann.id)]]]])
            a = try await h.call(.GET, "/1.1/users", headers: ann)
            XCTAssert(Self.isRefused(a), "\(db) \(a.text)")
            a = try await h.call(.GET, "/1.1/users/\(c.bob.id)", headers: H.sessionHeaders(c.cat.token))
            XCTAssert(Self.isRefused(a), "\(db) \(a.text)")
            a = try await h.call(.GET, "/1.1/users/\(c.bob.id)", headers: ann)
            XCTAssertEqual(a.body["username"], "bob", "\(db) \(a.text)")
            a = try await h.call(.GET, "/1.1/users/me", headers: H.sessionHeaders(c.cat.token))
            XCTAssertEqual(a.body["username"], "cat", "\(db) \(a.text)")
        }
    }

    /// `add_fields`: a create or update that brings a key no object of the
    /// class holds is refused (class API, batch, cloudQuery insert and
    /// update); known keys are written as before; the master key adds keys.
    func testAddFields() async throws {
        try await onEachDatabase { h, db in
            let c = try await Self.callers(h)
            let ann = H.sessionHeaders(c.ann.token)
            var a = try await h.call(.POST, "/1.1/classes/Fixed", body: ["a": 1, "ACL": ["*": ["read": true, "write": true]]], headers: H.masterHeaders)
            let id = a.body["objectId"]?.string ?? ""
            try await Self.setPermissions(h, "Fixed", ["permissions": ["add_fields": ["roles": ["staff"]]]])
            a = try await h.call(.POST, "/1.1/classes/Fixed", body: ["a": 2], headers: ann)
            XCTAssertEqual(a.status, 201, "\(db) \(a.text)")
            a = try await h.call(.PUT, "/1.1/classes/Fixed/\(id)", body: ["a": ["__op": "Increment", "amount": 1]], headers: ann)
            XCTAssertEqual(a.status, 200, "\(db) \(a.text)")
            for (method, path, query, body) in [
                (HTTPMethodName.POST, "/1.1/classes/Fixed", [(String, String)](), ["a": 3, "b": 1] as Value),
                (.PUT, "/1.1/classes/Fixed/\(id)", [], ["b": 1]),
                (.GET, "/1.1/cloudQuery", [("cql", "insert into Fixed(a, b) values (1, 2)")], .null),
                (.GET, "/1.1/cloudQuery", [("cql", "update Fixed set b = 2 where objectId = '\(id)'")], .null),
                (.POST, "/1.1/batch", [], ["requests": [["method": "PUT", "path": .string("/1.1/classes/Fixed/\(id)"), "body": ["b": 1]]]]),
            ] {
                a = try await h.call(method.nio, path, query: query, body: body, headers: ann)
                XCTAssert(Self.isRefused(a) || a.body.array.first?["error"]?["code"] == 119, "\(db) \(path) \(query): \(a.status) \(a.text)")
            }
            // Bob (staff) may add a key; then it is known, and Ann may write it.
            a = try await h.call(.PUT, "/1.1/classes/Fixed/\(id)", body: ["b": 1], headers: H.sessionHeaders(c.bob.token))
            XCTAssertEqual(a.status, 200, "\(db) \(a.text)")
            a = try await h.call(.POST, "/1.1/classes/Fixed", body: ["a": 3, "b": 1], headers: ann)
            XCTAssertEqual(a.status, 201, "\(db) \(a.text)")
            a = try await h.call(.GET, "/1.1/cloudQuery", query: [("cql", "insert into Fixed(a, c) values (1, 2)")], headers: H.masterHeaders)
            XCTAssertEqual(a.status, 200, "\(db) \(a.text)")
        }
    }

    /// The settings are data of the database: a second server over the same
    /// file (another process, or this one restarted) reads them; their table
    /// is no class any route reaches.
    func testSettingsAreStoredWithTheDatabase() async throws {
        let directory = NSTemporaryDirectory() + "cql-clp-store-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let first = try ServerStorage(.sqlite(path: directory + "/app.db")), second = try ServerStorage(.sqlite(path: directory + "/app.db"))
        let a = API(storage: first), b = API(storage: second)
        let anonymous = Identity(isMaster: false), master = Identity(isMaster: true)
        func find(_ api: API) async -> Int {
            do {
                return try await api.handle(APIRequest(method: "GET", segments: ["classes", "Memo"], identity: anonymous)).status
            } catch {
                return error.code
            }
        }
        var status = await find(b)
        XCTAssertEqual(status, 200)
        _ = try await a.handle(APIRequest(method: "PUT", segments: ["schemas", "Memo"], body: ["permissions": ["find": [:]]], identity: master))
        status = await find(a)
        XCTAssertEqual(status, 119)
        // The second server's copy is read again once it is stale.
        b.classPermissions.invalidate()
        status = await find(b)
        XCTAssertEqual(status, 119)
        let fresh = API(storage: second)
        status = await find(fresh)
        XCTAssertEqual(status, 119)
        for segments in [["classes", ClassSettingsTable.name], ["classes", ClassSettingsTable.name, "Memo"]] {
            do {
                _ = try await fresh.handle(APIRequest(method: "GET", segments: segments, identity: master))
                XCTFail("\(segments) answered")
            } catch {
                XCTAssertEqual(error.code, 103)
            }
        }
        await first.shutdown()
        await second.shutdown()
    }
}

/// The methods the tests name, as HTTP's.
enum HTTPMethodName: String {
    case GET, POST, PUT, DELETE
    var nio: HTTPMethod {
        switch self {
        case .GET: return .GET
        case .POST: return .POST
        case .PUT: return .PUT
        case .DELETE: return .DELETE
        }
    }
}
