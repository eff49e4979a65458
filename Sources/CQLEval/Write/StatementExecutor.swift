import CQLKit

/// One object a write created, changed or deleted.
public struct ObjectChange: Sendable, Equatable {
    public var className: String
    public var objectId: String
    /// `nil` for a creation.
    public var before: [String: Value]?
    /// `nil` for a deletion.
    public var after: [String: Value]?

    public init(className: String, objectId: String, before: [String: Value]?, after: [String: Value]?) {
        self.className = className
        self.objectId = objectId
        self.before = before
        self.after = after
    }
}

/// What a write did.
public struct WriteResult: Sendable, Equatable {
    public enum Kind: String, Sendable {
        case created, updated, deleted
    }
    public var kind: Kind
    /// Objects created, updated or deleted (join rows are not counted).
    public var count: Int
    /// The objects of the statement's class, in the order written.
    public var changes: [ObjectChange]
    /// Every collection the write changed, join collections included
    /// (what a data directory must rewrite).
    public var changedClasses: Set<String>

    public init(kind: Kind, count: Int, changes: [ObjectChange], changedClasses: Set<String>) {
        self.kind = kind
        self.count = count
        self.changes = changes
        self.changedClasses = changedClasses
    }

    /// `{"created":N}`, `{"updated":N}` or `{"deleted":N}`.
    public var summary: Value { .object([kind.rawValue: .int(Int64(count))]) }
}

/// Applies a bound write statement to a ``DocumentStore`` with the meaning
/// of CQL.md: inserts get a fresh unique objectId and createdAt = updatedAt
/// = now; updates apply their values and ops in order and set updatedAt;
/// relation ops edit the `_Join:<key>:<Class>` rows (`owningId`,
/// `relatedId`); a delete also drops the join rows its object owns.
///
/// A statement applies completely or not at all: it works on a copy and the
/// store changes only when every step succeeded. An update or delete of a
/// missing object is error 101; one whose extra condition does not hold is
/// error 305 (the REST codes, at the start of the message).
///
/// ```swift
/// var store = DocumentStore(["Account": [["objectId": "a1", "amount": 120]]])
/// let now = DateValue(millisecondsSince1970: 0)
/// let s = try Binder.bind(try CQLParser.parseStatement(
///     "update Account set amount = op('Decrement', {'amount': 50}) where objectId = 'a1' and amount >= 100"), parameters: [])
/// try StatementExecutor.apply(s, to: &store, now: now).summary    // {"updated":1}; amount is 70
/// try StatementExecutor.apply(s, to: &store, now: now)
/// // 1:87: 305 No effect on updating a document: the condition does not hold for Account 'a1'
/// ```
public enum StatementExecutor {
    /// - Parameters:
    ///   - statement: the bound write statement.
    ///   - store: the collections it changes: all of it, or none when it throws.
    ///   - now: the instant written as createdAt / updatedAt.
    ///   - newObjectId: makes objectIds for inserts (default: 24 random hex
    ///     digits, as LeanCloud's); one already in the class is drawn again.
    public static func apply(
        _ statement: Statement, to store: inout DocumentStore, now: DateValue,
        newObjectId: () -> String = StatementExecutor.randomObjectId
    ) throws(QueryError) -> WriteResult {
        var working = store
        let result: WriteResult
        do throws(QueryError) {
            switch statement {
            case .select(let q):
                throw QueryError(.unsupported, "a select is a query: evaluate it, do not execute it", range: q.range)
            case .insert(let s): result = try insert(s, into: &working, now: now, newObjectId: newObjectId)
            case .update(let s): result = try update(s, in: &working, now: now)
            case .delete(let s): result = try delete(s, from: &working)
            }
        } catch {
            throw statement.source.map { error.withSource($0) } ?? error
        }
        store = working
        return result
    }

    /// 24 lowercase hex digits from the system's random generator.
    public static func randomObjectId() -> String {
        var g = SystemRandomNumberGenerator()
        let hex = Array("0123456789abcdef")
        return String((0..<24).map { _ in hex[Int(g.next() % 16)] })
    }

    // MARK: insert

    static func insert(_ s: InsertStatement, into store: inout DocumentStore, now: DateValue,
                       newObjectId: () -> String) throws(QueryError) -> WriteResult {
        let stamp = Value.string(ISODate.format(now))
        var created: [[String: Value]] = []
        var ids = Set<String>()
        var changes: [ObjectChange] = []
        for i in s.rows.indices {
            var object: [String: Value] = [:]
            for (column, term) in zip(s.columns, s.rows[i]) { object[column.name] = try value(term, s.range) }
            var id = newObjectId()
            var attempts = 1
            while id.isEmpty || ids.contains(id) || store.object(className: s.className, objectId: id) != nil {
                guard attempts < 100 else {
                    throw QueryError(.data, "could not draw a fresh objectId for \(s.className) in 100 attempts", range: s.range)
                }
                id = newObjectId()
                attempts += 1
            }
            ids.insert(id)
            object["objectId"] = .string(id)
            object["createdAt"] = stamp
            object["updatedAt"] = stamp
            created.append(object)
            changes.append(ObjectChange(className: s.className, objectId: id, before: nil, after: object))
        }
        store.add(created, to: s.className)
        return WriteResult(kind: .created, count: created.count, changes: changes, changedClasses: [s.className])
    }

    // MARK: update

    static func update(_ s: UpdateStatement, in store: inout DocumentStore, now: DateValue) throws(QueryError) -> WriteResult {
        let (id, before) = try target(s.className, s.objectId, s.condition, s.objectIdRange, store, verb: "updating")
        var object = before
        var changed: Set<String> = [s.className]
        for a in s.assignments {
            let key = a.key.name
            switch a.change {
            case .set(let t):
                object[key] = try value(t, a.range)
            case .operation(let op):
                object[key] = try FieldOperations.apply(op, key: key, to: object[key], range: a.range)
                if op.kind == .addRelation || op.kind == .removeRelation {
                    if try editRelation(op, key: key, owner: s.className, objectId: id, in: &store, range: a.range) {
                        changed.insert(joinClass(key: key, owner: s.className))
                    }
                }
            }
        }
        object["updatedAt"] = .string(ISODate.format(now))
        store.replace(className: s.className, objectId: id, with: object)
        return WriteResult(kind: .updated, count: 1, changes: [ObjectChange(className: s.className, objectId: id, before: before, after: object)],
                           changedClasses: changed)
    }

    /// `_Join:<key>:<Owner>`, the collection of the relation `key` of `Owner`.
    public static func joinClass(key: String, owner: String) -> String { "_Join:\(key):\(owner)" }

    /// Adds or removes the join rows of `objectId` for the op's Pointers.
    /// - Returns: whether the join collection changed.
    static func editRelation(_ op: FieldOperation, key: String, owner: String, objectId: String,
                             in store: inout DocumentStore, range: SourceRange?) throws(QueryError) -> Bool {
        guard case .array(let objects)? = op.argument?.value else { return false }
        let join = joinClass(key: key, owner: owner)
        var related: [String] = []
        for o in objects { if case .pointer(let p) = o { related.append(p.objectId) } }
        func isRow(_ row: [String: Value], _ rid: String) -> Bool {
            row["owningId"] == .string(objectId) && row["relatedId"] == .string(rid)
        }
        if op.kind == .removeRelation {
            let gone = Set(related)
            return store.removeAll(in: join) { row in
                guard row["owningId"] == .string(objectId), case .string(let rid)? = row["relatedId"] else { return false }
                return gone.contains(rid)
            } > 0
        }
        var rows: [[String: Value]] = []
        var seen = Set<String>()
        let existing = store.objects(in: join)
        for rid in related where seen.insert(rid).inserted && !existing.contains(where: { isRow($0, rid) }) {
            rows.append(["owningId": .string(objectId), "relatedId": .string(rid)])
        }
        guard !rows.isEmpty else { return false }
        store.add(rows, to: join)
        return true
    }

    // MARK: delete

    static func delete(_ s: DeleteStatement, from store: inout DocumentStore) throws(QueryError) -> WriteResult {
        let (id, before) = try target(s.className, s.objectId, s.condition, s.objectIdRange, store, verb: "deleting")
        var changed: Set<String> = [s.className]
        var removedOne = false
        store.removeAll(in: s.className) { o in
            // Only the first occurrence, which is the object the index names.
            guard !removedOne, o["objectId"] == .string(id) else { return false }
            removedOne = true
            return true
        }
        // The relations the object owns go with it.
        let suffix = ":" + s.className
        for name in store.classNames where name.hasPrefix("_Join:") && name.hasSuffix(suffix) {
            if store.removeAll(in: name, where: { $0["owningId"] == .string(id) }) > 0 { changed.insert(name) }
        }
        return WriteResult(kind: .deleted, count: 1, changes: [ObjectChange(className: s.className, objectId: id, before: before, after: nil)],
                           changedClasses: changed)
    }

    // MARK: Shared

    /// The object an update or delete names, after checking it exists (101)
    /// and that the extra condition holds (305).
    static func target(_ className: String, _ idTerm: Term, _ condition: Condition?, _ idRange: SourceRange?,
                       _ store: DocumentStore, verb: String) throws(QueryError) -> (String, [String: Value]) {
        guard case .string(let id) = try value(idTerm, idRange) else {
            throw QueryError(.invalidValue, "objectId must be a string", range: idRange)
        }
        guard let object = store.object(className: className, objectId: id) else {
            throw QueryError(.data, "101 Object not found: \(className) has no object with objectId '\(id)'", range: idRange)
        }
        if let condition {
            let plan = try QueryPlan(Query(className: className, condition: condition), store: store)
            guard try plan.matches(object) else {
                throw QueryError(.data, "305 No effect on \(verb) a document: the condition does not hold for \(className) '\(id)'",
                                 range: condition.range)
            }
        }
        return (id, object)
    }

    static func value(_ t: Term, _ range: SourceRange?) throws(QueryError) -> Value {
        guard case .value(let v) = t else {
            throw QueryError(.binding, "the statement is not bound: a '?' or current_timestamp() has no value", range: range)
        }
        return v
    }
}

extension ChangeMatcher {
    /// The LiveQuery events a write produces for this subscription: one per
    /// changed object of the subscribed class that the subscriber hears, in
    /// the order written.
    ///
    /// ```swift
    /// var store = try DocumentStore.load(path: "Corpus/data")
    /// let m = try ChangeMatcher(try CQLParser.parse("select * from GameScore where score > 1000"), store: store)
    /// let s = try Binder.bind(try CQLParser.parseStatement("update GameScore set score = 10 where objectId = 'gs01'"), parameters: [])
    /// try m.events(for: try StatementExecutor.apply(s, to: &store, now: now))   // [("gs01", .leave)]
    /// ```
    public func events(for result: WriteResult) throws(QueryError) -> [(objectId: String, event: Event)] {
        var out: [(objectId: String, event: Event)] = []
        for c in result.changes where c.className == plan.query.className {
            if let e = try event(before: c.before, after: c.after) { out.append((c.objectId, e)) }
        }
        return out
    }
}
