/// The size limits a query must stay within, so that hostile or runaway input
/// ends with a clear `.limit` error instead of exhausting time, memory or the
/// stack. Every front end enforces them through ``QueryLanguage/parse(_:className:literal:limit:cursor:arguments:variables:limits:)``,
/// the binder through ``Binder/bind(_:parameters:now:limits:)`` (parameters can
/// lengthen lists), and the evaluator when it plans a query.
///
/// The parsers also bound their own recursion while reading (CQL:
/// ``CQLParser/Options``; Usergrid 128 and where-JSON 100 levels; JSON
/// ``JSONReader/defaultMaxDepth``), so 1,000,000 nested parentheses, brackets
/// or `not`s are an error, never a stack overflow.
///
/// ```swift
/// var limits = QueryLimits()
/// limits.maxListLength = 2
/// try QueryLanguage.cql.parse("select * from T where a in (1, 2, 3)", limits: limits)
/// // throws .limit: "the 'in' list has 3 values; the limit is 2" (at 1:23)
/// ```
public struct QueryLimits: Hashable, Sendable {
    /// Query text size in UTF-8 bytes.
    public var maxQueryLength = 1 << 20
    /// Levels of nested conditions (`and`/`or`/`not`, `$elemMatch`,
    /// subqueries), counted across subqueries.
    public var maxNestingDepth = 200
    /// Values in one `in`, `not in`, `all`, `containedBy` or polygon list.
    public var maxListLength = 10_000
    /// Conditions (leaf predicates and `and`/`or`/`not` nodes) in the whole
    /// query, subqueries included.
    public var maxConditions = 10_000
    /// UTF-8 bytes of one regular expression or `like` pattern.
    public var maxPatternLength = 8_192
    /// Levels of subqueries (`in (select ...)`, `$inQuery`, `$select`).
    public var maxSubqueryDepth = 32

    public init() {}

    /// The defaults above.
    public static let `default` = QueryLimits()

    /// Checks the length of a query's text (before it is parsed).
    public func check(text: String) throws(QueryError) {
        let n = text.utf8.count
        guard n <= maxQueryLength else {
            throw QueryError(.limit, "the query is \(n) bytes long; the limit is \(maxQueryLength) bytes",
                             range: SourceRange(maxQueryLength, maxQueryLength + 1), source: text)
        }
    }

    /// Whether no CQL statement of `length` UTF-8 bytes can break a limit
    /// other than the text length, so that its parse need not be walked by
    /// ``check(_:)`` (a saving on every short query).
    ///
    /// In CQL text every condition and every nesting level takes at least one
    /// byte, every list value at least one, every byte of a string (a pattern)
    /// at least one (escapes only shrink), and every subquery level the six
    /// bytes of its `select`. `QueryLimitsTests` checks the bound at each limit.
    func admitsEveryCQLStatement(ofLength length: Int) -> Bool {
        length <= maxNestingDepth && length <= maxConditions && length <= maxListLength
            && length <= maxPatternLength && length < 6 * (maxSubqueryDepth + 2)
    }

    /// Checks a parsed (or bound) query against every limit but the text length.
    public func check(_ query: Query) throws(QueryError) {
        var walk = LimitWalk(limits: self)
        do throws(QueryError) {
            try walk.query(query, depth: 0, subqueryDepth: 0)
        } catch {
            throw query.source.map { error.withSource($0) } ?? error
        }
    }
}

/// One pass over a query's conditions, counting as it goes.
private struct LimitWalk {
    let limits: QueryLimits
    var conditions = 0

    mutating func query(_ q: Query, depth: Int, subqueryDepth: Int) throws(QueryError) {
        guard subqueryDepth <= limits.maxSubqueryDepth else {
            throw QueryError(.limit, "subqueries are nested more than \(limits.maxSubqueryDepth) levels deep", range: q.range)
        }
        if let c = q.condition { try condition(c, depth: depth, subqueryDepth: subqueryDepth) }
    }

    mutating func condition(_ c: Condition, depth: Int, subqueryDepth: Int) throws(QueryError) {
        guard depth < limits.maxNestingDepth else {
            throw QueryError(.limit, "conditions are nested more than \(limits.maxNestingDepth) levels deep", range: c.range)
        }
        conditions += 1
        guard conditions <= limits.maxConditions else {
            throw QueryError(.limit, "the query has more than \(limits.maxConditions) conditions", range: c.range)
        }
        let d = depth + 1
        switch c.predicate {
        case .and(let items), .or(let items):
            for item in items { try condition(item, depth: d, subqueryDepth: subqueryDepth) }
        case .not(let inner), .elementMatch(_, let inner):
            try condition(inner, depth: d, subqueryDepth: subqueryDepth)
        case .in(_, let terms, let negated):
            try list(terms, negated ? "'not in'" : "'in'", c)
        case .all(_, let terms):
            try list(terms, "'all'", c)
        case .containedBy(_, let terms):
            try list(terms, "'containedBy'", c)
        case .withinPolygon(_, let terms):
            try list(terms, "polygon", c)
        case .regex(_, let pattern, _):
            try self.pattern(pattern, "regular expression", c)
        case .like(_, let pattern):
            try self.pattern(pattern, "'like' pattern", c)
        case .text(_, _, let text):
            try self.pattern(.value(.string(text)), "text pattern", c)
        case .select(_, _, let q, _), .inQuery(_, let q, _):
            try query(q, depth: d, subqueryDepth: subqueryDepth + 1)
        case .constant, .compare, .size, .exists, .prefix, .type, .modulo, .fullText, .relatedTo, .relationHolds, .aclGrants, .near,
             .withinBox, .withinCenterSphere, .geoIntersects:
            break
        }
    }

    /// A list's length: its terms, or the elements of the one array bound to it.
    private func list(_ terms: [Term], _ what: String, _ c: Condition) throws(QueryError) {
        var n = terms.count
        if n == 1, case .value(.array(let items)) = terms[0] { n = items.count }
        guard n <= limits.maxListLength else {
            throw QueryError(.limit, "the \(what) list has \(n) values; the limit is \(limits.maxListLength)", range: c.range)
        }
    }

    private func pattern(_ term: Term, _ what: String, _ c: Condition) throws(QueryError) {
        guard case .value(.string(let p)) = term else { return }
        let n = p.utf8.count
        guard n <= limits.maxPatternLength else {
            throw QueryError(.limit, "the \(what) is \(n) bytes long; the limit is \(limits.maxPatternLength) bytes", range: c.range)
        }
    }
}
