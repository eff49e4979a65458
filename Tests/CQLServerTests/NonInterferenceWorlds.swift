import CQLEval
import CQLKit
@testable import CQLSQL
@testable import CQLServer
import Foundation
import XCTest

/// The two worlds of the non-interference suite (``NonInterferenceTests``):
/// the same users, roles and public objects, created in the same order with
/// the same fixed objectIds, that differ **only** in what the attacker may
/// not read — the victim's private objects are present with some values in
/// world A, and absent or present with other values in world B; the users'
/// password hashes and salts (never returned) differ in every world; the
/// victim's session token is random in each.
///
/// Every class and every key exists in both worlds (an anchor object no one
/// reads holds each key), so that no answer can differ by a table or a
/// column made by a private object alone.
enum NIWorld {
    enum Side: String, CaseIterable { case a = "A", b = "B" }

    /// An attacker: who it is and the objects it owns (its `Probe`, 40 `Drop`s
    /// for conditional deletes).
    struct Attacker: Sendable {
        var name: String
        var identity: Identity
        var probe: String
        /// The ACL of the objects it owns (nil: none, public: the anonymous caller owns nothing else).
        var ownACL: Value?
        var userId: String? { identity.userId }
    }

    static let rw: Value = ["read": true, "write": true]
    static let attackers: [Attacker] = [
        Attacker(name: "anonymous", identity: Identity(isMaster: false), probe: "probeAnon", ownACL: nil),
        Attacker(name: "unrelated user", identity: Identity(isMaster: false, userId: "userMallory"), probe: "probeMallory",
                 ownACL: ["userMallory": rw]),
        Attacker(name: "unrelated role", identity: Identity(isMaster: false, userId: "userOscar"), probe: "probeOscar",
                 ownACL: ["role:outsiders": rw]),
    ]
    static let master = Identity(isMaster: true)
    static let drops = 40
    /// Every write and every answer's timestamp (``API/clock``).
    static let now = DateValue(millisecondsSince1970: 1_780_000_000_000)

    static func pointer(_ c: String, _ id: String) -> Value { .pointer(Pointer(className: c, objectId: id)) }
    static func file(_ id: String) -> Value { .file(FileReference(id: id)) }
    static let victimOnly: Value = ["userVictim": rw]

    /// One seeded object: its class, fixed objectId and keys in each world
    /// (nil: absent from that world).
    struct Seed {
        var className: String
        var id: String
        var a: [String: Value]?
        var b: [String: Value]?
        init(_ c: String, _ id: String, _ both: [String: Value]) { className = c; self.id = id; a = both; b = both }
        init(_ c: String, _ id: String, a: [String: Value]?, b: [String: Value]?) { className = c; self.id = id; self.a = a; self.b = b }
    }

    /// The probe's keys: values that equal the victim's private ones in world
    /// A, so that a condition comparing them with a sub-query's answers holds
    /// in A only when the sub-query reads what it must not.
    static func probeKeys(acl: Value?) -> [String: Value] {
        var o: [String: Value] = ["k": "userVictim", "p": pointer("_User", "userVictim"), "t": "salary-2026", "n": 120000, "id": "noteSalary",
                                  "tag": ["hr"], "noteP": pointer("Note", "noteSalary"), "label": "probe"]
        if let acl { o["ACL"] = acl }
        return o
    }

    /// The objects, in creation order (private ones among the public ones).
    static func seeds(for attacker: Attacker) -> [Seed] {
        func user(_ id: String, _ name: String, acl: Value? = nil, extra: [String: Value] = [:], secretA: String, secretB: String) -> Seed {
            var o: [String: Value] = ["username": .string(name), "email": .string("\(name)@example.com"), "nick": .string(name.prefix(3).description),
                                      "ACL": acl ?? .object(["*": ["read": true], id: rw])]
            o.merge(extra) { $1 }
            var a = o, b = o
            a["password"] = .string("pbkdf2-sha256$1000$\(secretA)$0f0f"); a["salt"] = .string(secretA)
            b["password"] = .string("pbkdf2-sha256$1000$\(secretB)$e1e1"); b["salt"] = .string(secretB)
            return Seed("_User", id, a: a, b: b)
        }
        var s: [Seed] = [
            user("userVictim", "victim", secretA: "a1b2", secretB: "9z8y"),
            user("userMallory", "mallory", secretA: "c3d4", secretB: "7x6w"),
            user("userGhost", "ghost", acl: ["userGhost": rw], extra: ["bio": "zzz"], secretA: "e5f6", secretB: "5v4u"),
            user("userOscar", "oscar", secretA: "a7a8", secretB: "3t2s"),
            user("userStaffer", "staffer", secretA: "b9b0", secretB: "1r0q"),
        ]
        s[2].a?["bio"] = "salary-2026"
        // A private user of world A only.
        var shadow = user("userShadow", "shadow", acl: [:], extra: ["bio": "launch-x"], secretA: "d1d2", secretB: "-")
        shadow.b = nil
        s.append(shadow)
        s += [
            Seed("_Role", "roleStaff", ["name": "staff", "ACL": ["*": ["read": true]]]),
            Seed("_Role", "roleOutsiders", ["name": "outsiders", "ACL": ["*": ["read": true]]]),
            // A private role (its members differ: relations below).
            Seed("_Role", "roleBoard", ["name": "board", "ACL": ["role:board": ["read": true]]]),
            // The anchor: every key of every class, readable by no one, the same in both worlds.
            Seed("Note", "noteAnchor", ["title": "anchor", "body": "anchor", "amount": 0, "tags": ["anchor"], "owner": pointer("_User", "userGhost"),
                                        "touched": false, "ACL": [:]]),
            Seed("Note", "notePub", ["title": "hello", "body": "public words", "amount": 3, "tags": ["news"], "owner": pointer("_User", "userVictim"),
                                     "ACL": ["*": ["read": true], "userVictim": rw]]),
            Seed("Note", "noteSalary", a: ["title": "salary-2026", "body": "pay rise", "amount": 120000, "tags": ["hr", "pay"],
                                           "owner": pointer("_User", "userVictim"), "ACL": victimOnly],
                 b: ["title": "zzz", "body": "zzz", "amount": 1, "tags": ["zz"], "owner": pointer("_User", "userGhost"), "ACL": victimOnly]),
            Seed("Note", "noteWiki", ["title": "wiki", "body": "anyone edits", "amount": 7, "tags": []]),
            Seed("Note", "noteLaunch", a: ["title": "launch-x", "body": "next week", "amount": 99, "tags": ["launch"],
                                           "owner": pointer("_User", "userVictim"), "ACL": victimOnly], b: nil),
            Seed("Note", "noteMallory", ["title": "mallory's", "amount": 1, "owner": pointer("_User", "userMallory"), "ACL": ["userMallory": rw]]),
            Seed("Note", "noteStaff", a: ["title": "launch-plan", "amount": 500, "tags": ["launch"], "ACL": ["role:staff": rw]], b: nil),
            Seed("Note", "noteOscar", ["title": "oscar's", "amount": 2, "ACL": ["role:outsiders": rw]]),
            Seed("Note", "noteBoard", a: ["title": "merger", "amount": 5000, "ACL": ["role:board": ["read": true]]],
                 b: ["title": "lunch", "amount": 5, "ACL": ["role:board": ["read": true]]]),
            Seed("Comment", "commentPub", ["on": pointer("Note", "notePub"), "noteId": "notePub", "kind": "pub", "text": "nice"]),
            Seed("Comment", "commentVic", a: ["on": pointer("Note", "noteSalary"), "noteId": "noteSalary", "kind": "private", "text": "secret",
                                              "ACL": victimOnly], b: nil),
            Seed("Comment", "commentSalary", ["on": pointer("Note", "noteSalary"), "noteId": "noteSalary", "kind": "dangling", "text": "?"]),
            Seed("Comment", "commentLaunch", ["on": pointer("Note", "noteLaunch"), "noteId": "noteLaunch", "kind": "dangling", "text": "?"]),
            Seed("Folder", "folderPub", ["name": "public", "ACL": ["*": ["read": true]]]),
            Seed("Folder", "folderVic", a: ["name": "victim's", "ACL": victimOnly], b: ["name": "zzz", "ACL": victimOnly]),
            Seed("Ledger", "ledgerAnchor", ["amount": 0, "memo": "anchor", "owner": pointer("_User", "userGhost"), "ACL": [:]]),
            Seed("Ledger", "ledgerVic", a: ["amount": 5000, "memo": "bonus", "owner": pointer("_User", "userVictim"), "ACL": victimOnly],
                 b: ["amount": 7, "memo": "zzz", "owner": pointer("_User", "userGhost"), "ACL": victimOnly]),
            Seed("_File", "fileAnchor", ["name": "anchor", "url": "https://files.example/anchor", "mime_type": "text/plain",
                                         "metaData": ["size": 0], "provider": "external", "ACL": [:]]),
            Seed("_File", "filePub", ["name": "pub.txt", "url": "https://files.example/pub.txt", "mime_type": "text/plain",
                                      "metaData": ["size": 3], "provider": "external", "ACL": ["*": ["read": true]]]),
            Seed("_File", "fileVic", a: ["name": "salary.pdf", "url": "https://files.example/salary.pdf", "mime_type": "application/pdf",
                                         "metaData": ["size": 120000], "provider": "external", "ACL": victimOnly],
                 b: ["name": "zzz.txt", "url": "https://files.example/zzz.txt", "mime_type": "text/plain",
                     "metaData": ["size": 1], "provider": "external", "ACL": victimOnly]),
            Seed("_File", "fileLaunch", a: ["name": "launch.key", "url": "https://files.example/launch.key", "mime_type": "application/octet-stream",
                                            "metaData": ["size": 99], "provider": "external", "ACL": victimOnly], b: nil),
            Seed("Attachment", "attachPub", ["f": file("filePub"), "note": pointer("Note", "notePub"), "label": "pub", "ACL": ["*": ["read": true]]]),
            // A public object whose File reference names the victim's private file.
            Seed("Attachment", "attachVicRef", ["f": file("fileVic"), "note": pointer("Note", "noteSalary"), "label": "ref"]),
            Seed("Attachment", "attachVic", a: ["f": file("fileLaunch"), "note": pointer("Note", "noteLaunch"), "label": "private", "ACL": victimOnly], b: nil),
            Seed("Probe", "probeAnon", probeKeys(acl: nil)),
            Seed("Probe", "probeMallory", probeKeys(acl: ["userMallory": rw])),
            Seed("Probe", "probeOscar", probeKeys(acl: ["role:outsiders": rw])),
            Seed("Probe", "probeVic", a: probeKeys(acl: victimOnly), b: ["t": "zzz", "n": 1, "k": "zzz", "ACL": victimOnly]),
        ]
        for i in 0..<drops { s.append(Seed("Drop", dropId(i), probeKeys(acl: attacker.ownACL))) }
        return s
    }

    static func dropId(_ i: Int) -> String { "drop\(i < 10 ? "0" : "")\(i)" }

    /// The relations: (class, owner id, key, related class, related ids in A, in B).
    static let relations: [(String, String, String, String, [String], [String])] = [
        ("_Role", "roleStaff", "users", "_User", ["userVictim", "userStaffer"], ["userVictim", "userStaffer"]),
        ("_Role", "roleOutsiders", "users", "_User", ["userOscar"], ["userOscar"]),
        ("_Role", "roleBoard", "users", "_User", ["userVictim"], ["userStaffer"]),
        ("Folder", "folderPub", "notes", "Note", ["notePub", "noteSalary", "noteLaunch"], ["notePub", "noteSalary", "noteLaunch"]),
        ("Folder", "folderVic", "notes", "Note", ["notePub", "noteWiki", "noteSalary"], ["noteWiki"]),
    ]

    /// The classes everything readable lives in (their other spellings too:
    /// on PostgreSQL an attacker's write may make a table of its own).
    static let classes = ["_User", "_Role", "Note", "Comment", "Folder", "Ledger", "_File", "Attachment", "Probe", "Drop"]
    static let spellings = ["_user", "_USER", "_role", "_ROLE", "note", "NOTE", "_file", "_FILE", "ledger", "probe"]

    /// A fresh API over `storage`, seeded as world `side` for `attacker`.
    static func api(_ storage: ServerStorage, _ side: Side, for attacker: Attacker) async throws -> API {
        var api = API(storage: storage)
        api.clock = { NIWorld.now }
        for seed in seeds(for: attacker) {
            guard let keys = side == .a ? seed.a : seed.b else { continue }
            let request: Value = ["method": "POST", "path": .string("/1.1/classes/\(seed.className)"), "body": .object(keys)]
            // Through the REST reader (not the API: `password`/`salt` are refused there), with the fixed objectId.
            let insert = try Binder.bind(try RESTReader.read(try JSONReader.parse(JSONWriter.string(request))), parameters: [], now: now)
            _ = try await storage.write(insert, now: now, objectId: seed.id)
        }
        for (c, id, key, related, a, b) in relations {
            let ids = side == .a ? a : b
            let body: Value = [key: ["__op": "AddRelation", "objects": .array(ids.map { pointer(related, $0) })]]
            let r = try await api.handle(APIRequest(method: "PUT", segments: ["classes", c, id], body: body, identity: master))
            XCTAssertEqual(r.status, 200)
        }
        _ = try await storage.newSession(for: "userVictim", now: now)
        return api
    }

    // MARK: Storage

    /// Two fresh storages on `database` for attacker number `run`: SQLite
    /// files, or two PostgreSQL databases of the harness's server (made
    /// once, one pair per attacker so that the runs go at once).
    static func storages(_ database: ServerHarness.Database, run: Int) throws -> [ServerStorage] {
        switch database {
        case .sqlite:
            let directory = NSTemporaryDirectory() + "cql-ni-test-\(UUID().uuidString)"
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            return try Side.allCases.map { try ServerStorage(.sqlite(path: "\(directory)/\($0.rawValue).db"), readers: 1) }
        case .postgres:
            return try postgresURLs()[run].map { url in
                try PostgreSQLDatabase(url: url).reset()
                return try ServerStorage(.postgres(url: url), readers: 1)
            }
        }
    }

    nonisolated(unsafe) static var databases: [[String]]?
    static let databasesLock = NSLock()

    static func postgresURLs() throws -> [[String]] {
        databasesLock.lock()
        defer { databasesLock.unlock() }
        if let databases { return databases }
        let url = try ServerHarness.postgresURL()
        let server = try PostgreSQLDatabase(url: url)
        guard let slash = url.lastIndex(of: "/") else { throw QueryError(.data, "\(url): no database") }
        var made: [[String]] = []
        for run in attackers.indices {
            made.append(try Side.allCases.map { side in
                let name = "cql_ni_\(run)_\(side.rawValue.lowercased())"
                try server.execute("DROP DATABASE IF EXISTS \(name) WITH (FORCE)")
                try server.execute("CREATE DATABASE \(name)")
                return String(url[...slash]) + name
            })
        }
        databases = made
        return made
    }

    // MARK: What the attacker sees

    /// Everything the attacker may read in a world, as the master key reads
    /// it: each class's objects its ACL grants `grantees` to read (secrets
    /// that no one reads dropped), and the readable members of each readable
    /// object's relations.
    static func visible(_ api: API, grantees: [String]) async -> [String: Value] {
        var seen: [String: Value] = [:]
        for c in classes + spellings {
            let a = await NonInterferenceTests.call(api, master, "GET", "classes/\(c)", ["limit": "1000", "returnACL": "true"])
            let readable = a.body["results"]?.array.filter { ACLRule.grants($0["ACL"], .read, to: grantees) } ?? []
            seen[c] = .array(readable.map { o in
                guard case .object(var fields) = o else { return o }
                for k in API.userSecrets { fields.removeValue(forKey: k) }
                return storedFiles(.object(fields))
            })
            if a.status != 200 { seen[c] = .string("\(a.status) \(JSONWriter.string(a.body))") }
        }
        for (c, id, key, related, _, _) in relations {
            let owner = await NonInterferenceTests.call(api, master, "GET", "classes/\(c)/\(id)", ["returnACL": "true"])
            guard ACLRule.grants(owner.body["ACL"], .read, to: grantees) else { continue }
            let w: Value = ["$relatedTo": ["object": pointer(c, id), "key": .string(key)]]
            let members = await NonInterferenceTests.call(api, master, "GET", "classes/\(related)",
                                                          ["where": .string(JSONWriter.string(w)), "returnACL": "true", "keys": "ACL"])
            seen["\(c).\(id).\(key)"] = .array(members.body["results"]?.array
                .filter { ACLRule.grants($0["ACL"], .read, to: grantees) }.map { $0["objectId"] ?? .null } ?? [])
        }
        return seen
    }

    /// `v` with each File as it is stored (`{"__type":"File","id"}`), not as
    /// the master key's answer expands it: what the attacker may read of a
    /// File reference is its id.
    static func storedFiles(_ v: Value) -> Value {
        switch v {
        case .object(let o) where o["__type"] == "File": return ["__type": "File", "id": o["id"] ?? .null]
        case .object(let o): return .object(o.mapValues(storedFiles))
        case .array(let items): return .array(items.map(storedFiles))
        default: return v
        }
    }

    /// Every object the attacker may not write, as the master key reads it
    /// (secrets included): none of them may change.
    static func unwritable(_ api: API, grantees: [String]) async -> [String: Value] {
        var found: [String: Value] = [:]
        for c in classes {
            let a = await NonInterferenceTests.call(api, master, "GET", "classes/\(c)", ["limit": "1000", "returnACL": "true"])
            for o in a.body["results"]?.array ?? [] where !ACLRule.grants(o["ACL"], .write, to: grantees) {
                if let id = o["objectId"]?.string { found["\(c)/\(id)"] = o }
            }
        }
        return found
    }
}
