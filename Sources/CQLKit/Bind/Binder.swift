/// Gives a parsed query its parameter values and finishes its typed values.
///
/// - Each `?` (numbered 0-based across the whole statement, subqueries
///   included) becomes `parameters[index]`. Parameters may be decoded values
///   or raw REST JSON (`{"__type":"Date","iso":...}`): they are decoded here.
/// - `.call` terms are evaluated (`date(?)`, `geopoint(?, ?)`, ...), with the
///   same checks as constant calls at parse time.
/// - With `now`, `current_timestamp()` and relative times become dates;
///   without it they stay (relative times are still checked).
/// - Operands are validated: `limit`/`skip`/`size` are non-negative
///   integers, `near`/`within` points GeoPoints (`[lng, lat]` arrays are
///   converted), distances non-negative numbers, patterns strings (a regexp's
///   leading `(?imsx)` becomes its options), `related ... to` a Pointer.
///
/// ```swift
/// let q = try CQLParser.parse("select * from T where at < date(?) and loc near ? limit ?")
/// let b = try Binder.bind(q, parameters: ["2015-06-21T18:02:52.249Z", [116.4, 39.9], 10])
/// // at < Date(2015-06-21T18:02:52.249Z), loc near GeoPoint(lat 39.9, lng 116.4), limit 10
/// try Binder.bind(q, parameters: ["2015-06-21"])
/// // 1:49: no value for the 2nd '?': the query has 3 placeholders but 1 value was given
/// ```
public enum Binder {
    /// The query with every placeholder replaced and every call evaluated.
    /// - Throws: ``QueryError`` (`.binding` when the number of values does not
    ///   match the placeholders, `.invalidValue` for a bad value), positioned at
    ///   the placeholder or construct concerned, with the query's source;
    ///   `.limit` when a bound list or pattern exceeds `limits`.
    public static func bind(
        _ query: consuming Query, parameters: [Value], now: DateValue? = nil, limits: QueryLimits = .default
    ) throws(QueryError) -> Query {
        // Nothing to bind: the query as it is (consumed, so moved out rather
        // than copied field by field), without rebuilding the tree
        // (see UnchangedByBinding for when that is exactly what binding gives).
        if parameters.isEmpty && UnchangedByBinding.check(query) { return query }
        do throws(QueryError) {
            let ranges = PlaceholderScan.ranges(in: query)
            let count = query.placeholderCount
            try checkCount(parameters.count, placeholders: count, ranges: ranges, whole: query.range)
            var decoded: [Value] = []
            decoded.reserveCapacity(parameters.count)
            for (i, p) in parameters.enumerated() {
                do {
                    decoded.append(try p.decodingTypedValues())
                } catch {
                    let at = error.path.map { " at \($0)" } ?? ""
                    throw QueryError(.invalidValue, "invalid value for the \(TypedFunctions.ordinal(i + 1)) '?'\(at): \(error.message)",
                                     range: ranges[i] ?? query.range)
                }
            }
            var bound: Query
            do {
                bound = try BindingContext(parameters: decoded, now: now).bind(query)
            } catch let error as QueryError {
                throw error
            } catch {
                throw QueryError(.binding, "internal error: \(error)", range: query.range)
            }
            bound.source = query.source
            if !parameters.isEmpty { try limits.check(bound) }
            return bound
        } catch {
            throw query.source.map { error.withSource($0) } ?? error
        }
    }

    /// Whether binding `query` with no parameters gives it back as it is:
    /// every term a value, no placeholder, no call and no time function
    /// (`now()`, `$relativeTime`). Its meaning then depends on nothing
    /// outside it, so a server may keep it prepared. `false` is always safe
    /// (some queries that binding would not change answer `false`).
    ///
    /// ```swift
    /// Binder.isUnchangedByBinding(try WhereJSONReader.read(.object(["className": "T", "where": ["n": 1]])))   // true
    /// Binder.isUnchangedByBinding(try CQLParser.parse("select * from T where d < now()"))                     // false
    /// ```
    public static func isUnchangedByBinding(_ query: Query) -> Bool { UnchangedByBinding.check(query) }

    static func checkCount(_ given: Int, placeholders count: Int, ranges: [Int: SourceRange], whole: SourceRange?, noun: String = "query") throws(QueryError) {
        func plural(_ n: Int, _ word: String) -> String { n == 1 ? "1 \(word)" : "\(n) \(word)s" }
        let values = given == 1 ? "1 value was given" : "\(given) values were given"
        if given > count {
            let has = count == 0 ? "no placeholders" : plural(count, "placeholder")
            throw QueryError(.binding, "too many values: the \(noun) has \(has) but \(values)",
                             range: count > 0 ? (ranges[count - 1] ?? whole) : whole)
        }
        if given < count {
            throw QueryError(.binding, "no value for the \(TypedFunctions.ordinal(given + 1)) '?': the \(noun) has \(plural(count, "placeholder")) but \(given == 0 ? "no values were given" : values)",
                             range: ranges[given] ?? whole)
        }
    }
}

/// The recursive rewrite; `parameters` are decoded and their number checked.
///
/// Like the parser, a class with untyped `throws` inside (every error is a
/// ``QueryError``; `Binder.bind(_:parameters:now:)` restores the type), and
/// the recursive functions only dispatch: leaf predicates are bound in a
/// separate function, so one nesting level of subqueries costs little stack.
final class BindingContext {
    let parameters: [Value]
    let now: DateValue?

    init(parameters: [Value], now: DateValue?) {
        self.parameters = parameters
        self.now = now
    }

    @inline(never)
    func bind(_ q: Query) throws -> Query {
        var q = q
        if let c = q.condition { q.condition = try bind(c) }
        if let s = q.skip { q.skip = try bindCount(s, what: "skip", fallback: q.range) }
        if let l = q.limit { q.limit = try bindCount(l, what: "limit", fallback: q.range) }
        return q
    }

    /// Where an error about term `t` points.
    static func range(of t: Term, fallback: SourceRange?) -> SourceRange? {
        switch t {
        case .placeholder(_, let r): return r ?? fallback
        case .call(_, _, let r): return r ?? fallback
        default: return fallback
        }
    }

    func bind(_ t: Term, fallback: SourceRange?) throws -> Term {
        switch t {
        case .value:
            return t
        case .placeholder(let i, let r):
            guard i >= 0, i < parameters.count else {
                throw QueryError(.binding, "no value for the \(TypedFunctions.ordinal(i + 1)) '?'", range: r ?? fallback)
            }
            return .value(parameters[i])
        case .array(let items):
            var out: [Term] = []
            for x in items { out.append(try bind(x, fallback: fallback)) }
            return CQLParserState.arrayTerm(out)
        case .call(let f, let args, let r):
            var out: [Term] = []
            var values: [Value] = []
            var ranges: [SourceRange?] = []
            for a in args {
                let b = try bind(a, fallback: fallback)
                out.append(b)
                if case .value(let v) = b { values.append(v) }
                ranges.append(BindingContext.range(of: a, fallback: r ?? fallback))
            }
            guard values.count == out.count else { return .call(f, out, range: r) }
            return .value(try TypedFunctions.evaluate(f, values, argRanges: ranges, callRange: r ?? fallback))
        case .currentTimestamp:
            return now.map { .value(.date($0)) } ?? t
        case .relativeTime(let text):
            guard let now else {
                _ = try RelativeTime.offset(text, range: fallback)
                return t
            }
            return .value(.date(try RelativeTime.resolve(text, now: now, range: fallback)))
        }
    }

    func bind(_ items: [Term], fallback: SourceRange?) throws -> [Term] {
        var out: [Term] = []
        out.reserveCapacity(items.count)
        for x in items { out.append(try bind(x, fallback: fallback)) }
        return out
    }

    /// A count (`limit`, `skip`, `size(k) = n`): a non-negative integer. A
    /// whole double (`2.0`, as JSON parameters often carry numbers) is that
    /// integer, as MongoDB, the where-JSON reader and the evaluator read it.
    func bindCount(_ t: Term, what: String, fallback: SourceRange?) throws -> Term {
        var b = try bind(t, fallback: fallback)
        if case .value(let v) = b {
            b = .value(OperandChecks.wholeCount(v))
            if case .value(let n) = b { try OperandChecks.count(n, what: what, range: BindingContext.range(of: t, fallback: fallback)) }
        }
        return b
    }

    func bindGeo(_ t: Term, what: String, fallback: SourceRange?) throws -> Term {
        let b = try bind(t, fallback: fallback)
        guard case .value(let v) = b else { return b }
        return .value(.geoPoint(try OperandChecks.geoPoint(v, what: what, range: BindingContext.range(of: t, fallback: fallback))))
    }

    func bindDistance(_ t: Term, fallback: SourceRange?) throws -> Term {
        let b = try bind(t, fallback: fallback)
        if case .value(let v) = b { try OperandChecks.distance(v, range: BindingContext.range(of: t, fallback: fallback)) }
        return b
    }

    @inline(never)
    func bind(_ c: Condition) throws -> Condition {
        switch c.predicate {
        case .and(let items): return Condition(.and(try bind(items)), range: c.range)
        case .or(let items): return Condition(.or(try bind(items)), range: c.range)
        case .not(let inner): return Condition(.not(try bind(inner)), range: c.range)
        case .elementMatch(let path, let inner): return Condition(.elementMatch(path, try bind(inner)), range: c.range)
        case .select, .inQuery: return Condition(try bindSubquery(c.predicate), range: c.range)
        case .constant, .compare, .in, .all, .size, .exists, .regex, .like, .prefix, .text, .containedBy, .type,
             .modulo, .fullText, .relatedTo, .relationHolds, .aclGrants, .near, .withinBox, .withinPolygon, .withinCenterSphere,
             .geoIntersects: return Condition(try bindLeaf(c.predicate, range: c.range), range: c.range)
        }
    }

    @inline(never)
    func bind(_ items: [Condition]) throws -> [Condition] {
        var out: [Condition] = []
        out.reserveCapacity(items.count)
        for x in items { out.append(try bind(x)) }
        return out
    }

    @inline(never)
    func bindSubquery(_ p: Predicate) throws -> Predicate {
        switch p {
        case .select(let path, let key, let q, let negated): return .select(path, key: key, query: try bind(q), negated: negated)
        case .inQuery(let path, let q, let negated): return .inQuery(path, query: try bind(q), negated: negated)
        case .and, .or, .not, .constant, .compare, .in, .all, .size, .exists, .regex, .like, .prefix, .text,
             .containedBy, .elementMatch, .type, .modulo, .fullText, .relatedTo, .relationHolds, .aclGrants, .near, .withinBox,
             .withinPolygon, .withinCenterSphere, .geoIntersects: return p
        }
    }

    /// Predicates without nested conditions or queries.
    @inline(never)
    func bindLeaf(_ predicate: Predicate, range r: SourceRange?) throws -> Predicate {
        let p: Predicate
        switch predicate {
        case .and, .or, .not, .elementMatch, .select, .inQuery, .constant, .exists, .text, .type, .fullText, .prefix, .aclGrants: p = predicate
        case .compare(let path, let op, let t): p = .compare(path, op, try bind(t, fallback: r))
        case .in(let path, let items, let negated): p = .in(path, try bind(items, fallback: r), negated: negated)
        case .all(let path, let items): p = .all(path, try bind(items, fallback: r))
        case .containedBy(let path, let items): p = .containedBy(path, try bind(items, fallback: r))
        case .size(let path, let t): p = .size(path, try bindCount(t, what: "the n of size(k) = n", fallback: r))
        case .like(let path, let t):
            let b = try bind(t, fallback: r)
            if case .value(let v) = b { _ = try OperandChecks.pattern(v, what: "'like'", range: BindingContext.range(of: t, fallback: r)) }
            p = .like(path, pattern: b)
        case .regex(let path, let t, let options):
            var b = try bind(t, fallback: r)
            var opts = options
            if case .value(let v) = b {
                let lifted = OperandChecks.liftRegexOptions(try OperandChecks.pattern(v, what: "'regexp'", range: BindingContext.range(of: t, fallback: r)))
                b = .value(.string(lifted.pattern))
                opts = OperandChecks.mergeOptions(options, lifted.options)
            }
            p = .regex(path, pattern: b, options: opts)
        case .modulo(let path, let d, let m): p = .modulo(path, divisor: try bind(d, fallback: r), remainder: try bind(m, fallback: r))
        case .relationHolds(let key, let className, let t):
            p = .relationHolds(key: key, className: className, object: try bind(t, fallback: r))
        case .relatedTo(let t, let key):
            let b = try bind(t, fallback: r)
            if case .value(let v) = b { try OperandChecks.pointer(v, range: BindingContext.range(of: t, fallback: r)) }
            p = .relatedTo(object: b, key: key)
        case .near(let path, let point, let lo, let hi):
            var minimum = lo, maximum = hi
            if let lo { minimum = Distance(try bindDistance(lo.value, fallback: r), lo.unit) }
            if let hi { maximum = Distance(try bindDistance(hi.value, fallback: r), hi.unit) }
            if let minimum, let maximum { try OperandChecks.distanceBounds(min: minimum, max: maximum, range: r) }
            p = .near(path, point: try bindGeo(point, what: "'near'", fallback: r), min: minimum, max: maximum)
        case .withinBox(let path, let sw, let ne):
            var a = try bindGeo(sw, what: "'within'", fallback: r), b = try bindGeo(ne, what: "'within'", fallback: r)
            if case .value(.geoPoint(let x)) = a, case .value(.geoPoint(let y)) = b {
                let corners = OperandChecks.box(x, y)
                (a, b) = (.value(.geoPoint(corners.southwest)), .value(.geoPoint(corners.northeast)))
            }
            p = .withinBox(path, southwest: a, northeast: b)
        case .withinPolygon(let path, let items):
            var out: [Term] = []
            for x in items { out.append(try bindGeo(x, what: "a polygon", fallback: r)) }
            p = .withinPolygon(path, out)
        case .withinCenterSphere(let path, let center, let radius):
            p = .withinCenterSphere(path, center: try bindGeo(center, what: "a center sphere", fallback: r),
                                    radius: try bindDistance(radius, fallback: r))
        case .geoIntersects(let path, let point):
            p = .geoIntersects(path, point: try bindGeo(point, what: "'geoIntersects'", fallback: r))
        }
        return p
    }
}
