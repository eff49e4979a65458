/// Writes a query's condition as a canonical NSPredicate format string that
/// ``NSPredicateParser`` reads back to the same AST (NSPredicate.md,
/// "Writing NSPredicate"): uppercase keywords, `==`, double-quoted strings,
/// `#` before reserved keys, dates as `CAST(seconds, "NSDate")`. What has no
/// exact NSPredicate form (order, limit, geo, sub-queries, Pointers, ...) is
/// a named ``QueryError/Kind/unsupported`` error.
///
/// ```swift
/// let q = try CQLParser.parse("select * from GameScore where score > 80 and name in ('a', 'b')")
/// try NSPredicateFormatter.format(q)   // score > 80 AND name IN {"a", "b"}
/// ```
public enum NSPredicateFormatter {
    /// The canonical format string of `query`'s condition.
    ///
    /// - Parameters:
    ///   - query: the query whose condition is written.
    ///   - conditionOnly: write the condition and leave out what a
    ///     predicate cannot hold (order, skip, limit, keys, include, count), which
    ///     the SDK sets on the query object (`[query orderByDescending:...]`);
    ///     without it those clauses are a named error, so nothing is dropped
    ///     silently. Usergrid queries always carry an order and a page size.
    public static func format(_ query: Query, conditionOnly: Bool = false) throws(QueryError) -> String {
        func clause(_ what: String) -> QueryError {
            QueryError(.unsupported, "\(what) cannot be expressed in NSPredicate (a predicate is only the condition; "
                       + "set it on the query object)", range: query.range)
        }
        if conditionOnly { return try condition(query) }
        if !query.keys.isEmpty { throw clause("selected keys") }
        if !query.includes.isEmpty { throw clause("'include'") }
        if query.count != .none { throw clause("'count'") }
        if !query.order.isEmpty { throw clause("'order by'") }
        if query.skip != nil { throw clause("'skip'") }
        if query.limit != nil { throw clause("'limit'") }
        if !query.direct.isEmpty { throw clause("'direct'") }
        return try condition(query)
    }

    private static func condition(_ query: Query) throws(QueryError) -> String {
        if !query.direct.isEmpty {
            throw QueryError(.unsupported, "'direct' (entities by name) cannot be expressed in NSPredicate", range: query.range)
        }
        guard let c = query.condition else { return "TRUEPREDICATE" }
        do throws(QueryError) {
            return try NSPredicateWriter().write(c, depth: 0).text
        } catch {
            throw query.source.map { error.withSource($0) } ?? error
        }
    }
}

/// The recursive writer; `level` says how tightly a piece binds (0 OR,
/// 1 AND, 2 NOT or a comparison), for parentheses.
struct NSPredicateWriter {
    static let maxDepth = 400

    func unsupported(_ what: String, _ c: Condition) -> QueryError {
        QueryError(.unsupported, "\(what) cannot be expressed in NSPredicate", range: c.range)
    }

    func write(_ c: Condition, depth: Int) throws(QueryError) -> (text: String, level: Int) {
        guard depth < Self.maxDepth else {
            throw QueryError(.limit, "the condition is nested more than \(Self.maxDepth) levels deep", range: c.range)
        }
        switch c.predicate {
        case .and(let items):
            if items.isEmpty { return ("TRUEPREDICATE", 2) }
            var parts: [String] = []
            for item in items {
                let (t, l) = try write(item, depth: depth + 1)
                parts.append(l < 1 ? "(" + t + ")" : t)
            }
            return (parts.joined(separator: " AND "), 1)
        case .or(let items):
            if items.isEmpty { return ("FALSEPREDICATE", 2) }
            var parts: [String] = []
            for item in items {
                let (t, l) = try write(item, depth: depth + 1)
                // A nested OR (kept apart in the AST) keeps its parentheses.
                parts.append(l < 1 || isOr(item) ? "(" + t + ")" : t)
            }
            return (parts.joined(separator: " OR "), 0)
        case .not:
            // The parser folds NOT into IN / IN SELF / sub-query membership
            // (``NSPredicateMapping/negate(_:range:)``): fold the same way, so
            // the text reads back to the same tree and is canonical.
            let folded = Self.folded(c)
            guard case .not(let inner) = folded.predicate else { return try write(folded, depth: depth + 1) }
            let (t, l) = try write(inner, depth: depth + 1)
            return ("NOT " + (l < 2 ? "(" + t + ")" : t), 2)
        case .constant(let b):
            return (b ? "TRUEPREDICATE" : "FALSEPREDICATE", 2)
        case .relationHolds:
            return try write(c.writtenAsComparison, depth: depth)
        case .compare(let p, let op, let t):
            let v = try value(t, c)
            if case .array = v { throw unsupported("a comparison with an array", c) }
            if v == .null && op != .equal && op != .notEqual {
                // It matches nothing; NSPredicate text says so with FALSEPREDICATE, not k < nil.
                throw unsupported("a range against null ('\(op.rawValue) null')", c)
            }
            let symbol = op == .equal ? "==" : op.rawValue
            return (try key(p, c) + " " + symbol + " " + (try literal(v, c)), 2)
        case .in(let p, let terms, let negated):
            var items: [String] = []
            for t in terms {
                let v = try value(t, c)
                if case .array = v { throw unsupported("an IN list holding an array", c) }
                items.append(try literal(v, c))
            }
            let text = try key(p, c) + " IN {" + items.joined(separator: ", ") + "}"
            return (negated ? "NOT " + text : text, 2)
        case .exists(let p, let present):
            let text = try key(p, c) + " IN SELF"
            return (present ? text : "NOT " + text, 2)
        case .size(let p, let t):
            guard case .int(let n) = try value(t, c), n >= 0 else { throw unsupported("size() with a value other than a whole number", c) }
            return (try key(p, c) + ".@count == \(n)", 2)
        case .text(let p, let match, let s):
            switch match {
            case .equalsIgnoringCase: return (try key(p, c) + " ==[c] " + NSPredicateLiterals.string(s), 2)
            case .wildcard:
                var pattern = ""
                for ch in s.unicodeScalars {
                    if ch == "?" || ch == "\\" { pattern += "\\" }
                    pattern.unicodeScalars.append(ch)
                }
                return (try key(p, c) + " LIKE[c] " + NSPredicateLiterals.string(pattern), 2)
            case .word, .wordPrefix:
                throw unsupported("Usergrid's word match ('contains')", c)
            case .lessThanIgnoringCase, .lessThanOrEqualIgnoringCase, .greaterThanIgnoringCase, .greaterThanOrEqualIgnoringCase:
                let op = match.rangeOperator?.rawValue ?? ""
                return (try key(p, c) + " " + op + "[c] " + NSPredicateLiterals.string(s), 2)
            }
        case .regex(let p, let pattern, let options):
            guard case .string(let s) = try value(pattern, c) else { throw unsupported("a regular expression that is not a string", c) }
            return (try key(p, c) + " " + (try NSPredicateRegexForms.operation(s, options, c)), 2)
        case .like(let p, let pattern):
            // SQL LIKE: `%` is `*`, `_` is `?`; its `[..]` classes have no NSPredicate form.
            guard case .string(let s) = try value(pattern, c), !s.contains("[") else {
                throw unsupported("SQL LIKE with a [..] class or a pattern that is not a string", c)
            }
            var like = ""
            for ch in s.unicodeScalars {
                switch ch {
                case "%": like += "*"
                case "_": like += "?"
                case "*", "?", "\\": like += "\\"; like.unicodeScalars.append(ch)
                default: like.unicodeScalars.append(ch)
                }
            }
            return (try key(p, c) + " LIKE " + NSPredicateLiterals.string(like), 2)
        case .prefix(let p, let prefix):
            // The optimizer's canonical prefix is BEGINSWITH's own meaning (the
            // parser maps BEGINSWITH to the anchored regex `^\Q..\E`).
            return (try key(p, c) + " BEGINSWITH " + NSPredicateLiterals.string(prefix), 2)
        case .inQuery, .select:
            throw QueryError(.unsupported, "a sub-query has no NSPredicate text (pass it as a %@ argument: "
                             + "{\"__type\":\"Query\",\"className\":...,\"where\":{...}})", range: c.range)
        case .all, .containedBy, .elementMatch, .type, .modulo, .fullText, .relatedTo, .aclGrants, .near, .withinBox,
             .withinPolygon, .withinCenterSphere, .geoIntersects:
            throw unsupported("'\(c.predicate.constructName)'", c)
        }
    }

    func isOr(_ c: Condition) -> Bool { if case .or = c.predicate { return true } else { return false } }

    /// `c` with its NOTs folded as the parser folds them.
    static func folded(_ c: Condition) -> Condition {
        guard case .not(let inner) = c.predicate else { return c }
        return NSPredicateMapping.negate(folded(inner), range: c.range)
    }

    func value(_ t: Term, _ c: Condition) throws(QueryError) -> Value {
        guard let v = t.value else { throw unsupported("a placeholder or an unevaluated function", c) }
        return v
    }

    func key(_ p: FieldPath, _ c: Condition) throws(QueryError) -> String {
        var parts: [String] = []
        for step in p.components {
            guard NSPredicateLexer.isPlainIdentifier(step) else {
                throw QueryError(.unsupported, "the key '\(p.dotted)' cannot be written in NSPredicate text (pass it with %K)", range: c.range)
            }
            parts.append(NSPredicateKeywords.isReserved(step) ? "#" + step : step)
        }
        return parts.joined(separator: ".")
    }

    func literal(_ v: Value, _ c: Condition) throws(QueryError) -> String {
        if let text = NSPredicateLiterals.literal(v) { return text }
        throw QueryError(.unsupported, "\(v.typeDescription) has no NSPredicate literal (pass it as a %@ argument)", range: c.range)
    }
}
