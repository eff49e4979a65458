import CQLKit

/// A bound query compiled once for in-memory evaluation over a
/// ``DocumentStore`` (EvaluationSemantics.md is the contract).
///
/// Everything that can be wrong with the query — an unbound placeholder, a
/// bad regular expression or option, a GeoPoint out of range, an inverted
/// `near` range — is raised by `init`, before any object is looked at. Subqueries
/// (`$inQuery`, `$select`) and relations run in `init` too.
///
/// The plan is immutable and `Sendable`: several threads may call
/// ``matches(_:)`` or ``run()`` at once (each call has its own regex match
/// data).
///
/// ```swift
/// let store = DocumentStore(["GameScore": [
///     ["objectId": "a", "score": 90], ["objectId": "b", "score": 70], ["objectId": "c", "score": 95.5],
/// ]])
/// let query = Query(className: "GameScore",
///                   condition: Condition(.compare("score", .greaterThan, .value(80))),
///                   order: [OrderKey("score", descending: true)])
/// let plan = try QueryPlan(query, store: store)
/// try plan.run().objects.map { $0["objectId"] }     // ["c", "a"]
/// try plan.matches(["score": 81])                   // true
/// ```
public final class QueryPlan: Sendable {
    /// The query this plan was built from.
    public let query: Query
    let store: DocumentStore
    let condition: Node
    /// The condition as direct key lookups, when it is a conjunction of plain
    /// top-level tests (the fast path of ``matches(_:_:)``).
    let rootClauses: RootClauses?
    let ordering: Ordering
    let skip: Int
    let limit: Int?
    let includer: Includer
    let projection: Projection?
    /// The query text, for match-time errors.
    let source: String?

    /// Plans `query` (already bound: see `Binder.bind`) against `store`.
    ///
    /// - Parameter query: the bound query.
    /// - Parameter store: the collections it reads (its class, subqueries,
    ///   relations, include).
    /// - Parameter source: the query text, attached to errors so they render
    ///   with line, column and caret; defaults to `query.source` (set by the
    ///   parsers).
    /// - Parameter limits: query sizes, subquery rows and regex work
    ///   (``EvaluationLimits``).
    /// - Throws: `QueryError` (`.binding`, `.pattern`, `.invalidValue`, `.limit`).
    public convenience init(
        _ query: Query, store: DocumentStore = DocumentStore(), source: String? = nil, limits: EvaluationLimits = .default
    ) throws(QueryError) {
        do throws(QueryError) {
            try limits.query.check(query)
        } catch {
            throw (source ?? query.source).map { error.withSource($0) } ?? error
        }
        // A relation key compared with a Pointer reads the store's join collection (EvaluationSemantics, "Relation keys").
        let query = query.resolvingRelationKeys { store.collections[$0] != nil } ?? query
        try self.init(query, store: store, source: source ?? query.source, subqueryDepth: 0, limits: limits)
    }

    init(_ query: Query, store: DocumentStore, source: String?, subqueryDepth: Int, limits: EvaluationLimits) throws(QueryError) {
        let planner = Planner(store: store, source: source, subqueryDepth: subqueryDepth, limits: limits)
        var node = Node.constant(true)
        if let condition = query.condition { node = try planner.plan(condition) }
        if !query.direct.isEmpty {
            // Usergrid `direct name, uuid`: entities by objectId, uuid or name.
            let set = MemberSet(query.direct)
            let byId = Planner.or(["objectId", "uuid", "name"].map { Node.member(Accessor(FieldPath([$0])), set) })
            node = Planner.and([byId, node])
        }
        self.query = query
        self.store = store
        self.condition = node
        self.rootClauses = RootClauses(node)
        self.skip = try planner.count(query.skip, what: "skip", range: query.range) ?? 0
        self.limit = try planner.count(query.limit, what: "limit", range: query.range)
        let near = query.order.isEmpty ? QueryPlan.firstNear(node) : nil
        self.ordering = Ordering(
            keys: query.order.map { Ordering.Key(path: Accessor($0.path), descending: $0.descending) },
            nearPath: near?.0, nearCenter: near?.1)
        self.includer = Includer(paths: query.includes.map(\.components), store: store)
        self.projection = Projection(query.keys, keepingACL: query.returnACL)
        self.source = source
    }

    /// The first `near` of the condition (depth first), which orders results
    /// nearest first when the query has no explicit order.
    private static func firstNear(_ node: Node) -> (Accessor, GeoPoint)? {
        switch node {
        case .geo(let path, .near(let center, _, _)): return (path, center)
        case .and(let nodes), .or(let nodes):
            for n in nodes { if let found = firstNear(n) { return found } }
            return nil
        case .not(let n): return firstNear(n)
        default: return nil
        }
    }

    /// Whether results come in input order (no `order`, no `near`), so they
    /// can be streamed.
    public var preservesInputOrder: Bool { ordering.isEmpty }

    /// Whether one object satisfies the condition (only the condition:
    /// order, paging and projection do not apply).
    ///
    /// ```swift
    /// try plan.matches(["score": 81])   // true for `score > 80`
    /// ```
    /// - Throws: `.pattern` when a regular expression exceeds its match limit.
    public func matches(_ object: [String: Value]) throws(QueryError) -> Bool {
        let context = EvalContext()
        return try matches(object, context)
    }

    @inline(__always)
    func matches(_ object: [String: Value], _ context: EvalContext) throws(QueryError) -> Bool {
        // Its tests cannot fail (no regex), so there is no failure to check.
        if let rootClauses { return rootClauses.matches(object) }
        let r = condition.matches(.object(object), context)
        try throwFailure(context)
        return r
    }

    /// Throws the error a predicate recorded, placed in the query.
    @inline(__always)
    func throwFailure(_ context: EvalContext) throws(QueryError) {
        if let failure = context.failure {
            var e = failure
            if e.range == nil { e.range = query.condition?.range }
            if e.source == nil { e.source = source }
            throw e
        }
    }

    /// Runs the query over the store's collection of `query.className`.
    ///
    /// - Throws: `.pattern` when a regular expression exceeds its match
    ///   limit; `.data` when two order keys reach two different arrays of one
    ///   matching object (MongoDB's "parallel arrays": `order by a, b` over
    ///   `{"a": [1], "b": [2]}`), naming both keys and the object.
    public func run() throws(QueryError) -> QueryResult {
        try run(over: store.objects(in: query.className))
    }

    /// Runs the query over `objects` (subqueries and `include` still use the store).
    ///
    /// Order: filter, sort (or nearest first), count, skip, limit, include,
    /// keys. `count` is the number of matches before skip and limit.
    public func run(over objects: some Sequence<[String: Value]>) throws(QueryError) -> QueryResult {
        // A caller in another module reaches this generic unspecialized, and
        // then every element costs protocol-witness calls (iterator, copies).
        // Arrays, the usual input, take the specialized path.
        let needsTotal = query.count != .none
        // `count(*)` alone returns no objects: none are gathered.
        let keeps = query.count != .only
        if let array = objects as? [[String: Value]] {
            return shaped(try page(array, needsTotal: needsTotal, keepingObjects: keeps))
        }
        return shaped(try page(objects, needsTotal: needsTotal, keepingObjects: keeps))
    }

    private func shaped(_ window: Window) -> QueryResult {
        var out: [[String: Value]] = []
        if query.count != .only && includer.isEmpty && projection == nil {
            out = window.objects  // nothing to shape: the matches as they are, not copied one by one
        } else if query.count != .only {
            out.reserveCapacity(window.objects.count)
            for o in window.objects { out.append(shape(o)) }
        }
        let total = window.total
        let nextSkip = window.hasMore ? skip + window.count : nil
        return QueryResult(objects: out, count: query.count == .none ? nil : total, nextSkip: nextSkip)
    }

    /// Include, then keys: what one result looks like.
    func shape(_ object: [String: Value]) -> [String: Value] {
        var o = object
        if !includer.isEmpty { o = includer.apply(o) }
        if let projection { o = projection.apply(o) }
        return o
    }

    /// Matches in result order after skip and limit, unshaped (subqueries).
    func orderedMatches() throws(QueryError) -> [[String: Value]] {
        try page(store.objects(in: query.className), needsTotal: false, keepingObjects: true).objects
    }

    private struct Window {
        /// The matches in the window (none when not kept).
        var objects: [[String: Value]]
        /// How many matches the window holds (kept or not).
        var count: Int
        var total: Int
        var hasMore: Bool
    }

    /// The matches of an unordered scan, as they come, into the window.
    private struct WindowTaker {
        let skip: Int
        let end: Int?
        let needsTotal: Bool
        let keepingObjects: Bool
        var objects: [[String: Value]] = []
        var count = 0
        var total = 0

        /// Takes a match; returns whether the scan can stop: past the
        /// window and one beyond it (to know there is more), only the count
        /// could still change.
        @inline(__always)
        mutating func take(_ object: [String: Value]) -> Bool {
            if total >= skip && (end.map { total < $0 } ?? true) {
                if keepingObjects { objects.append(object) }
                count += 1
            }
            total += 1
            if !needsTotal, let end, total > end { return true }
            return false
        }

        var window: Window {
            Window(objects: objects, count: count, total: total, hasMore: end.map { total > $0 } ?? false)
        }
    }

    private func page(
        _ objects: some Sequence<[String: Value]>, needsTotal: Bool, keepingObjects: Bool
    ) throws(QueryError) -> Window {
        let context = EvalContext()
        let end = limit.map { skip.addingReportingOverflow($0).overflow ? Int.max : skip + $0 }
        if ordering.isEmpty {
            var taker = WindowTaker(skip: skip, end: end, needsTotal: needsTotal, keepingObjects: keepingObjects)
            if let clauses = rootClauses, let array = objects as? [[String: Value]] {
                // The clauses cannot fail (no regex: no context, nothing to
                // throw), and each object is borrowed from the array's
                // storage, not copied (retained) for the test.
                taker = array.withUnsafeBufferPointer { [taker] buffer in
                    var t = taker
                    for i in buffer.indices where clauses.matches(buffer[i]) {
                        if t.take(buffer[i]) { break }
                    }
                    return t
                }
            } else {
                for object in objects {
                    guard try matches(object, context) else { continue }
                    if taker.take(object) { break }
                }
            }
            return taker.window
        }
        var entries: [Ordering.Entry] = []
        var total = 0
        var heap = end.map { BoundedHeap<Ordering.Entry>(capacity: $0, precedes: ordering.precedes) }
        for (index, object) in objects.enumerated() {
            guard try matches(object, context) else { continue }
            let e = try ordering.entry(object, index: index)
            total += 1
            if heap != nil { heap?.offer(e) } else { entries.append(e) }
        }
        let sorted = heap?.sortedElements() ?? ordering.sorted(entries, keepingFirst: nil)
        let window = sorted.dropFirst(skip).map(\.object)
        return Window(objects: window, count: window.count, total: total, hasMore: end.map { total > $0 } ?? false)
    }
}

/// What ``QueryPlan/run()`` returns.
public struct QueryResult: Sendable, Equatable {
    /// The results in order, after skip/limit, include and keys. Empty for
    /// `select count(*)` alone.
    public var objects: [[String: Value]]
    /// The number of matches before skip/limit, when the query asked for a
    /// count (`count(*)`, `count=1`); else `nil`.
    public var count: Int?
    /// The `skip` of the next page when more matches follow this one (what a
    /// Usergrid cursor encodes); `nil` on the last page.
    public var nextSkip: Int?

    /// The Usergrid cursor of the next page (`UsergridOptions.cursor(offset:)`
    /// of ``nextSkip``), to pass back as `UsergridOptions.cursor`.
    public var nextCursor: String? { nextSkip.map { UsergridOptions.cursor(offset: Int64($0)) } }

    public init(objects: [[String: Value]], count: Int? = nil, nextSkip: Int? = nil) {
        self.objects = objects
        self.count = count
        self.nextSkip = nextSkip
    }
}
