/// A query builder in the style of the LeanCloud / AVOS Cloud SDKs'
/// `LCQuery` / `AVQuery`, producing the shared AST (``Query``).
///
/// A value type: every call returns a new builder, so partial queries can be
/// shared and extended. Errors (a NaN, a GeoPoint out of range, a bad regex
/// option, combining queries of different classes) are kept and thrown by
/// ``build()``; the first one wins.
///
/// ```swift
/// let query = try LCQuery("Todo")
///     .where("priority", .greaterThanOrEqualTo(3))
///     .where("title", .prefixedBy("a.b"))
///     .where("createdAt", .descending)
///     .limit(10)
///     .build()
/// try JSONWriter.string(WhereJSONEmitter.emit(query, dialect: .leancloud))
/// // {"className":"Todo","limit":10,"order":"-createdAt",
/// //  "where":{"priority":{"$gte":3},"title":{"$regex":"^\\Qa.b\\E"}}}
/// ```
///
/// Several constraints on one key are all kept (they are ANDed), unlike the
/// SDKs, where a later `equalTo` replaces earlier constraints on the key.
public struct LCQuery: Sendable {
    /// The class queried; `""` means not given (where-JSON then omits `className`).
    public let className: String
    var conditions: [Condition] = []
    var keys: [SelectedKey] = []
    var includes: [FieldPath] = []
    var order: [OrderKey] = []
    var skipTerm: Term?
    var limitTerm: Term?
    var countMode: CountMode = .none
    var error: QueryError?

    /// A query over `className` that matches every object.
    public init(_ className: String) {
        self.className = className
    }

    /// Adds a constraint on `key` (a dotted path such as `"post.author"`).
    ///
    /// `LCQuery("Todo").where("priority", .greaterThanOrEqualTo(3))`
    /// → `{"className":"Todo","where":{"priority":{"$gte":3}}}`
    public func `where`(_ key: String, _ constraint: LCQueryConstraint) -> LCQuery {
        var q = self
        guard q.error == nil else { return q }
        do {
            try q.apply(key, constraint)
        } catch {
            q.error = QueryError(error.kind, "\(constraint.name) on key '\(key)': \(error.message)")
        }
        return q
    }

    /// The SDKs' spelling of ``where(_:_:)``.
    public func whereKey(_ key: String, _ constraint: LCQueryConstraint) -> LCQuery {
        self.where(key, constraint)
    }

    /// At most `n` results: `"limit":n`.
    public func limit(_ n: Int) -> LCQuery {
        updating { (q: inout LCQuery) throws(QueryError) in q.limitTerm = try BuilderSupport.count(n, "limit") }
    }

    /// Skips the first `n` results: `"skip":n`.
    public func skip(_ n: Int) -> LCQuery {
        updating { (q: inout LCQuery) throws(QueryError) in q.skipTerm = try BuilderSupport.count(n, "skip") }
    }

    /// Asks for the number of matches: `.only` (the default) returns just the
    /// count (`"count":1,"limit":0`), `.withResults` the results as well
    /// (`"count":1`); `.none` turns counting off again.
    public func count(_ mode: CountMode = .only) -> LCQuery {
        var q = self
        q.countMode = mode
        return q
    }

    /// Objects that all `queries` match (`{"$and":[...]}` or one merged
    /// object). Like the SDKs, only the conditions are combined: the result
    /// has no keys, includes, order, skip or limit of its own. The queries
    /// must share one class.
    ///
    /// `LCQuery.and(LCQuery("Todo").where("a", .equalTo(1)), LCQuery("Todo").where("b", .equalTo(2)))`
    /// → `{"className":"Todo","where":{"a":1,"b":2}}`
    public static func and(_ queries: LCQuery...) -> LCQuery { and(queries) }

    /// ``and(_:)-(LCQuery...)`` over an array.
    public static func and(_ queries: [LCQuery]) -> LCQuery { combine(queries, "and") }

    /// Objects that some of `queries` match: `{"$or":[...]}`. Only the
    /// conditions are combined; the queries must share one class.
    ///
    /// `LCQuery.or(LCQuery("Todo").where("a", .equalTo(1)), LCQuery("Todo").where("b", .equalTo(2)))`
    /// → `{"className":"Todo","where":{"$or":[{"a":1},{"b":2}]}}`
    public static func or(_ queries: LCQuery...) -> LCQuery { or(queries) }

    /// ``or(_:)-(LCQuery...)`` over an array.
    public static func or(_ queries: [LCQuery]) -> LCQuery { combine(queries, "or") }

    /// The AST, or the first error any call recorded.
    public func build() throws(QueryError) -> Query {
        if let error { throw error }
        return Query(
            className: className, keys: keys, includes: includes, count: countMode,
            condition: condition, order: order, skip: skipTerm, limit: limitTerm
        )
    }

    // MARK: Internals

    /// The conjunction of the constraints, `nil` when there are none.
    var condition: Condition? {
        conditions.isEmpty ? nil : Condition.and(conditions)
    }

    private func updating(_ change: (inout LCQuery) throws(QueryError) -> Void) -> LCQuery {
        var q = self
        guard q.error == nil else { return q }
        do { try change(&q) } catch { q.error = error }
        return q
    }

    private mutating func apply(_ key: String, _ constraint: LCQueryConstraint) throws(QueryError) {
        let kind = try constraint.kind.get()
        if case .selected = kind, key.hasPrefix("-") {
            keys.append(SelectedKey(try BuilderSupport.path(String(key.dropFirst())), excluded: true))
            return
        }
        let path = try BuilderSupport.path(key)
        let predicate: Predicate
        switch kind {
        case .compare(let op, let v): predicate = .compare(path, op, .value(v))
        case .membership(let list, let negated): predicate = .in(path, list.map(Term.value), negated: negated)
        case .all(let list): predicate = .all(path, list.map(Term.value))
        case .size(let n): predicate = .size(path, .value(.int(n)))
        case .exists(let present): predicate = .exists(path, present)
        case .regex(let pattern, let options): predicate = .regex(path, pattern: .value(.string(pattern)), options: options)
        case .inQuery(let sub, let negated): predicate = .inQuery(path, query: sub, negated: negated)
        case .select(let subKey, let sub, let negated): predicate = .select(path, key: subKey, query: sub, negated: negated)
        case .relatedTo(let object): predicate = .relatedTo(object: .value(.pointer(object)), key: key)
        case .near(let p, let lo, let hi): predicate = .near(path, point: .value(.geoPoint(p)), min: lo, max: hi)
        case .withinBox(let sw, let ne):
            predicate = .withinBox(path, southwest: .value(.geoPoint(sw)), northeast: .value(.geoPoint(ne)))
        case .selected: keys.append(SelectedKey(path)); return
        case .included: includes.append(path); return
        case .ascending: order.append(OrderKey(path)); return
        case .descending: order.append(OrderKey(path, descending: true)); return
        }
        conditions.append(Condition(predicate))
    }

    private static func combine(_ queries: [LCQuery], _ operation: String) -> LCQuery {
        guard let first = queries.first else {
            var q = LCQuery("")
            q.error = BuilderSupport.invalid("LCQuery.\(operation) needs at least one query")
            return q
        }
        var result = LCQuery(first.className)
        var parts: [Condition] = []
        var matchesAll = false
        for q in queries {
            if let error = q.error {
                result.error = error
                return result
            }
            guard q.className == first.className else {
                result.error = BuilderSupport.invalid(
                    "LCQuery.\(operation) combines queries of one class; found '\(first.className)' and '\(q.className)'"
                )
                return result
            }
            if let c = q.condition { parts.append(c) } else { matchesAll = true }
        }
        if operation == "and" {
            if !parts.isEmpty { result.conditions = [Condition.and(parts)] }
        } else if !matchesAll {
            // A query without conditions matches everything, and so does any
            // disjunction that contains one.
            result.conditions = [Condition.or(parts)]
        }
        return result
    }
}
