import CQLKit
import CQLServer
import XCTest

/// `/1.1/classes`: create, get, find with every parameter, update with ops
/// and conditions, delete — on SQLite and PostgreSQL.
final class ServerClassesTests: XCTestCase {
    func testCreateGetUpdateDelete() async throws {
        try await onEachDatabase { h, db in
            // Create: 201, Location, objectId and createdAt.
            let created = try await h.call(.POST, "/1.1/classes/Todo", body: [
                "title": "买牛奶", "priority": 2, "done": false, "due": ["__type": "Date", "iso": "2026-12-01T08:00:00.000Z"],
                "tags": ["home"], "ACL": ["*": ["read": true, "write": true]],
            ])
            XCTAssertEqual(created.status, 201, "\(db)")
            let id = try XCTUnwrap(created.body["objectId"]?.string)
            XCTAssertEqual(created.headers.first(name: "location"), "/1.1/classes/Todo/\(id)")
            let createdAt = try XCTUnwrap(created.body["createdAt"]?.string)
            XCTAssertNotNil(ISODate.parse(createdAt))
            XCTAssertEqual(created.body.objectCount, 2)

            // Get: the object, typed values in their REST form, ACL only with returnACL.
            let got = try await h.call(.GET, "/1.1/classes/Todo/\(id)")
            XCTAssertEqual(got.status, 200)
            XCTAssertEqual(got.body["title"], "买牛奶")
            XCTAssertEqual(got.body["due"], ["__type": "Date", "iso": "2026-12-01T08:00:00.000Z"])
            XCTAssertEqual(got.body["createdAt"]?.string, createdAt)
            XCTAssertNil(got.body["ACL"])
            do {
                let value = try await h.call(.GET, "/1.1/classes/Todo/\(id)", query: [("returnACL", "true")]).body["ACL"]
                XCTAssertNotNil(value)
            }
            let selected = try await h.call(.GET, "/1.1/classes/Todo/\(id)", query: [("keys", "title")]).body
            XCTAssertEqual(selected["title"], "买牛奶")
            XCTAssertEqual(selected["objectId"]?.string, id)
            XCTAssertNil(selected["priority"])
            // An unknown id, an unknown class: {}.
            do {
                let value = try await h.call(.GET, "/1.1/classes/Todo/nope").body
                XCTAssertEqual(value, .object([:]))
            }
            do {
                let value = try await h.call(.GET, "/1.1/classes/Nothing/nope").body
                XCTAssertEqual(value, .object([:]))
            }

            // Update with ops; fetchWhenSave returns the changed keys' new values.
            let updated = try await h.call(.PUT, "/1.1/classes/Todo/\(id)", query: [("fetchWhenSave", "true")], body: [
                "priority": ["__op": "Increment", "amount": 101], "tags": ["__op": "AddUnique", "objects": ["home", "shop"]], "done": true,
            ])
            XCTAssertEqual(updated.status, 200)
            XCTAssertEqual(updated.body["priority"], 103)
            XCTAssertEqual(updated.body["tags"], ["home", "shop"])
            XCTAssertEqual(updated.body["done"], true)
            XCTAssertNotNil(updated.body["updatedAt"]?.string)
            // Without fetchWhenSave: objectId and updatedAt.
            let plain = try await h.call(.PUT, "/1.1/classes/Todo/\(id)", body: ["note": "x"])
            XCTAssertEqual(Set(plain.body.objectKeys), ["objectId", "updatedAt"])
            // A condition that does not hold: 305, nothing changed.
            let refused = try await h.call(.PUT, "/1.1/classes/Todo/\(id)", query: [("where", #"{"priority":{"$lt":100}}"#)],
                                          body: ["priority": ["__op": "Decrement", "amount": 1]])
            XCTAssertEqual(refused.status, 400)
            XCTAssertEqual(refused.body["code"], 305)
            do {
                let value = try await h.call(.GET, "/1.1/classes/Todo/\(id)").body["priority"]
                XCTAssertEqual(value, 103)
            }
            // One that holds.
            do {
                let value = try await h.call(.PUT, "/1.1/classes/Todo/\(id)", query: [("where", #"{"priority":{"$gte":100}}"#)],
                                             body: ["priority": ["__op": "Decrement", "amount": 3]]).status
                XCTAssertEqual(value, 200)
            }
            do {
                let value = try await h.call(.GET, "/1.1/classes/Todo/\(id)").body["priority"]
                XCTAssertEqual(value, 100)
            }
            // Delete a key.
            _ = try await h.call(.PUT, "/1.1/classes/Todo/\(id)", body: ["note": ["__op": "Delete"]])
            do {
                let value = try await h.call(.GET, "/1.1/classes/Todo/\(id)").body["note"]
                XCTAssertNil(value)
            }
            // An unknown object: 404, code 101.
            let missing = try await h.call(.PUT, "/1.1/classes/Todo/nope", body: ["a": 1])
            XCTAssertEqual(missing.status, 404)
            XCTAssertEqual(missing.body["code"], 101)

            // Delete: a condition that does not hold (305), then without; the body may be {} or null.
            do {
                let value = try await h.call(.DELETE, "/1.1/classes/Todo/\(id)", query: [("where", #"{"done":false}"#)]).body["code"]
                XCTAssertEqual(value, 305)
            }
            do {
                let value = try await h.call(.DELETE, "/1.1/classes/Todo/\(id)", rawBody: "null").body
                XCTAssertEqual(value, .object([:]))
            }
            do {
                let value = try await h.call(.GET, "/1.1/classes/Todo/\(id)").body
                XCTAssertEqual(value, .object([:]))
            }
            do {
                let value = try await h.call(.DELETE, "/1.1/classes/Todo/\(id)").body["code"]
                XCTAssertEqual(value, 101)
            }
        }
    }

    func testCreateWithOperationsAndFetchWhenSave() async throws {
        try await onEachDatabase { h, db in
            let a = try await h.call(.POST, "/1.1/classes/Counter", query: [("fetchWhenSave", "true")], body: [
                "time": ["__op": "Increment", "amount": 1], "list": ["__op": "AddUnique", "objects": [1, 1, 2]],
                "gone": ["__op": "Delete"], "url": "/p/",
            ])
            XCTAssertEqual(a.status, 201, "\(db)")
            XCTAssertEqual(a.body["time"], 1)
            XCTAssertEqual(a.body["list"], [1, 2])
            XCTAssertNil(a.body["gone"])
            XCTAssertEqual(a.body["url"], "/p/")
            XCTAssertNotNil(a.body["createdAt"])
            // Bad bodies: not JSON (107), not an object (107), an unknown op (111).
            do {
                let value = try await h.call(.POST, "/1.1/classes/Counter", rawBody: "{\"a\":").body["code"]
                XCTAssertEqual(value, 107)
            }
            do {
                let value = try await h.call(.POST, "/1.1/classes/Counter", rawBody: "[1]").body["code"]
                XCTAssertEqual(value, 107)
            }
            do {
                let value = try await h.call(.POST, "/1.1/classes/Counter", body: ["a": ["__op": "Frobnicate"]]).body["code"]
                XCTAssertEqual(value, 111)
            }
            // Class names: _Join tables and odd names are not classes (103).
            // Nor may a sub-query read one.
            let sneaky = try await h.call(.GET, "/1.1/classes/Counter", query: [("where", #"{"x":{"$inQuery":{"className":"_Join:tags:Counter","where":{}}}}"#)])
            XCTAssertEqual(sneaky.body["code"], 103, sneaky.text)
            let sneakyCQL = try await h.call(.GET, "/1.1/cloudQuery", query: [("cql", "select * from Counter where x in (select owningId from `_Join:tags:Counter`)")])
            XCTAssertEqual(sneakyCQL.status, 400, sneakyCQL.text)
            for name in ["_Join:x:Counter", "a-b", "1abc"] {
                do {
                    let value = try await h.call(.GET, "/1.1/classes/\(ServerHarness.encode(name))").body["code"]
                    XCTAssertEqual(value, 103, name)
                }
            }
        }
    }

    func testFindParameters() async throws {
        try await onEachDatabase { h, db in
            var ids: [String] = []
            for i in 0..<12 {
                let body: Value = ["n": .int(Int64(i)), "name": .string("item\(i)"), "even": .bool(i % 2 == 0),
                                   "owner": i < 3 ? ["__type": "Pointer", "className": "Person", "objectId": "p1"] : .null]
                let created = try await h.call(.POST, "/1.1/classes/Thing", body: body)
                ids.append(try XCTUnwrap(created.body["objectId"]?.string))
            }
            _ = try await h.call(.POST, "/1.1/batch", body: ["requests": [["method": "POST", "path": "/1.1/classes/Person", "body": ["name": "Ann"]]]])
            let person = try await h.call(.GET, "/1.1/classes/Person").body["results"]?.array.first?["objectId"]?.string
            let found = try await h.call(.GET, "/1.1/classes/Thing", query: [
                ("where", #"{"even":true,"n":{"$gte":2}}"#), ("order", "-n"), ("limit", "3"), ("skip", "1"), ("keys", "n,name"), ("count", "1"),
            ])
            XCTAssertEqual(found.status, 200, "\(db)")
            XCTAssertEqual(found.body["results"]?.array.map { $0["n"] }, [8, 6, 4])
            XCTAssertEqual(found.body["count"], 5)
            XCTAssertEqual(Set(found.body["results"]?.array.first?.objectKeys ?? []), ["objectId", "n", "name", "createdAt", "updatedAt"])
            // limit=0&count=1: the count only.
            do {
                let value = try await h.call(.GET, "/1.1/classes/Thing", query: [("where", "{}"), ("limit", "0"), ("count", "1")]).body
                XCTAssertEqual(value, ["results": [], "count": 12])
            }
            // Default limit 100, keys excluded with '-'.
            let all = try await h.call(.GET, "/1.1/classes/Thing", query: [("keys", "-name")]).body["results"]?.array ?? []
            XCTAssertEqual(all.count, 12)
            XCTAssertNil(all.first?["name"])
            // A bad where: 107 for its JSON (with the position), 102 for its meaning.
            let badJSON = try await h.call(.GET, "/1.1/classes/Thing", query: [("where", #"{"n":}"#)])
            XCTAssertEqual(badJSON.status, 400)
            XCTAssertEqual(badJSON.body["code"], 107)
            XCTAssertTrue(badJSON.body["error"]?.string?.contains("1:6") == true, badJSON.text)
            let badOperator = try await h.call(.GET, "/1.1/classes/Thing", query: [("where", #"{"n":{"$in":5}}"#)])
            XCTAssertEqual(badOperator.body["code"], 102, badOperator.text)
            XCTAssertTrue(badOperator.body["error"]?.string?.contains("where.n.$in") == true, badOperator.text)
            do {
                let value = try await h.call(.GET, "/1.1/classes/Thing", query: [("limit", "x")]).body["code"]
                XCTAssertEqual(value, 102)
            }
            // include: the pointer replaced by the object, keeping __type and className.
            if let person {
                for i in 0..<3 { _ = try await h.call(.PUT, "/1.1/classes/Thing/\(ids[i])", body: ["owner": ["__type": "Pointer", "className": "Person", "objectId": .string(person)]]) }
                let inc = try await h.call(.GET, "/1.1/classes/Thing", query: [("where", #"{"n":0}"#), ("include", "owner")])
                let owner = inc.body["results"]?.array.first?["owner"]
                XCTAssertEqual(owner?["name"], "Ann", inc.text)
                XCTAssertEqual(owner?["__type"], "Pointer")
                XCTAssertEqual(owner?["className"], "Person")
                // $inQuery through the pointer.
                let sub = try await h.call(.GET, "/1.1/classes/Thing", query: [("where", #"{"owner":{"$inQuery":{"where":{"name":"Ann"},"className":"Person"}}}"#), ("count", "1"), ("limit", "0")])
                XCTAssertEqual(sub.body["count"], 3, sub.text)
            }
            // A JS SDK startsWith: $regex with \Q...\E.
            let prefix = try await h.call(.GET, "/1.1/classes/Thing", query: [("where", #"{"name":{"$regex":"^\\Qitem1\\E"}}"#), ("order", "n")])
            XCTAssertEqual(prefix.body["results"]?.array.map { $0["n"] }, [1, 10, 11], prefix.text)
        }
    }

    func testBodyLimitAndUnknownRoutes() async throws {
        let h = try await ServerHarness.start(.sqlite, maximumBody: 1000)
        defer { Task { await h.stop() } }
        let big = try await h.call(.POST, "/1.1/classes/T", body: ["s": .string(String(repeating: "x", count: 2000))])
        XCTAssertEqual(big.status, 413)
        XCTAssertEqual(big.body["code"], 116)
        do {
            let value = try await h.call(.GET, "/1.1/nothing").status
            XCTAssertEqual(value, 404)
        }
        do {
            let value = try await h.call(.GET, "/2/classes/T").status
            XCTAssertEqual(value, 404)
        }
        let date = try await h.call(.GET, "/1.1/date")
        XCTAssertEqual(date.body["__type"], "Date")
        XCTAssertNotNil(ISODate.parse(date.body["iso"]?.string ?? ""))
    }
}

extension Value {
    var objectKeys: [String] {
        if case .object(let o) = self { return Array(o.keys) }
        return []
    }
    var objectCount: Int { objectKeys.count }
}
