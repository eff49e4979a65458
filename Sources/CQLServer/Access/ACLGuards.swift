import CQLEval
import CQLKit
import CQLSQL

/// ACLs inside every query (Server.md, "ACLs and roles"): what a request's caller
/// may read and write.
///
/// The master key reads and writes everything. Any other caller is a set
/// of grantees — `*`, its user's objectId, `role:<name>` for each role it
/// holds (``CallerGrantees``) — computed once per request (a batch's
/// sub-requests share their batch's) and carried in ``APIRequest/grantees``.
///
/// - Reads: ``CallerQuery`` adds the read condition to the query and to
///   each of its subqueries before the optimizer runs (``ACLRule/restricting(_:to:)``),
///   so SQL filters, and limit, skip, order and count count only readable
///   objects; an `include`d object the caller cannot read comes back as its
///   bare Pointer (``hidingUnreadable(_:grantees:)``).
/// - Writes: an update or delete first reads its object under the read
///   condition: not readable is 101, exactly as missing; readable but not
///   writable is 403 and nothing is written. The write then carries "read and
///   write granted" as its condition, so an ACL changed in between cannot
///   slip through (the write is refused with 403).
extension API {
    /// The caller's grantees; `nil` for the master key.
    func grantees(for identity: Identity) async throws -> [String]? {
        if identity.isMaster { return nil }
        guard let userId = identity.userId else { return [ACLRule.everyone] }
        return try await storage.grantees(userId: userId)
    }

    /// A query ready for the storage, restricted to what `caller` may read
    /// (``CallerQuery/prepared(_:as:now:)``).
    static func prepared(_ query: Query, as caller: QueryCaller) throws -> Query {
        try CallerQuery.prepared(query, as: caller)
    }

    /// A read as `grantees` may run it (`query` already ``prepared(_:as:)``
    /// for them): every `$relatedTo` whose owner they cannot read is false,
    /// as it is for an owner that does not exist, so a relation's members
    /// never show through an unreadable owner. (The owner is one object: it
    /// is checked here, by the same read condition, rather than in the SQL.)
    func find(_ query: Query, grantees: [String]?, countOnly: Bool = false, storedText: Bool = false,
              memo: SQLRunner.ReadMemo? = nil) async throws -> SQLRunner.Result {
        guard let grantees, let condition = query.condition,
              let hidden = try await hidingUnreadableOwners(condition, grantees: grantees)
        else { return try await storage.find(query, countOnly: countOnly, storedText: storedText, memo: memo) }
        var changed = query
        changed.condition = hidden
        // The memo is the unchanged query's: not this one's.
        return try await storage.find(changed, countOnly: countOnly, storedText: storedText)
    }

    /// `c` with each `$relatedTo` whose owner `grantees` cannot read made
    /// false; nil when every owner is readable (or there is none).
    func hidingUnreadableOwners(_ c: Condition, grantees: [String]) async throws -> Condition? {
        var owners = Set<Pointer>()
        Self.collectRelatedOwners(c, into: &owners)
        var unreadable = Set<Pointer>()
        for owner in owners where try await !canRead(owner, grantees: grantees) { unreadable.insert(owner) }
        return unreadable.isEmpty ? nil : Self.falsifyingRelated(c, owners: unreadable)
    }

    /// Whether `grantees` may read the object (false when it does not exist).
    func canRead(_ object: Pointer, grantees: [String]?) async throws -> Bool {
        let query = Query(className: object.className, keys: [SelectedKey("objectId")],
                          condition: Condition(.compare("objectId", .equal, .value(.string(object.objectId)))))
        return try await !storage.find(try Self.prepared(query, as: QueryCaller(grantees: grantees))).objects.isEmpty
    }

    /// The owners of the `$relatedTo`s in `c`, at any depth (sub-queries too).
    static func collectRelatedOwners(_ c: Condition?, into owners: inout Set<Pointer>) {
        c?.forEach(entering: .everything) { node in
            switch node.outsideRead {
            case .relation(.value(.pointer(let owner)), _)?: owners.insert(owner)
            case .relation?, .subquery?, .ownRelation?, nil: break
            }
        }
    }

    /// `c` with each `$relatedTo` of one of `owners` made false, at any
    /// depth (sub-queries too).
    static func falsifyingRelated(_ c: Condition, owners: Set<Pointer>) -> Condition {
        let falsified = c.transformed(entering: .everything) { node -> Condition? in
            switch node.outsideRead {
            case .relation(.value(.pointer(let owner)), _)? where owners.contains(owner):
                var f = node
                f.predicate = .constant(false)
                return f
            case .relation?, .subquery?, .ownRelation?, nil: return nil
            }
        }
        return falsified ?? c
    }

    /// The objects with every included object `grantees` cannot read
    /// replaced by its bare Pointer (and what it included dropped with it).
    func hidingUnreadable(_ objects: [[String: Value]], grantees: [String]?) async throws -> [[String: Value]] {
        guard let grantees else { return objects }
        var objects = objects
        var readable = Set<Pointer>()
        // Level by level: what an unreadable object included is never asked about.
        var pending = Set<Pointer>()
        for o in objects { for v in o.values { Self.collectIncluded(v, into: &pending) } }
        var checked = Set<Pointer>()
        while !pending.isEmpty {
            checked.formUnion(pending)
            for (className, ids) in Dictionary(grouping: pending, by: \.className) {
                let query = Query(className: className, keys: [SelectedKey("objectId")],
                                  condition: Condition(.in("objectId", ids.map { .value(.string($0.objectId)) }, negated: false)))
                for o in try await storage.find(try Self.prepared(query, as: .grantees(grantees))).objects {
                    if case .string(let id)? = o["objectId"] { readable.insert(Pointer(className: className, objectId: id)) }
                }
            }
            var next = Set<Pointer>()
            for p in pending where readable.contains(p) {
                for o in objects { for v in o.values { Self.collectIncluded(v, under: p, into: &next) } }
            }
            pending = next.subtracting(checked)
        }
        for i in objects.indices { objects[i] = objects[i].mapValues { Self.hiding($0, readable) } }
        return objects
    }

    /// The included objects (`{"__type":"Object"}`) at the top of `v`.
    static func collectIncluded(_ v: Value, into found: inout Set<Pointer>) {
        switch v {
        case .typedObject(let c, let fields):
            if case .string(let id)? = fields["objectId"] { found.insert(Pointer(className: c, objectId: id)) }
        case .array(let items): for i in items { collectIncluded(i, into: &found) }
        case .object(let o): for i in o.values { collectIncluded(i, into: &found) }
        default: break
        }
    }

    /// The included objects directly inside the included object `owner`, wherever it is in `v`.
    static func collectIncluded(_ v: Value, under owner: Pointer, into found: inout Set<Pointer>) {
        switch v {
        case .typedObject(let c, let fields):
            if c == owner.className, fields["objectId"] == .string(owner.objectId) {
                for f in fields.values { collectIncluded(f, into: &found) }
            } else {
                for f in fields.values { collectIncluded(f, under: owner, into: &found) }
            }
        case .array(let items): for i in items { collectIncluded(i, under: owner, into: &found) }
        case .object(let o): for i in o.values { collectIncluded(i, under: owner, into: &found) }
        default: break
        }
    }

    static func hiding(_ v: Value, _ readable: Set<Pointer>) -> Value {
        switch v {
        case .typedObject(let c, let fields):
            guard case .string(let id)? = fields["objectId"], readable.contains(Pointer(className: c, objectId: id)) else {
                if case .string(let id)? = fields["objectId"] { return .pointer(Pointer(className: c, objectId: id)) }
                return .null
            }
            return .typedObject(className: c, fields: fields.mapValues { hiding($0, readable) })
        case .array(let items): return .array(items.map { hiding($0, readable) })
        case .object(let o): return .object(o.mapValues { hiding($0, readable) })
        default: return v
        }
    }

    /// Before an update or delete of one object by a caller that is not the
    /// master key: 101 when the caller cannot read it (or it does not exist),
    /// 403 when it can read but not write it. Returns the condition the
    /// write must carry (`nil` for the master key).
    func writeCondition(_ r: APIRequest, className: String, objectId: String, verb: String) async throws -> Condition? {
        guard let grantees = r.grantees else { return nil }
        let query = Query(className: className, keys: [SelectedKey("ACL")], condition: Condition(.compare("objectId", .equal, .value(.string(objectId)))))
        guard let object = try await storage.find(try Self.prepared(query, as: .grantees(grantees))).objects.first else {
            throw APIError.notFound("101 Object not found: \(className) '\(objectId)'")
        }
        guard ACLRule.grants(object["ACL"], .write, to: grantees) else { throw APIError.forbidden(verb, className, objectId) }
        return Condition.and([ACLRule.condition(.read, grantees: grantees), ACLRule.condition(.write, grantees: grantees)])
    }

    /// An update's or delete's statement for the caller: checked by
    /// ``writeCondition(_:className:objectId:verb:)`` and carrying its condition.
    ///
    /// The write's own condition is the caller's to test: every sub-query
    /// in it reads only what the caller may read, and each `$relatedTo`
    /// whose owner it cannot read is false — exactly as in a find, so a
    /// conditional write tells nothing a find would not.
    func guarded(_ statement: Statement, _ r: APIRequest) async throws -> Statement {
        guard let grantees = r.grantees else { return statement }
        func callers(_ c: Condition?) async throws -> Condition? {
            guard let c else { return nil }
            let restricted = ACLRule.restrictingSubqueries(c, to: grantees)
            return try await hidingUnreadableOwners(restricted, grantees: grantees) ?? restricted
        }
        switch statement {
        case .update(var u):
            guard case .value(.string(let id)) = u.objectId else { throw APIError.invalidQuery("an update names its object by objectId") }
            let own = try await callers(u.condition)
            if let c = try await writeCondition(r, className: u.className, objectId: id, verb: "update") {
                u.condition = Condition.and([c, own].compactMap { $0 })
            }
            return .update(u)
        case .delete(var d):
            guard case .value(.string(let id)) = d.objectId else { throw APIError.invalidQuery("a delete names its object by objectId") }
            let own = try await callers(d.condition)
            if let c = try await writeCondition(r, className: d.className, objectId: id, verb: "delete") {
                d.condition = Condition.and([c, own].compactMap { $0 })
            }
            return .delete(d)
        case .insert, .select: return statement
        }
    }

    static func condition(of s: Statement) -> Condition? {
        switch s {
        case .update(let u): return u.condition
        case .delete(let d): return d.condition
        default: return nil
        }
    }

    static func objectId(of s: Statement) -> String? {
        switch s {
        case .update(let u): if case .value(.string(let id)) = u.objectId { return id }
        case .delete(let d): if case .value(.string(let id)) = d.objectId { return id }
        default: break
        }
        return nil
    }
}
