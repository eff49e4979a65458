import CQLKit
import CorpusSupport
import Foundation

/// One attacker request, the same in both worlds: its route family and
/// the features it exercises (what a failure report groups by).
struct NIRequest: Sendable {
    var family: String
    var features: Set<String>
    var method: String
    var path: String
    var parameters: [String: Value] = [:]
    var body: Value?

    /// As a client would send it (parameters sorted, JSON compact).
    var text: String {
        var s = "\(method) /1.1/\(path)"
        if !parameters.isEmpty {
            s += "?" + parameters.keys.sorted().map { k in
                let v = parameters[k]!
                return "\(k)=\(v.string ?? JSONWriter.string(v))"
            }.joined(separator: "&")
        }
        if let body { s += " " + JSONWriter.string(body) }
        return s
    }
}

/// The attacker requests of the non-interference suite, made by a seeded
/// generator (SplitMix64): every route and parameter that takes a
/// condition, a reference or a class name, with conditions whose leaves
/// name the victim's private values and whose sub-queries (`$inQuery`,
/// `$notInQuery`, `$select`, `$dontSelect`, CQL `in (select ...)`) nest to
/// depth 3 and read every class in several spellings — and the tables no
/// class name reaches (`cql:sessions`, a relation's `_Join:` table).
struct NIRequestGenerator {
    var rng: SplitMix64
    let attacker: NIWorld.Attacker
    /// The features of the request being made.
    var features: Set<String> = []
    var nextDrop = 0

    init(seed: UInt64, attacker: NIWorld.Attacker) {
        rng = SplitMix64(seed: seed)
        self.attacker = attacker
    }

    enum Kind: Equatable { case text, number, array, pointer(String), id, file }

    static let schema: [String: [(String, Kind)]] = [
        "Note": [("title", .text), ("body", .text), ("amount", .number), ("tags", .array), ("owner", .pointer("_User")), ("objectId", .id)],
        "Comment": [("on", .pointer("Note")), ("noteId", .text), ("kind", .text), ("text", .text)],
        "Folder": [("name", .text), ("objectId", .id)],
        "Ledger": [("amount", .number), ("memo", .text), ("owner", .pointer("_User"))],
        "_User": [("username", .text), ("email", .text), ("bio", .text), ("nick", .text), ("objectId", .id), ("password", .text), ("salt", .text)],
        "_Role": [("name", .text), ("objectId", .id)],
        "_File": [("name", .text), ("url", .text), ("mime_type", .text), ("metaData.size", .number), ("objectId", .id)],
        "Attachment": [("f", .file), ("note", .pointer("Note")), ("label", .text)],
        "Probe": [("k", .text), ("p", .pointer("_User")), ("t", .text), ("n", .number), ("id", .text), ("tag", .array), ("noteP", .pointer("Note"))],
        "Drop": [("k", .text), ("p", .pointer("_User")), ("t", .text), ("n", .number), ("id", .text), ("tag", .array), ("noteP", .pointer("Note"))],
    ]
    static let readClasses = ["Note", "Note", "Note", "Comment", "Folder", "Ledger", "_User", "_User", "_Role", "_File", "_File", "Attachment", "Probe"]
    static let spellings: [String: [String]] = [
        "_User": ["_user", "_USER"], "_Role": ["_role", "_ROLE"], "_File": ["_file", "_FILE"], "Note": ["note", "NOTE"], "Ledger": ["ledger"],
    ]
    static let ids: [String: [String]] = [
        "Note": ["noteSalary", "noteLaunch", "noteStaff", "noteBoard", "notePub", "noteWiki", "noteAnchor", "noteMallory", "noteOscar"],
        "_User": ["userVictim", "userGhost", "userShadow", "userMallory", "userOscar"],
        "_Role": ["roleBoard", "roleStaff", "roleOutsiders"],
        "_File": ["fileVic", "fileLaunch", "filePub", "fileAnchor"],
        "Folder": ["folderVic", "folderPub"], "Ledger": ["ledgerVic", "ledgerAnchor"],
        "Comment": ["commentVic", "commentPub", "commentSalary"], "Attachment": ["attachVic", "attachVicRef", "attachPub"],
        "Probe": ["probeVic", "probeAnon", "probeMallory", "probeOscar"],
    ]
    static let texts = ["salary-2026", "launch-x", "launch-plan", "zzz", "hello", "wiki", "merger", "lunch", "victim", "ghost", "shadow", "bonus",
                        "salary.pdf", "zzz.txt", "secret", "userVictim", "noteSalary", "pay rise"]
    static let numbers: [Int64] = [1, 3, 5, 7, 99, 500, 5000, 120000]
    /// `^(?=sal)(?:.|...)*(?!)`: never matches; expensive exactly on the rows that start with the prefix.
    static let expensive = ["^(?=sal)(?:.|.|.|.|.|.|.|.)*(?!)", "^(?=launch)(?:.|.|.|.|.|.|.|.)*(?!)", "^(?=z)(?:.|.|.|.|.|.|.|.)*(?!)",
                            "^(?=m)(?:.|.|.|.|.|.|.|.)*(?!)"]
    static let regexes = ["^sal", "^launch", "^z", "^m", "sal", "(?i)^SAL", "^pbkdf2", "^pbkdf2-sha256.1000.a", "^[0-7]", "^[89a-f]", "^h", "2026$"]

    // MARK: Randomness

    mutating func below(_ n: Int) -> Int { Int(rng.next() % UInt64(n)) }
    mutating func chance(_ p: Double) -> Bool { Double(rng.next() % 1_000_000) < p * 1_000_000 }
    mutating func pick<T>(_ items: [T]) -> T { items[below(items.count)] }

    /// A class name as the request spells it: mostly as stored, else in another letter case.
    mutating func spell(_ c: String) -> String {
        guard let others = Self.spellings[c], chance(0.3) else { return c }
        let s = pick(others)
        features.insert("class \(s)")
        return s
    }

    mutating func pointerValue(_ target: String) -> Value {
        NIWorld.pointer(target, pick(Self.ids[target] ?? ["nope"]))
    }

    // MARK: where-JSON

    /// A condition on class `c` whose first clause nests sub-queries `depth` deep.
    mutating func condition(_ c: String, depth: Int) -> Value {
        var clauses = [leaf(c, depth: depth)]
        if chance(0.4) { clauses.append(leaf(c, depth: 0)) }
        var w: [String: Value] = [:]
        for (k, v) in clauses where w[k] == nil { w[k] = v }
        if chance(0.12) {
            features.insert("$or")
            let (k, v) = leaf(c, depth: 0)
            w = ["$or": [.object(w), .object([k: v])]]
        }
        if chance(0.1), c == "Note" || c == "_User" {
            features.insert("$relatedTo")
            let owner: Value = c == "Note" ? NIWorld.pointer("Folder", pick(["folderVic", "folderPub"])) : NIWorld.pointer("_Role", pick(["roleBoard", "roleStaff"]))
            w["$relatedTo"] = ["object": owner, "key": c == "Note" ? "notes" : "users"]
        }
        return .object(w)
    }

    mutating func leaf(_ c: String, depth: Int) -> (String, Value) {
        let fields = Self.schema[c] ?? [("objectId", .id)]
        if depth > 0 {
            features.insert("depth \(depth)")
            let pointers = fields.filter { if case .pointer = $0.1 { return true } else { return false } }
            if !pointers.isEmpty && chance(0.4) {
                let (f, kind) = pick(pointers)
                guard case .pointer(let target) = kind else { return (f, .null) }
                let op = pick(["$inQuery", "$notInQuery"])
                features.insert(op)
                let inner = chance(0.9) ? target : pick(Self.readClasses)
                let spelled = spell(inner)
                features.insert("sub \(inner)")
                return (f, [op: ["className": .string(spelled), "where": condition(inner, depth: depth - 1)]])
            }
            let (f, kind) = pick(fields)
            let op = pick(["$select", "$dontSelect"])
            features.insert(op)
            var inner: String, key: String
            var innerWhere: Value
            if kind == .text && chance(0.08) {
                // The sessions table: the victim's token hash, one hex digit at a time.
                inner = "cql:sessions"; key = "user"
                innerWhere = ["objectId": ["$regex": .string(pick(["^[0-7]", "^[89a-f]", "^[0-3]", "^[c-f]"]))]]
            } else if kind == .text && chance(0.06) {
                inner = "_Join:notes:Folder"; key = "relatedId"
                innerWhere = ["owningId": "folderVic"]
            } else {
                let candidates = Self.schema.filter { !["Probe", "Drop"].contains($0.key) }.flatMap { c in c.value.filter { $0.1 == kind }.map { (c.key, $0.0) } }
                if candidates.isEmpty || chance(0.15) {
                    inner = pick(Self.readClasses)
                    key = pick(Self.schema[inner]!).0
                } else {
                    (inner, key) = pick(candidates.sorted { $0.0 + $0.1 < $1.0 + $1.1 })
                }
                innerWhere = condition(inner, depth: depth - 1)
                inner = spell(inner)
            }
            features.insert("sub \(inner)")
            return (f, [op: ["query": ["className": .string(inner), "where": innerWhere], "key": .string(key)]])
        }
        let (f, kind) = pick(fields)
        if f == "password" || f == "salt" { features.insert("secret key") }
        switch kind {
        case .text:
            switch below(6) {
            case 0: return (f, .string(pick(Self.texts)))
            case 1: return (f, ["$ne": .string(pick(Self.texts))])
            case 2: return (f, ["$in": [.string(pick(Self.texts)), .string(pick(Self.texts))]])
            case 3: return (f, ["$gt": .string(pick(["m", "s", "l", "h"]))])
            case 4:
                features.insert("$regex!")
                return (f, ["$regex": .string(pick(Self.expensive))])
            default:
                features.insert("$regex")
                return (f, ["$regex": .string(pick(Self.regexes))])
            }
        case .number:
            let n = Value.int(pick(Self.numbers))
            return (f, pick([n, ["$gt": n], ["$lt": n], ["$gte": n], ["$in": [n, .int(pick(Self.numbers))]]]))
        case .array:
            let t = Value.string(pick(["hr", "pay", "launch", "news", "zz"]))
            return (f, pick([t, ["$all": [t]], ["$in": [t]], ["$size": .int(Int64(below(3)))]]))
        case .pointer(let target):
            return (f, chance(0.8) ? pointerValue(target) : ["$exists": .bool(chance(0.5))])
        case .id:
            let ids = Self.ids[c] ?? ["nope"]
            return (f, chance(0.6) ? .string(pick(ids)) : ["$in": [.string(pick(ids)), .string(pick(ids))]])
        case .file:
            return (f, ["$exists": .bool(chance(0.5))])
        }
    }

    static func whereText(_ v: Value) -> Value { .string(JSONWriter.string(v)) }

    // MARK: Reads

    mutating func find(count: Bool) -> NIRequest {
        features = []
        let c = pick(Self.readClasses)
        var p: [String: Value] = [:]
        if chance(0.92) { p["where"] = Self.whereText(condition(c, depth: pick([0, 0, 1, 1, 2, 3]))) }
        if count {
            p["count"] = "1"
            p["limit"] = "0"
        } else {
            let fields = (Self.schema[c] ?? []).map(\.0)
            if chance(0.25) { features.insert("keys"); p["keys"] = .string([pick(fields), pick(fields)].joined(separator: ",")) }
            if chance(0.3) {
                features.insert("order")
                let f = pick(fields.filter { $0 != "objectId" })
                if f == "password" || f == "salt" { features.insert("secret key") }
                p["order"] = .string((chance(0.5) ? "-" : "") + f)
            }
            if chance(0.25) { features.insert("include"); p["include"] = .string(pick(["owner", "on", "note", "on.owner", "noteP", "f", "p"])) }
            if chance(0.1) { p["count"] = "1" }
            if chance(0.15) { p["limit"] = .string(String(pick([1, 2, 5]))); p["skip"] = .string(String(below(3))) }
        }
        let path = c == "_User" && chance(0.15) ? "users" : "classes/\(spell(c))"
        return NIRequest(family: count ? "count" : "find", features: features, method: "GET", path: path, parameters: p)
    }

    mutating func get() -> NIRequest {
        features = []
        let c = pick(Array(Self.ids.keys).sorted())
        let id = chance(0.9) ? pick(Self.ids[c]!) : pick(["nope", "noteSalary", "userShadow"])
        var p: [String: Value] = [:]
        if chance(0.3) { features.insert("include"); p["include"] = .string(pick(["owner", "on", "note", "f", "noteP", "p"])) }
        if chance(0.2) { features.insert("keys"); p["keys"] = .string(pick(["title", "password,salt", "name,url", "f", "owner"])) }
        var path = "classes/\(spell(c))/\(id)"
        if chance(0.2) {
            switch c {
            case "_User": path = "users/\(id)"
            case "_File": path = "files/\(id)"
            case "_Role": path = "roles/\(id)"
            default: break
            }
        }
        return NIRequest(family: "get", features: features, method: "GET", path: path, parameters: p)
    }

    // MARK: CQL

    mutating func cqlLeaf(_ c: String, depth: Int) -> String {
        let fields = (Self.schema[c] ?? [("objectId", .id)]).filter { $0.1 != .file }
        if depth > 0 {
            features.insert("depth \(depth)")
            let (f, kind) = pick(fields)
            let negated = chance(0.3) ? " not" : ""
            if case .pointer(let target) = kind, chance(0.6) {
                features.insert("in (select *)")
                let inner = chance(0.9) ? target : pick(Self.readClasses)
                features.insert("sub \(inner)")
                return "\(f)\(negated) in (select * from \(spell(inner)) where \(cqlCondition(inner, depth: depth - 1)))"
            }
            features.insert("in (select key)")
            let candidates = Self.schema.filter { !["Probe", "Drop"].contains($0.key) }.flatMap { c in c.value.filter { $0.1 == kind }.map { (c.key, $0.0) } }
                .sorted { $0.0 + $0.1 < $1.0 + $1.1 }
            let (inner, key) = candidates.isEmpty ? ("Note", "title") : pick(candidates)
            features.insert("sub \(inner)")
            return "\(f)\(negated) in (select \(key) from \(spell(inner)) where \(cqlCondition(inner, depth: depth - 1)))"
        }
        let (f, kind) = pick(fields)
        if f == "password" || f == "salt" { features.insert("secret key") }
        switch kind {
        case .text:
            switch below(5) {
            case 0: return "\(f) = '\(pick(Self.texts))'"
            case 1: return "\(f) like '\(pick(["sal%", "launch%", "z%", "%26", "m%"]))'"
            case 2:
                features.insert("$regex!")
                return "\(f) regexp '\(pick(Self.expensive))'"
            case 3:
                features.insert("$regex")
                return "\(f) regexp '\(pick(Self.regexes))'"
            default: return "\(f) in ('\(pick(Self.texts))', '\(pick(Self.texts))')"
            }
        case .number: return "\(f) \(pick([">", "<", "=", ">="])) \(pick(Self.numbers))"
        case .array: return "\(f) = '\(pick(["hr", "pay", "launch", "news"]))'"
        case .pointer(let target): return "\(f) = pointer('\(target)', '\(pick(Self.ids[target] ?? ["nope"]))')"
        case .id: return "objectId = '\(pick(Self.ids[c] ?? ["nope"]))'"
        case .file: return "objectId = 'nope'"
        }
    }

    mutating func cqlCondition(_ c: String, depth: Int) -> String {
        var s = cqlLeaf(c, depth: depth)
        if chance(0.35) { s = "(\(s)) \(pick(["and", "or"])) \(cqlLeaf(c, depth: 0))" }
        if c == "Note", chance(0.1) {
            features.insert("$relatedTo")
            s = "related notes to pointer('Folder', '\(pick(["folderVic", "folderPub"]))' ) and (\(s))"
        }
        return s
    }

    mutating func cqlSelect() -> NIRequest {
        features = []
        let c = pick(Self.readClasses)
        let depth = pick([0, 1, 1, 2, 3])
        let cql: String
        switch below(10) {
        case 0: cql = "select count(*) from \(spell(c)) where \(cqlCondition(c, depth: depth))"
        case 1:
            features.insert("include")
            cql = "select include on, * from Comment where \(cqlCondition("Comment", depth: depth))"
        case 2:
            features.insert("secret key")
            let users = spell("_User")
            cql = "select username, password, salt from \(users)" + (chance(0.5) ? "" : " where \(cqlCondition("_User", depth: depth))")
        default:
            let fields = (Self.schema[c] ?? []).map(\.0).filter { $0 != "objectId" }
            let order = chance(0.3) ? " order by \(pick(fields))" : ""
            cql = "select * from \(spell(c)) where \(cqlCondition(c, depth: depth))\(order)"
        }
        return NIRequest(family: "cloudQuery select", features: features, method: "GET", path: "cloudQuery", parameters: ["cql": .string(cql)])
    }

    mutating func cqlWrite() -> NIRequest {
        features = []
        let depth = pick([0, 1, 1, 2, 2, 3])
        let cql: String
        switch below(5) {
        case 0, 1: cql = "update Probe set touched = true where objectId = '\(attacker.probe)' and \(cqlCondition("Probe", depth: depth))"
        case 2: cql = "delete from Drop where objectId = '\(dropTarget())' and \(cqlCondition("Drop", depth: depth))"
        case 3: cql = "update Note set touched = true where objectId = 'noteWiki' and \(cqlCondition("Note", depth: depth))"
        default: cql = "update Note set touched = true where objectId = '\(pick(["noteSalary", "notePub", "noteStaff"]))' and \(cqlCondition("Note", depth: depth))"
        }
        return NIRequest(family: "cloudQuery update/delete", features: features, method: "GET", path: "cloudQuery", parameters: ["cql": .string(cql)])
    }

    // MARK: Writes

    mutating func dropTarget() -> String {
        defer { nextDrop += 1 }
        return NIWorld.dropId(nextDrop % NIWorld.drops)
    }

    mutating func writeCondition(_ c: String) -> Value { condition(c, depth: pick([0, 1, 1, 2, 2, 3])) }

    /// A conditional PUT (a change or an empty body) or DELETE.
    mutating func conditionalWrite() -> NIRequest {
        features = []
        switch below(10) {
        case 0, 1, 2, 3:
            var p: [String: Value] = ["where": Self.whereText(writeCondition("Probe"))]
            if chance(0.3) { p["fetchWhenSave"] = "true" }
            return NIRequest(family: "PUT ?where", features: features, method: "PUT", path: "classes/\(chance(0.1) ? "probe" : "Probe")/\(attacker.probe)",
                             parameters: p, body: ["touched": true])
        case 4, 5:
            return NIRequest(family: "empty PUT ?where", features: features, method: "PUT", path: "classes/Probe/\(attacker.probe)",
                             parameters: ["where": Self.whereText(writeCondition("Probe"))], body: [:])
        case 6, 7:
            return NIRequest(family: "DELETE ?where", features: features, method: "DELETE", path: "classes/Drop/\(dropTarget())",
                             parameters: ["where": Self.whereText(writeCondition("Drop"))])
        default:
            let target = pick(["noteWiki", "noteWiki", "notePub", "noteSalary", "noteStaff"])
            return NIRequest(family: "PUT ?where (others' notes)", features: features, method: "PUT", path: "classes/\(spell("Note"))/\(target)",
                             parameters: ["where": Self.whereText(writeCondition("Note"))], body: chance(0.5) ? ["touched": true] : [:])
        }
    }

    /// A batch of 1 to 3 sub-requests whose conditions are `params.where` (an object, or its text).
    mutating func batch() -> NIRequest {
        features = []
        var subs: [Value] = []
        for _ in 0..<(1 + below(3)) {
            func w(_ c: String, _ depth: Int) -> Value {
                let v = condition(c, depth: depth)
                return chance(0.5) ? v : Self.whereText(v)
            }
            switch below(5) {
            case 0:
                let c = pick(Self.readClasses)
                subs.append(["method": "GET", "path": .string("/1.1/classes/\(spell(c))"), "params": ["where": w(c, pick([1, 2, 3]))]])
            case 1:
                subs.append(["method": "GET", "path": "/1.1/classes/Note", "params": ["where": w("Note", pick([0, 1, 2])), "count": 1, "limit": 0]])
            case 2:
                subs.append(["method": "PUT", "path": .string("/1.1/classes/Probe/\(attacker.probe)"), "body": ["touched": true],
                             "params": ["where": w("Probe", pick([1, 2, 3]))]])
            case 3:
                subs.append(["method": "PUT", "path": .string("/1.1/classes/Probe/\(attacker.probe)"), "body": [:], "params": ["where": w("Probe", pick([1, 2]))]])
            default:
                subs.append(["method": "DELETE", "path": .string("/1.1/classes/Drop/\(dropTarget())"), "params": ["where": w("Drop", pick([1, 2, 3]))]])
            }
        }
        return NIRequest(family: "batch params.where", features: features, method: "POST", path: "batch", body: ["requests": .array(subs)])
    }

    /// A create or update with File values (by id) read back with `fetchWhenSave`.
    mutating func fileValue() -> NIRequest {
        features = []
        let fid = pick(["fileVic", "fileVic", "fileLaunch", "filePub", "fileAnchor", "nope"])
        features.insert("file \(fid)")
        let ref = "{\"__type\":\"File\",\"id\":\"\(fid)\"}"
        let acl = attacker.ownACL.map { ",\"ACL\":" + JSONWriter.string($0) } ?? ""
        switch below(4) {
        case 0:
            return NIRequest(family: "File value", features: features, method: "PUT", path: "classes/Probe/\(attacker.probe)",
                             parameters: ["fetchWhenSave": "true"], body: Self.json("{\"f\":\(ref)}"))
        case 1:
            return NIRequest(family: "File value", features: features, method: "POST", path: "classes/Attachment",
                             parameters: ["fetchWhenSave": "true"], body: Self.json("{\"fs\":[\(ref),\(ref)],\"label\":\"mine\"\(acl)}"))
        default:
            return NIRequest(family: "File value", features: features, method: "POST", path: "classes/Attachment",
                             parameters: ["fetchWhenSave": "true"], body: Self.json("{\"f\":\(ref),\"label\":\"mine\"\(acl)}"))
        }
    }

    static func json(_ text: String) -> Value { (try? JSONReader.parse(text)) ?? .null }

    /// Writes through other spellings of the reserved classes (last: on
    /// SQLite they may change what the attacker holds).
    func classCaseWrites() -> [NIRequest] {
        func r(_ m: String, _ path: String, _ body: Value?, _ p: [String: Value] = [:]) -> NIRequest {
            NIRequest(family: "class-case write", features: [path.split(separator: "/").dropFirst().first.map { "class \($0)" } ?? "cql insert"], method: m, path: path, parameters: p, body: body)
        }
        var out = [
            r("POST", "classes/_user", ["x": 1]),
            r("POST", "classes/_USER", ["username": "evil", "x": 1]),
            r("POST", "classes/_file", Self.json("{\"name\":\"x.txt\",\"url\":\"https://files.example/x.txt\",\"key\":\"k1\"}")),
            r("POST", "classes/note", ["title": "mine", "ACL": attacker.ownACL ?? .null]),
            r("GET", "cloudQuery", nil, ["cql": "insert into _user(username, x) values ('victim2', 1)"]),
        ]
        if let me = attacker.userId {
            let join: Value = ["__op": "AddRelation", "objects": [NIWorld.pointer("_User", me)]]
            out += [
                r("POST", "classes/_role", ["name": "staff", "ACL": ["*": ["read": true]], "users": join]),
                r("POST", "classes/_ROLE", ["name": "board", "ACL": ["*": ["read": true]], "users": join]),
                r("PUT", "classes/_user/\(me)", ["emailVerified": true, "nick": "me"]),
                r("PUT", "classes/_User/\(me)", ["nick": "me2"]),
            ]
        } else {
            out += [r("POST", "classes/_role", ["name": "staff", "ACL": ["*": ["read": true]]])]
        }
        return out
    }

    /// Reads after every write: what the attacker's writes made it hold.
    func coda() -> [NIRequest] {
        func r(_ path: String, _ p: [String: Value] = [:]) -> NIRequest { NIRequest(family: "final reads", features: [], method: "GET", path: path, parameters: p) }
        var out = NIWorld.classes.map { r("classes/\($0)") } + NIWorld.spellings.map { r("classes/\($0)") }
        out += ["noteStaff", "noteBoard", "noteSalary"].map { r("classes/Note/\($0)") }
        out += [r("classes/Note", ["count": "1", "limit": "0"]), r("cloudQuery", ["cql": "select * from Note"]), r("users/me")]
        return out
    }

    /// Reads through other spellings of the reserved classes, of their
    /// secrets above all (also in the generated reads, but not every time).
    func classCaseReads() -> [NIRequest] {
        func r(_ path: String, _ p: [String: Value] = [:]) -> NIRequest {
            NIRequest(family: "class-case read", features: [path.split(separator: "/").dropFirst().first.map { "class \($0)" } ?? "cql"],
                      method: "GET", path: path, parameters: p)
        }
        var out: [NIRequest] = []
        for c in ["_User", "_user", "_USER"] {
            out += [
                r("classes/\(c)", ["where": #"{"username":"victim"}"#]),
                r("classes/\(c)", ["keys": "username,password,salt", "limit": "3"]),
                r("classes/\(c)", ["order": "password", "keys": "username"]),
                r("classes/\(c)", ["where": #"{"password":{"$regex":"^pbkdf2-sha256.1000.a"}}"#, "keys": "username"]),
                r("classes/\(c)/userGhost"),
                r("cloudQuery", ["cql": .string("select username, password, salt from \(c)")]),
            ]
        }
        for c in ["_Role", "_role"] { out += [r("classes/\(c)", ["where": #"{"name":"board"}"#]), r("classes/\(c)/roleBoard")] }
        for c in ["_File", "_file"] { out += [r("classes/\(c)", ["where": #"{"name":{"$regex":"^sal"}}"#]), r("classes/\(c)/fileVic")] }
        return out
    }

    /// The attacker's whole run: reads, then writes, then the class-case writes, then the final reads.
    mutating func requests() -> [NIRequest] {
        var reads: [NIRequest] = classCaseReads()
        for _ in 0..<170 { reads.append(find(count: false)) }
        for _ in 0..<40 { reads.append(find(count: true)) }
        for _ in 0..<50 { reads.append(get()) }
        for _ in 0..<75 { reads.append(cqlSelect()) }
        var writes: [NIRequest] = []
        for _ in 0..<120 { writes.append(conditionalWrite()) }
        for _ in 0..<30 { writes.append(batch()) }
        for _ in 0..<40 { writes.append(cqlWrite()) }
        for _ in 0..<15 { writes.append(fileValue()) }
        reads.shuffle(using: &rng)
        writes.shuffle(using: &rng)
        return reads + writes + classCaseWrites() + coda()
    }
}
