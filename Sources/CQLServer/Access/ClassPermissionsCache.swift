import CQLEval
import CQLKit
import CQLSQL
import Foundation

/// The class-level permissions of every class, read from the database once
/// and kept: a request looks its class up in memory (a lock and a
/// dictionary), never in the database.
///
/// A change through ``API/setClassPermissions(_:className:)`` replaces the
/// kept copy at once; a change another server process made on the same
/// database is read within ``refreshInterval``.
///
/// ```swift
/// let snapshot = try await api.permissionsSnapshot()
/// snapshot["_Role"].allows(.create, grantees: ["*", "u1"])   // false (the default)
/// ```
final class ClassPermissionsCache: @unchecked Sendable {
    /// Seconds a kept copy serves before it is read again (for changes by
    /// other processes; this one's own changes are seen at once).
    static let refreshInterval: Double = 5

    /// The effective permissions of every class at one moment.
    struct Snapshot: Sendable {
        /// Classes whose permissions are not an ordinary class's defaults.
        var classes: [String: ClassPermissions]
        /// What each class holds as set (for the schema route).
        var stored: [String: ClassPermissions]

        /// A class's effective permissions (its setting over its defaults).
        subscript(className: String) -> ClassPermissions { classes[className] ?? Self.ordinary }

        static let ordinary = ClassPermissions()

        init(stored: [String: ClassPermissions]) {
            self.stored = stored
            var classes: [String: ClassPermissions] = [:]
            for reserved in ["_Role", "_User"] { classes[reserved] = ClassPermissions.defaults(for: reserved) }
            for (name, p) in stored { classes[name] = p.effective(for: name) }
            self.classes = classes
        }
    }

    private let state = LockedValue<(snapshot: Snapshot, loadedAt: UInt64)?>(nil)
    /// Keys known to be held by some object of a class (``API/checkNewKeys(_:className:grantees:snapshot:)``).
    let knownKeys = LockedValue<[String: Set<String>]>([:])

    /// The kept snapshot while fresh, else nil.
    func fresh() -> Snapshot? {
        guard let s = state.value else { return nil }
        let age = Double(DispatchTime.now().uptimeNanoseconds &- s.loadedAt) / 1e9
        return age < Self.refreshInterval ? s.snapshot : nil
    }

    func keep(_ snapshot: Snapshot) { state.value = (snapshot, DispatchTime.now().uptimeNanoseconds) }

    /// Forgets the kept copy (after a change): the next request reads it again.
    func invalidate() { state.value = nil }
}

extension API {
    /// The class-level permissions now, read from the database when the
    /// kept copy is missing or stale.
    func permissionsSnapshot() async throws -> ClassPermissionsCache.Snapshot {
        if let s = classPermissions.fresh() { return s }
        let docs = try await storage.classSettings()
        var stored: [String: ClassPermissions] = [:]
        for doc in docs {
            let o = try DataFiles.object(json: doc)
            guard case .string(let name)? = o["objectId"] else { continue }
            stored[name] = try ClassPermissions(json: .object(o.filter { $0.key != "objectId" }), className: name)
        }
        let snapshot = ClassPermissionsCache.Snapshot(stored: stored)
        classPermissions.keep(snapshot)
        return snapshot
    }

    /// 403 with code 119, as LeanCloud refuses what a class's permissions
    /// do not grant.
    static func notPermitted(_ operation: ClassPermissions.Operation, _ className: String) -> APIError {
        APIError(status: 403, code: 119, "The user is not permitted to \(operation.phrase) class '\(className)' (its class-level permissions).")
    }

    /// 403/119 unless `grantees` (nil: the master key) may do `operation` on
    /// the class: decided by who the caller is, before any object is read.
    func requirePermission(_ operation: ClassPermissions.Operation, _ className: String, grantees: [String]?,
                           snapshot: ClassPermissionsCache.Snapshot) throws(APIError) {
        if !snapshot[className].allows(operation, grantees: grantees) { throw Self.notPermitted(operation, className) }
    }

    /// The class-level permissions of one route (called from ``route(_:)``
    /// for every request, batch sub-requests included): the operation the
    /// route is, then for a create or update the keys it adds, and for a
    /// conditional update or delete what its `where` reads
    /// (``checkReads(_:className:grantees:snapshot:)``). A find's query is
    /// checked where it is made (``find(_:className:)``); cloudQuery checks
    /// its statement (``checkPermissions(_:_:)``).
    func checkRoutePermissions(_ r: APIRequest, segments: [String]) async throws {
        let s = APIRouteTable.normalized(segments)
        guard let match = Self.routes.match(method: r.method, segments: s) else { return }
        try await checkRoutePermissions(r, match)
    }

    /// The permission a matched route declares (``APIRoute/Permission``).
    func checkRoutePermissions(_ r: APIRequest, _ match: APIRoute.Match) async throws {
        guard let grantees = r.grantees, let permission = match.route.permission, let className = try match.permissionClass() else { return }
        let operation = permission.operation
        let snapshot = try await permissionsSnapshot()
        try requirePermission(operation, className, grantees: grantees, snapshot: snapshot)
        if operation == .create || operation == .update, permission.bodyHoldsKeys, case .object(let body)? = r.body {
            try await checkNewKeys(Array(body.keys), className: className, grantees: grantees, snapshot: snapshot)
        }
        if operation == .update || operation == .delete, let condition = try r.json("where") {
            let query = try WhereJSONReader.read(.object(["className": .string(className), "where": condition]))
            try checkReads(query, grantees: grantees, snapshot: snapshot)
        }
    }

    /// A cloudQuery statement's permissions: a select is a find (and what
    /// it reads is checked), an insert a create, an update an update, a
    /// delete a delete; the keys an insert or update adds need `add_fields`.
    func checkPermissions(_ statement: Statement, _ r: APIRequest) async throws {
        guard let grantees = r.grantees else { return }
        let snapshot = try await permissionsSnapshot()
        switch statement {
        case .select(let q):
            try requirePermission(.find, q.className, grantees: grantees, snapshot: snapshot)
            try checkReads(q, grantees: grantees, snapshot: snapshot)
        case .insert(let s):
            try requirePermission(.create, s.className, grantees: grantees, snapshot: snapshot)
            try await checkNewKeys(s.columns.map(\.name), className: s.className, grantees: grantees, snapshot: snapshot)
        case .update(let u):
            try requirePermission(.update, u.className, grantees: grantees, snapshot: snapshot)
            try await checkNewKeys(u.assignments.map(\.key.name), className: u.className, grantees: grantees, snapshot: snapshot)
            try checkReads(Query(className: u.className, condition: u.condition), grantees: grantees, snapshot: snapshot)
        case .delete(let d):
            try requirePermission(.delete, d.className, grantees: grantees, snapshot: snapshot)
            try checkReads(Query(className: d.className, condition: d.condition), grantees: grantees, snapshot: snapshot)
        }
    }

    /// What a query reads beyond its own class's objects: every sub-query
    /// (`$inQuery`, `$select` and their negations, at any depth) is a find
    /// on its class and needs that class's `find`; a `$relatedTo` needs its
    /// owner's class's `get`; no condition, order or
    /// `$select` key may name a key the caller cannot see
    /// (``ClassPermissions/hiddenKeys(grantees:className:)``) — a match on
    /// a hidden key would tell its value. Refusals are 403/119, decided by
    /// the query and the caller alone.
    func checkReads(_ query: Query, grantees: [String]?, snapshot: ClassPermissionsCache.Snapshot) throws(APIError) {
        guard let grantees else { return }
        let hidden = snapshot[query.className].hiddenKeys(grantees: grantees, className: query.className)
        if !hidden.isEmpty {
            for key in query.order { try Self.refuseHidden(key.path, hidden, query.className) }
        }
        try checkReads(query.condition, className: query.className, hidden: hidden, grantees: grantees, snapshot: snapshot)
    }

    func checkReads(_ c: Condition?, className: String, hidden: Set<String>, grantees: [String], snapshot: ClassPermissionsCache.Snapshot)
        throws(APIError)
    {
        // The query's own tests; each sub-query is checked as a query of its own class.
        try c?.forEach(entering: .ownTests) { (node: Condition) throws(APIError) in
            switch node.predicate {
            case .and, .or, .not: break  // entered by the traversal
            case .constant, .aclGrants: break
            case .relationHolds(let key, _, _):
                // Made by the server of a comparison of the key (ServerStorage.find): refused as that comparison would be.
                try Self.refuseHidden(FieldPath([key]), hidden, className)
            case .relatedTo(let object, _):
                // The members of a relation are read through its owner: the owner's class must grant get.
                if case .value(.pointer(let owner)) = object { try requirePermission(.get, owner.className, grantees: grantees, snapshot: snapshot) }
            case .select(let path, let key, let sub, _):
                try Self.refuseHidden(path, hidden, className)
                try requirePermission(.find, sub.className, grantees: grantees, snapshot: snapshot)
                try Self.refuseHidden(key, snapshot[sub.className].hiddenKeys(grantees: grantees, className: sub.className), sub.className)
                try checkReads(sub, grantees: grantees, snapshot: snapshot)
            case .inQuery(let path, let sub, _):
                try Self.refuseHidden(path, hidden, className)
                try requirePermission(.find, sub.className, grantees: grantees, snapshot: snapshot)
                try checkReads(sub, grantees: grantees, snapshot: snapshot)
            case .elementMatch(let p, _):
                // The inner condition's paths are inside p's elements: p decides (not entered).
                try Self.refuseHidden(p, hidden, className)
            case .compare(let p, _, _), .in(let p, _, _), .all(let p, _), .size(let p, _), .exists(let p, _), .regex(let p, _, _),
                 .like(let p, _), .prefix(let p, _), .text(let p, _, _), .containedBy(let p, _), .type(let p, _),
                 .modulo(let p, _, _), .fullText(let p, _), .near(let p, _, _, _), .withinBox(let p, _, _), .withinPolygon(let p, _),
                 .withinCenterSphere(let p, _, _), .geoIntersects(let p, _):
                try Self.refuseHidden(p, hidden, className)
            }
        }
    }

    static func refuseHidden(_ path: FieldPath, _ hidden: Set<String>, _ className: String) throws(APIError) {
        guard !hidden.isEmpty, let first = path.components.first, hidden.contains(first) else { return }
        throw APIError(status: 403, code: 119, "The user is not permitted to query '\(first)' of class '\(className)' (a protected field).")
    }

    /// Keys every object has: never "new".
    static let builtInKeys: Set<String> = ["objectId", "createdAt", "updatedAt", "ACL"]

    /// 403/119 when a write adds a top-level key no object of the class holds
    /// yet and the caller lacks `add_fields`. Only then is anything read:
    /// one "does any object hold it" lookup per key not yet known to exist
    /// (as the schema route would list it; kept once found).
    func checkNewKeys(_ keys: [String], className: String, grantees: [String]?, snapshot: ClassPermissionsCache.Snapshot) async throws {
        let permissions = snapshot[className]
        guard !permissions.isOpen(.addFields), !permissions.allows(.addFields, grantees: grantees) else { return }
        let tops = Set(keys.map { String($0.split(separator: ".", maxSplits: 1, omittingEmptySubsequences: false)[0]) })
        let known = classPermissions.knownKeys.value[className] ?? []
        for key in tops.subtracting(Self.builtInKeys).subtracting(known).sorted() {
            // The server's own lookup (no ACL, no guard on secret keys): whether the key exists at all.
            let query = Query(className: className, keys: [SelectedKey("objectId")],
                              condition: Condition(.exists(FieldPath([key]), true)), limit: .value(.int(1)))
            let held = try await storage.find(try Optimizer.optimize(try Binder.bind(query, parameters: [])))
            guard !held.objects.isEmpty else { throw Self.notPermitted(.addFields, className) }
            classPermissions.knownKeys.update { known in _ = known[className, default: []].insert(key) }
        }
    }

    // MARK: Answers

    /// Objects as `grantees` may see them: the keys the class protects from
    /// this caller removed (but from the caller's own `_User`), and every
    /// included object of a class whose `get` the caller lacks turned into
    /// its bare Pointer (what it included dropped with it); included objects
    /// keep their own classes' protections. Runs before
    /// ``hidingUnreadable(_:grantees:)``, so no denied class is even asked.
    func permitted(_ objects: [[String: Value]], className: String, grantees: [String]?) async throws -> [[String: Value]] {
        guard let grantees else { return objects }
        let snapshot = try await permissionsSnapshot()
        let me = grantees.first { $0 != ACLRule.everyone && !$0.hasPrefix("role:") }
        let hidden = snapshot[className].hiddenKeys(grantees: grantees, className: className)
        return objects.map { o in
            var o = o
            if !hidden.isEmpty, !(className == "_User" && me != nil && o["objectId"]?.stringValue == me) {
                for k in hidden { o.removeValue(forKey: k) }
            }
            for (k, v) in o where Self.mayHoldIncluded(v) { o[k] = Self.permittedIncludes(v, snapshot, grantees, me) }
            return o
        }
    }

    static func mayHoldIncluded(_ v: Value) -> Bool {
        switch v {
        case .typedObject, .array, .object: return true
        default: return false
        }
    }

    static func permittedIncludes(_ v: Value, _ snapshot: ClassPermissionsCache.Snapshot, _ grantees: [String], _ me: String?) -> Value {
        switch v {
        case .typedObject(let c, var fields):
            let p = snapshot[c]
            if !p.allows(.get, grantees: grantees) {
                if case .string(let id)? = fields["objectId"] { return .pointer(Pointer(className: c, objectId: id)) }
                return .null
            }
            let hidden = p.hiddenKeys(grantees: grantees, className: c)
            if !hidden.isEmpty, !(c == "_User" && me != nil && fields["objectId"]?.stringValue == me) {
                for k in hidden { fields.removeValue(forKey: k) }
            }
            return .typedObject(className: c, fields: fields.mapValues { permittedIncludes($0, snapshot, grantees, me) })
        case .array(let items): return .array(items.map { permittedIncludes($0, snapshot, grantees, me) })
        case .object(let o): return .object(o.mapValues { permittedIncludes($0, snapshot, grantees, me) })
        default: return v
        }
    }

    /// Whether a class's answers to `grantees` need the object path (some
    /// key of it is hidden from them), not the stored-text one.
    func hidesKeys(_ className: String, grantees: [String]?) async throws -> Bool {
        guard let grantees else { return false }
        let snapshot = try await permissionsSnapshot()
        return !snapshot[className].hiddenKeys(grantees: grantees, className: className).isEmpty
    }
}
