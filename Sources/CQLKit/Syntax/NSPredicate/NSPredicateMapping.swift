/// How each NSPredicate comparison maps to the shared AST (NSPredicate.md,
/// "Meaning"):
///
/// | predicate | AST |
/// |---|---|
/// | `k == v`, `k != v`, `k < v` ... | ``Predicate/compare(_:_:_:)`` (a constant on the left: swapped, mirrored) |
/// | `k ==[c] s` | ``Predicate/text(_:_:_:)`` ``TextMatch/equalsIgnoringCase`` |
/// | `k ==[d] s`, `k ==[cd] s` | regex `^\Q s \E\z`, options `d` / `di` |
/// | `k BETWEEN {lo, hi}` | `k >= lo AND k <= hi` |
/// | `c BETWEEN {lo, hi}` (key paths lo, hi) | `lo <= c AND hi >= c` (the Parse iOS SDK's expansion) |
/// | `k IN {..}` / `k IN %@` (array) | ``Predicate/in(_:_:negated:)`` |
/// | `k IN %@` (sub-query) | ``Predicate/inQuery(_:query:negated:)`` |
/// | `k IN SELF` | ``Predicate/exists(_:_:)`` |
/// | `c IN k` | `k == c` (an array field contains c) |
/// | `BEGINSWITH` / `CONTAINS` / `ENDSWITH` | regex `^\Q..\E` / `\Q..\E` / `\Q..\E\z` |
/// | `LIKE p` | regex `^..\z` with `s` (`LIKE[c]` with `*` only: ``TextMatch/wildcard``) |
/// | `MATCHES r` | regex `^(?:r)\z` (ICU syntax checked) |
/// | `k.@count == n` | ``Predicate/size(_:_:)`` |
///
/// Regex option `d` (from `[d]`) is diacritic-insensitive matching, which
/// the evaluator honours and the other backends reject by name.
enum NSPredicateMapping {
    /// `NOT inner`: `IN`, `IN SELF` and sub-query membership take their
    /// negated forms (so `NOT (NOT (a IN {..}))` is `a IN {..}` again);
    /// everything else is kept as a negation node, never flipped into a range.
    static func negate(_ inner: Condition, range: SourceRange?) -> Condition {
        switch inner.predicate {
        case .in(let p, let list, let negated): return Condition(.in(p, list, negated: !negated), range: range)
        case .exists(let p, let present): return Condition(.exists(p, !present), range: range)
        case .inQuery(let p, let q, let negated): return Condition(.inQuery(p, query: q, negated: !negated), range: range)
        case .and, .or, .not, .constant, .compare, .all, .size, .regex, .like, .prefix, .text, .containedBy,
             .elementMatch, .type, .modulo, .fullText, .select, .relatedTo, .relationHolds, .aclGrants, .near, .withinBox,
             .withinPolygon, .withinCenterSphere, .geoIntersects: return Condition.not(inner, range: range)
        }
    }

    static func comparison(
        _ left: NSPredicateOperand, _ op: NSPredicateToken, _ m: NSPredicateModifiers, _ right: NSPredicateOperand
    ) throws(QueryError) -> Condition {
        let r = left.range.union(right.range)
        func fail(_ message: String, _ at: SourceRange? = nil) -> QueryError { QueryError(.syntax, message, range: at ?? r) }
        let opName = op.text.uppercased()

        switch (left, right) {
        case (.keyPath(let a, _, _), .keyPath(let b, _, _)):
            throw fail("comparing two key paths ('\(a.dotted)' and '\(b.dotted)') is not supported: a query compares a key path with a constant")
        case (.keyPath(let path, let count, _), _):
            return try keyed(path, count: count, op, m, right, r)
        case (.self, _):
            throw fail("SELF (the object itself) is only supported as 'k IN SELF' (k exists)", left.range)
        case (.subquery, .keyPath), (.aggregate, .keyPath), (.keyedAggregate, _):
            throw fail("\(left.description) cannot stand on the left of \(opName); write the key path first", left.range)
        case (.constant(let c, _), .keyedAggregate(let items, _)) where op.kind == .between:
            return try constantBetween(c, left.range, items, m, r, right.range)
        case (_, .keyedAggregate):
            throw keyPathsInAggregate(right.range)
        case (.constant(let c, _), .keyPath(let path, let count, _)):
            if count { throw fail("@count is only supported as k.@count == n", right.range) }
            if op.kind == .in {
                // `c IN k`: the array field k contains c (an equality on an array field).
                return try equality(path, c, op: .equal, m, r, at: left.range)
            }
            guard let cmp = op.kind.comparison else {
                throw fail("a constant cannot stand on the left of \(opName); write the key path first (k \(opName) …)", left.range)
            }
            return try compare(path, mirrored(cmp), c, m, r, valueRange: left.range)
        default:
            throw fail("constants on both sides of \(opName) (\(left.description) and \(right.description)); one side must be a key path "
                       + "(a string argument of %@ is a constant: pass a key with %K)")
        }
    }

    /// `c BETWEEN {lo, hi}` as the Parse iOS SDK expands any BETWEEN:
    /// `c >= lo AND c <= hi`, each comparison then read as written (so key
    /// paths lo and hi give `lo <= c AND hi >= c`; a constant bound compares
    /// two constants, an error as it is anywhere).
    static func constantBetween(
        _ c: Value, _ cRange: SourceRange, _ bounds: [NSPredicateOperand], _ m: NSPredicateModifiers, _ r: SourceRange,
        _ boundsRange: SourceRange
    ) throws(QueryError) -> Condition {
        guard bounds.count == 2 else {
            throw QueryError(.syntax, "BETWEEN needs exactly two items: c BETWEEN {low, high}", range: boundsRange)
        }
        var parts: [Condition] = []
        for (bound, op) in zip(bounds, [ComparisonOperator.lessThanOrEqual, .greaterThanOrEqual]) {
            switch bound {
            case .keyPath(_, true, _):
                throw QueryError(.syntax, "@count is only supported as k.@count == n", range: bound.range)
            case .keyPath(let path, false, _):
                parts.append(try compare(path, op, c, m, r, valueRange: cRange))
            default:
                throw QueryError(.syntax, "BETWEEN's \(op == .lessThanOrEqual ? "low" : "high") bound is \(bound.description): with a key path "
                                 + "in the aggregate both bounds are key paths (c BETWEEN {lo, hi} is lo <= c AND hi >= c)",
                                 range: bound.range)
            }
        }
        return Condition.and(parts, range: r)
    }

    /// A key path in an aggregate anywhere but `c BETWEEN {lo, hi}`.
    static func keyPathsInAggregate(_ range: SourceRange) -> QueryError {
        QueryError(.syntax, "an aggregate holds key paths only in 'c BETWEEN {lo, hi}' (lo <= c AND hi >= c); elsewhere it holds constants",
                   range: range)
    }

    static func mirrored(_ op: ComparisonOperator) -> ComparisonOperator {
        switch op {
        case .lessThan: return .greaterThan
        case .lessThanOrEqual: return .greaterThanOrEqual
        case .greaterThan: return .lessThan
        case .greaterThanOrEqual: return .lessThanOrEqual
        case .equal, .notEqual: return op
        }
    }

    /// `path op right` with the key on the left.
    static func keyed(
        _ path: FieldPath, count: Bool, _ op: NSPredicateToken, _ m: NSPredicateModifiers, _ right: NSPredicateOperand, _ r: SourceRange
    ) throws(QueryError) -> Condition {
        let opName = op.text.uppercased()
        if count {
            guard op.kind == .equal, m.isEmpty, case .constant(let v, _) = right, case .int(let n) = v, n >= 0 else {
                throw QueryError(.syntax, "@count is only supported as k.@count == n with a whole number n (an array's length)", range: r)
            }
            return Condition(.size(path, .value(.int(n))), range: r)
        }
        if case .keyedAggregate = right {
            guard op.kind == .between else { throw keyPathsInAggregate(right.range) }
            throw QueryError(.syntax, "comparing key paths ('\(path.dotted)' and the aggregate's) is not supported: "
                             + "a query compares a key path with a constant", range: right.range)
        }
        if case .self = right {
            guard op.kind == .in, m.isEmpty else {
                throw QueryError(.syntax, "SELF (the object itself) is only supported as 'k IN SELF' (k exists)", range: right.range)
            }
            return Condition(.exists(path, true), range: r)
        }
        if case .subquery(let q, _) = right {
            guard op.kind == .in, m.isEmpty else {
                throw QueryError(.syntax, "a sub-query argument is only supported as 'k IN %@' (a pointer to a matching object)", range: right.range)
            }
            return Condition(.inQuery(path, query: q, negated: false), range: r)
        }
        switch op.kind {
        case .in:
            switch right {
            case .aggregate(let values, _), .constant(.array(let values), _):
                return try membership(path, values, m, r)
            case .constant(.string, _):
                throw QueryError(.syntax, "k IN 'string' is not supported: IN needs a list {..} or an array; for a substring write k CONTAINS 'text'",
                                 range: right.range)
            default:
                throw QueryError(.syntax, "IN needs a list {..}, an array argument or a sub-query, found \(right.description)", range: right.range)
            }
        case .between:
            guard case .aggregate(let values, _) = right.asAggregate, values.count == 2 else {
                throw QueryError(.syntax, "BETWEEN needs exactly two items: k BETWEEN {low, high}", range: right.range)
            }
            if m.diacriticInsensitive { throw unsupportedModifier(m, "BETWEEN") }
            for v in values where v == .null {
                throw QueryError(.syntax, "BETWEEN with nil: nothing is ordered against nil", range: right.range)
            }
            return Condition.and([
                try compare(path, .greaterThanOrEqual, values[0], m, r, valueRange: right.range),
                try compare(path, .lessThanOrEqual, values[1], m, r, valueRange: right.range),
            ], range: r)
        case .contains, .beginsWith, .endsWith, .like, .matches:
            guard case .constant(.string(let s), _) = right else {
                let hint = op.kind == .contains ? "; to test array membership write 'x' IN k" : ""
                throw QueryError(.syntax, "\(opName) needs a string, found \(right.description)\(hint)", range: right.range)
            }
            return try stringMatch(path, op, s, m, r, patternRange: right.range)
        default:
            guard case .constant(let v, _) = right else {
                let hint = right.asAggregate != nil ? "; for membership write k IN {..}" : ""
                throw QueryError(.syntax, "\(opName) needs a constant, found \(right.description)\(hint)", range: right.range)
            }
            return try compare(path, op.kind.comparison!, v, m, r, valueRange: right.range)
        }
    }

    static func unsupportedModifier(_ m: NSPredicateModifiers, _ what: String) -> QueryError {
        QueryError(.unsupported, "\(m.text) with \(what) is not supported: diacritic-insensitive ordering has no exact form; "
                   + "use [c] alone, or ==\(m.text), BEGINSWITH\(m.text), LIKE\(m.text)", range: m.range)
    }

    /// `k op v` with the key on the left (after any swap).
    static func compare(
        _ path: FieldPath, _ op: ComparisonOperator, _ v: Value, _ m: NSPredicateModifiers, _ r: SourceRange, valueRange: SourceRange
    ) throws(QueryError) -> Condition {
        if op == .equal || op == .notEqual {
            let eq = try equality(path, v, op: op, m, r, at: valueRange)
            return eq
        }
        if m.diacriticInsensitive { throw unsupportedModifier(m, op.rawValue) }
        if m.caseInsensitive {
            // `k <[c] 'x'`: Usergrid's case-insensitive range (case-folded, by code point).
            guard case .string(let s) = v, let match = TextMatch.ignoringCase(op) else {
                throw QueryError(.syntax, "[c] applies to strings; the value is \(v.typeDescription)", range: valueRange)
            }
            return Condition(.text(path, match, s), range: r)
        }
        switch v {
        case .null:
            throw QueryError(.syntax, "k \(op.rawValue) nil matches nothing: nothing is ordered against nil; write k == nil or k != nil",
                             range: valueRange)
        case .array, .object, .relation, .typedObject:
            throw QueryError(.syntax, "\(v.typeDescription) cannot be ordered against; compare with a number, string or Date", range: valueRange)
        default:
            return Condition(.compare(path, op, .value(v)), range: r)
        }
    }

    /// `k == v` / `k != v`, with `[c]`/`[d]` on strings.
    static func equality(
        _ path: FieldPath, _ v: Value, op: ComparisonOperator, _ m: NSPredicateModifiers, _ r: SourceRange, at valueRange: SourceRange
    ) throws(QueryError) -> Condition {
        switch v {
        case .array:
            throw QueryError(.syntax, "an array as an equality value is not supported; for membership write k IN %@ (or k IN {..})", range: valueRange)
        case .object, .typedObject, .relation:
            throw QueryError(.syntax, "\(v.typeDescription) as an equality value is not supported", range: valueRange)
        default: break
        }
        if m.isEmpty { return Condition(.compare(path, op, .value(v)), range: r) }
        guard case .string(let s) = v else {
            throw QueryError(.syntax, "\(m.text) applies to strings; the value is \(v.typeDescription)", range: valueRange)
        }
        let positive: Predicate = m.diacriticInsensitive
            ? .regex(path, pattern: .value(.string("^" + TextRegex.quote(s) + #"\z"#)), options: m.regexOptions)
            : .text(path, .equalsIgnoringCase, s)
        let c = Condition(positive, range: r)
        return op == .equal ? c : Condition.not(c, range: r)
    }

    /// `k IN {a, b}`; with `[c]`/`[d]` an OR of string equalities.
    static func membership(_ path: FieldPath, _ values: [Value], _ m: NSPredicateModifiers, _ r: SourceRange) throws(QueryError) -> Condition {
        for v in values {
            switch v {
            case .array, .object, .relation, .typedObject:
                throw QueryError(.syntax, "IN lists hold scalars, found \(v.typeDescription)", range: r)
            default: break
            }
        }
        if m.isEmpty { return Condition(.in(path, values.map { .value($0) }, negated: false), range: r) }
        var items: [Condition] = []
        for v in values { items.append(try equality(path, v, op: .equal, m, r, at: r)) }
        if items.isEmpty { return Condition(.in(path, [], negated: false), range: r) }
        return items.count == 1 ? items[0] : Condition(.or(items), range: r)
    }
}

extension NSPredicateOperand {
    /// An aggregate, or an array argument read as one.
    var asAggregate: NSPredicateOperand? {
        switch self {
        case .aggregate: return self
        case .constant(.array(let items), let r): return .aggregate(items, r)
        default: return nil
        }
    }
}
