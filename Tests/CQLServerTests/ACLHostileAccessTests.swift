import CQLKit
import CQLSQL
@testable import CQLServer
import XCTest

/// The hostile-access suite (issue 22, Server.md, "ACLs and roles"): a second user,
/// an anonymous caller and a user of an unrelated role try every read and
/// write path on another user's private, public-read, role-shared and
/// inherited-role objects, and learn and change nothing — while the owner
/// and the role holders (the controls) see and change what their grants
/// allow, so that a server hiding everything would fail too. Through
/// ``API/handle(_:)`` (what HTTP and batch sub-requests run), on SQLite and
/// PostgreSQL.
final class ACLHostileAccessTests: XCTestCase {
    /// The callers: who they are, and which notes their grants let them read and write.
    struct Caller {
        var name: String
        var identity: Identity
        var reads: Set<String>
        var writes: Set<String>
    }

    /// The notes, by kind.
    static let notes: [String: Value] = [
        "private": ["owner": ["read": true, "write": true]],
        "publicRead": ["*": ["read": true], "owner": ["read": true, "write": true]],
        "roleShared": ["role:staff": ["read": true, "write": true], "owner": ["read": true, "write": true]],
        // Shared with `editors`, which `staff` members hold through `editors.roles` listing `staff`.
        "inheritedRole": ["role:editors": ["read": true], "owner": ["read": true, "write": true]],
    ]

    static let callers: [Caller] = [
        Caller(name: "second user", identity: Identity(isMaster: false, userId: "intruder"), reads: ["publicRead"], writes: []),
        Caller(name: "anonymous", identity: Identity(isMaster: false), reads: ["publicRead"], writes: []),
        Caller(name: "unrelated role", identity: Identity(isMaster: false, userId: "outsider"), reads: ["publicRead"], writes: []),
        // Controls.
        Caller(name: "owner", identity: Identity(isMaster: false, userId: "owner"),
               reads: ["private", "publicRead", "roleShared", "inheritedRole"], writes: ["private", "publicRead", "roleShared", "inheritedRole"]),
        Caller(name: "staff member", identity: Identity(isMaster: false, userId: "member"),
               reads: ["publicRead", "roleShared", "inheritedRole"], writes: ["roleShared"]),
    ]
    static let master = Identity(isMaster: true)

    struct Answer {
        var status: Int
        var body: Value
    }

    func call(_ api: API, _ identity: Identity, _ method: String, _ path: String, _ parameters: [String: Value] = [:],
              body: Value? = nil) async -> Answer {
        let segments = path.split(separator: "/").map(String.init)
        do {
            let r = try await api.handle(APIRequest(method: method, segments: segments, parameters: parameters, body: body, identity: identity))
            return Answer(status: r.status, body: r.body)
        } catch {
            return Answer(status: error.status, body: error.body)
        }
    }

    /// The data: the users' roles, one note of each kind (ids = kinds), a
    /// public comment on each (by Pointer and by id), a public folder
    /// relating every note.
    func seed(_ api: API) async throws -> [String: String] {
        func created(_ a: Answer) throws -> String {
            XCTAssertEqual(a.status, 201, JSONWriter.string(a.body))
            return try XCTUnwrap(a.body["objectId"]?.string)
        }
        func pointer(_ c: String, _ id: String) -> Value { .pointer(Pointer(className: c, objectId: id)) }
        func add(_ items: [Value]) -> Value { ["__op": "AddRelation", "objects": .array(items)] }
        let staff = try created(await call(api, Self.master, "POST", "roles", body: [
            "name": "staff", "ACL": ["*": ["read": true]], "users": add([pointer("_User", "member")])]))
        _ = try created(await call(api, Self.master, "POST", "roles", body: [
            "name": "editors", "ACL": ["*": ["read": true]], "roles": add([pointer("_Role", staff)])]))
        _ = try created(await call(api, Self.master, "POST", "roles", body: [
            "name": "outsiders", "ACL": ["*": ["read": true]], "users": add([pointer("_User", "outsider")])]))
        var ids: [String: String] = [:]
        for (kind, acl) in Self.notes.sorted(by: { $0.key < $1.key }) {
            ids[kind] = try created(await call(api, Self.master, "POST", "classes/Note", body: ["title": .string(kind), "ACL": acl]))
            _ = try created(await call(api, Self.master, "POST", "classes/Comment", body: [
                "on": pointer("Note", ids[kind]!), "noteId": .string(ids[kind]!), "kind": .string(kind)]))
        }
        _ = try created(await call(api, Self.master, "POST", "classes/Folder", body: [
            "name": "all", "notes": add(ids.values.sorted().map { pointer("Note", $0) })]))
        return ids
    }

    func testHostileCallersLearnAndChangeNothing() async throws {
        var attempts = 0
        for database in ServerHarness.Database.allCases {
            let storage = try await Self.storage(database)
            let api = API(storage: storage)
            let ids = try await seed(api)
            let folders = await call(api, Self.master, "GET", "classes/Folder")
            let folder = try XCTUnwrap(folders.body["results"]?.array.first?["objectId"]?.string)
            for caller in Self.callers {
                // Counts over the whole class: only what the caller may read.
                let count = await call(api, caller.identity, "GET", "classes/Note", ["count": "1", "limit": "0"])
                XCTAssertEqual(count.body["count"]?.int, Int64(caller.reads.count), "\(database) \(caller.name): count")
                let cqlCount = await call(api, caller.identity, "GET", "cloudQuery", ["cql": "select count(*) from Note"])
                XCTAssertEqual(cqlCount.body["count"]?.int, Int64(caller.reads.count), "\(database) \(caller.name): cql count")
                for (kind, id) in ids.sorted(by: { $0.key < $1.key }) {
                    let label = "\(database) \(caller.name) on \(kind)"
                    let readable = caller.reads.contains(kind)
                    attempts += try await readPaths(api, caller, id, folder: folder, readable: readable, label)
                }
            }
            for caller in Self.callers {
                for (kind, id) in ids.sorted(by: { $0.key < $1.key }) {
                    let label = "\(database) \(caller.name) on \(kind)"
                    let expected = caller.writes.contains(kind) ? 200 : caller.reads.contains(kind) ? 403 : 404
                    // Hostile callers first: the controls' writes come after, in ids order, on notes no one reads again.
                    guard !caller.writes.contains(kind) else { continue }
                    attempts += await writePaths(api, caller.identity, id, expected: expected, label)
                }
            }
            // Nothing changed: the master key sees every note as it was.
            for (kind, id) in ids {
                let note = await call(api, Self.master, "GET", "classes/Note/\(id)")
                XCTAssertEqual(note.body["title"]?.string, kind, "\(database): \(kind) changed: \(JSONWriter.string(note.body))")
                XCTAssertNil(note.body["hacked"], "\(database): \(kind) was written")
            }
            // The controls can write what they are granted (so the refusals above are the ACL's).
            for caller in Self.callers where !caller.writes.isEmpty {
                for kind in caller.writes.sorted() {
                    let a = await call(api, caller.identity, "PUT", "classes/Note/\(ids[kind]!)", body: ["by": .string(caller.name)])
                    XCTAssertEqual(a.status, 200, "\(database) \(caller.name) writes \(kind): \(JSONWriter.string(a.body))")
                }
            }
            let deleted = await call(api, Self.callers[3].identity, "DELETE", "classes/Note/\(ids["private"]!)")
            XCTAssertEqual(deleted.status, 200, "\(database): the owner deletes its note")
            await storage.shutdown()
        }
        print("ACL hostile-access suite: \(attempts) (path × object × caller) attempts on SQLite and PostgreSQL, none read or changed what its ACL withholds")
        XCTAssertGreaterThan(attempts, 500)
    }

    /// Every read path, on one note: the note shows exactly when readable.
    /// - Returns: the attempts made.
    func readPaths(_ api: API, _ caller: Caller, _ id: String, folder: String, readable: Bool, _ label: String) async throws -> Int {
        let who = caller.identity
        var n = 0
        func check(_ shown: Bool, _ path: String, _ detail: Value) {
            n += 1
            XCTAssertEqual(shown, readable, "\(label): \(path) \(readable ? "hides" : "shows") it: \(JSONWriter.string(detail))")
        }
        let byId = JSONWriter.string(["objectId": .string(id)])
        let find = await call(api, who, "GET", "classes/Note", ["where": .string(byId)])
        check(find.body["results"]?.array.count == 1, "find", find.body)
        let counted = await call(api, who, "GET", "classes/Note", ["where": .string(byId), "count": "1", "limit": "0"])
        check(counted.body["count"]?.int == 1, "find count", counted.body)
        let get = await call(api, who, "GET", "classes/Note/\(id)")
        check(get.body["title"] != nil, "get", get.body)
        XCTAssertTrue(readable || get.body == .object([:]), "\(label): get of an unreadable note is not {}")
        let cql = await call(api, who, "GET", "cloudQuery", ["cql": "select * from Note where objectId = ?", "pvalues": .array([.string(id)])])
        check(cql.body["results"]?.array.count == 1, "cloudQuery select", cql.body)
        let cqlCount = await call(api, who, "GET", "cloudQuery", ["cql": "select count(*) from Note where objectId = ?", "pvalues": .array([.string(id)])])
        check(cqlCount.body["count"]?.int == 1, "cloudQuery count", cqlCount.body)
        let inner: Value = ["className": "Note", "where": ["objectId": .string(id)]]
        let onNote: Value = ["className": "Note", "where": ["objectId": .string(id)]]
        for (op, key, negated) in [("$inQuery", "on", false), ("$notInQuery", "on", true)] {
            let w = JSONWriter.string(.object(["noteId": .string(id), key: .object([op: inner])]))
            let a = await call(api, who, "GET", "classes/Comment", ["where": .string(w)])
            check((a.body["results"]?.array.count == 1) != negated, op, a.body)
        }
        for (op, negated) in [("$select", false), ("$dontSelect", true)] {
            let w = JSONWriter.string(.object([
                "noteId": .object([op: ["query": onNote, "key": "objectId"]]), "on": .pointer(Pointer(className: "Note", objectId: id))]))
            let a = await call(api, who, "GET", "classes/Comment", ["where": .string(w)])
            check((a.body["results"]?.array.count == 1) != negated, op, a.body)
        }
        let cqlSub = await call(api, who, "GET", "cloudQuery", [
            "cql": "select * from Comment where noteId = ? and noteId in (select objectId from Note where objectId = ?)",
            "pvalues": .array([.string(id), .string(id)])])
        check(cqlSub.body["results"]?.array.count == 1, "cloudQuery subquery", cqlSub.body)
        // include: the comment is public; its note comes whole only when readable.
        let included = await call(api, who, "GET", "classes/Comment", ["where": .string(JSONWriter.string(["noteId": .string(id)])), "include": "on"])
        let on = included.body["results"]?.array.first?["on"]
        check(on?["title"] != nil, "include", included.body)
        // (A bare Pointer is `.pointer`, written as {"__type":"Pointer",...}.)
        var pointee: String?
        if case .pointer(let p)? = on { pointee = p.objectId } else { pointee = on?["objectId"]?.string }
        XCTAssertEqual(pointee, id, "\(label): include lost the Pointer")
        let relatedTo = JSONWriter.string(["objectId": .string(id), "$relatedTo": ["object": .pointer(Pointer(className: "Folder", objectId: folder)), "key": "notes"]])
        let related = await call(api, who, "GET", "classes/Note", ["where": .string(relatedTo)])
        check(related.body["results"]?.array.count == 1, "$relatedTo", related.body)
        let batch = await call(api, who, "POST", "batch", body: ["requests": [["method": "GET", "path": .string("/1.1/classes/Note/\(id)")]]])
        check(batch.body.array.first?["success"]?["title"] != nil, "batch GET", batch.body)
        return n
    }

    /// Every write path, on one note the caller may not write: each is
    /// refused with `expected` (404/101 when it cannot read the note, 403
    /// when it can).
    func writePaths(_ api: API, _ who: Identity, _ id: String, expected: Int, _ label: String) async -> Int {
        var n = 0
        func check(_ a: Answer, _ path: String) {
            n += 1
            XCTAssertEqual(a.status, expected, "\(label): \(path): \(JSONWriter.string(a.body))")
            XCTAssertEqual(a.body["code"]?.int, expected == 404 ? 101 : 403, "\(label): \(path): \(JSONWriter.string(a.body))")
        }
        check(await call(api, who, "PUT", "classes/Note/\(id)", body: ["hacked": true]), "PUT")
        check(await call(api, who, "PUT", "classes/Note/\(id)", body: ["title": ["__op": "Delete"]]), "PUT op")
        check(await call(api, who, "PUT", "classes/Note/\(id)", body: [:]), "PUT nothing")
        check(await call(api, who, "DELETE", "classes/Note/\(id)"), "DELETE")
        check(await call(api, who, "GET", "cloudQuery", ["cql": "update Note set hacked = true where objectId = ?", "pvalues": .array([.string(id)])]),
              "cloudQuery update")
        check(await call(api, who, "GET", "cloudQuery", ["cql": "delete from Note where objectId = ?", "pvalues": .array([.string(id)])]),
              "cloudQuery delete")
        let batch = await call(api, who, "POST", "batch", body: ["requests": [
            ["method": "PUT", "path": .string("/1.1/classes/Note/\(id)"), "body": ["hacked": true]],
            ["method": "DELETE", "path": .string("/1.1/classes/Note/\(id)")],
        ]])
        for (i, item) in batch.body.array.enumerated() {
            n += 1
            XCTAssertEqual(item["error"]?["code"]?.int, expected == 404 ? 101 : 403, "\(label): batch \(i): \(JSONWriter.string(item))")
        }
        return n
    }

    func testRolesAreInheritedAndCyclesEnd() async throws {
        for database in ServerHarness.Database.allCases {
            let storage = try await Self.storage(database)
            let api = API(storage: storage)
            func role(_ name: String, users: [String] = [], roles: [String] = []) async throws -> String {
                var body: [String: Value] = ["name": .string(name), "ACL": ["*": ["read": true]]]
                if !users.isEmpty { body["users"] = ["__op": "AddRelation", "objects": .array(users.map { .pointer(Pointer(className: "_User", objectId: $0)) })] }
                if !roles.isEmpty { body["roles"] = ["__op": "AddRelation", "objects": .array(roles.map { .pointer(Pointer(className: "_Role", objectId: $0)) })] }
                let a = await call(api, Self.master, "POST", "classes/_Role", body: .object(body))
                return try XCTUnwrap(a.body["objectId"]?.string, "\(database): \(JSONWriter.string(a.body))")
            }
            // a ⊂ b.roles ⊂ c.roles, and c ⊂ a.roles: a cycle.
            let a = try await role("a", users: ["u1"])
            let b = try await role("b", roles: [a])
            let c = try await role("c", roles: [b])
            _ = await call(api, Self.master, "PUT", "roles/\(a)", body: ["roles": ["__op": "AddRelation", "objects": [.pointer(Pointer(className: "_Role", objectId: c))]]])
            _ = try await role("unrelated", users: ["u2"])
            let g = try await storage.read { db throws(QueryError) in try CallerGrantees.grantees(userId: "u1", on: db) }
            XCTAssertEqual(g, ["*", "role:a", "role:b", "role:c", "u1"], "\(database)")
            let g2 = try await storage.read { db throws(QueryError) in try CallerGrantees.grantees(userId: "u2", on: db) }
            XCTAssertEqual(g2, ["*", "role:unrelated", "u2"], "\(database)")
            let g3 = try await storage.read { db throws(QueryError) in try CallerGrantees.grantees(userId: "nobody", on: db) }
            XCTAssertEqual(g3, ["*", "nobody"], "\(database)")
            // A request's reads as the server makes them: on PostgreSQL all on
            // the event-loop reader (the same walk), none on the blocking pool.
            let token = try await storage.newSession(for: "u1", now: .now)
            let blocking = storage.blockingReads.value
            let user = try await storage.sessionUser(token)
            XCTAssertEqual(user, "u1", "\(database)")
            for (id, want) in [("u1", g), ("u2", g2), ("nobody", g3)] {
                let got = try await storage.grantees(userId: id)
                XCTAssertEqual(got, want, "\(database): \(id)")
            }
            let roles = try await storage.find(Query(className: "_Role")).objects
            XCTAssertEqual(roles.count, 4, "\(database)")
            if database == .postgres { XCTAssertEqual(storage.blockingReads.value, blocking, "a PostgreSQL request's reads used the blocking pool") }
            // The role rules: a name, an ACL, unique, never renamed.
            let noACL = await call(api, Self.master, "POST", "roles", body: ["name": "x"])
            XCTAssertEqual(noACL.body["code"], 123, "\(database)")
            let badName = await call(api, Self.master, "POST", "roles", body: ["name": "a/b", "ACL": [:]])
            XCTAssertEqual(badName.body["code"], 139, "\(database)")
            let taken = await call(api, Self.master, "POST", "roles", body: ["name": "a", "ACL": [:]])
            XCTAssertEqual(taken.body["code"], 137, "\(database)")
            let renamed = await call(api, Self.master, "PUT", "roles/\(a)", body: ["name": "z"])
            XCTAssertEqual(renamed.body["code"], 139, "\(database)")
            // A role's own ACL says who changes it: u1 (in a) cannot write role b.
            let changed = await call(api, Identity(isMaster: false, userId: "u1"), "PUT", "roles/\(b)", body: ["note": "x"])
            XCTAssertEqual(changed.status, 403, "\(database): \(JSONWriter.string(changed.body))")
            await storage.shutdown()
        }
    }

    /// A fresh storage on `database`.
    static func storage(_ database: ServerHarness.Database) async throws -> ServerStorage {
        switch database {
        case .sqlite:
            let directory = NSTemporaryDirectory() + "cql-acl-test-\(UUID().uuidString)"
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            return try ServerStorage(.sqlite(path: directory + "/app.db"), readers: 2)
        case .postgres:
            let url = try ServerHarness.postgresURL()
            try PostgreSQLDatabase(url: url).reset()
            return try ServerStorage(.postgres(url: url), readers: 2)
        }
    }
}
