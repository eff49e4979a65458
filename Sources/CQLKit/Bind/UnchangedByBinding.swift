/// Whether binding a query with no parameters would give it back unchanged,
/// decided by a walk that allocates nothing, so that `Binder.bind` can skip
/// rebuilding the tree (most queries — every one `cql translate --lines`
/// reads without `--params` — have nothing to bind).
///
/// The answer is `true` only where ``BindingContext`` provably returns its
/// input and cannot throw: every term is a `.value`, counts are
/// non-negative `.int`s, patterns are strings, and a regex pattern has no
/// leading `(?imsx)` group left to lift, with options already sorted and
/// without repeats. Everything else (placeholders, calls, time functions,
/// arrays of terms, geo and `related` operands, whose binding converts or
/// checks values) answers `false` and takes the full path.
/// `BindingFastPathTests` checks the
/// claim over the corpora and random queries.
enum UnchangedByBinding {
    static func check(_ q: Query) -> Bool {
        if let c = q.condition, !check(c) { return false }
        if let s = q.skip, !isCount(s) { return false }
        if let l = q.limit, !isCount(l) { return false }
        return true
    }

    /// `bindCount` leaves only a non-negative `.int` as it is (a whole
    /// double becomes an `.int`; anything else is an error).
    private static func isCount(_ t: Term) -> Bool {
        if case .value(.int(let n)) = t { return n >= 0 }
        return false
    }

    private static func isValue(_ t: Term) -> Bool {
        if case .value = t { return true }
        return false
    }

    private static func areValues(_ items: [Term]) -> Bool {
        for t in items where !isValue(t) { return false }
        return true
    }

    private static func check(_ c: Condition) -> Bool {
        switch c.predicate {
        case .and(let items), .or(let items):
            for x in items where !check(x) { return false }
            return true
        case .not(let inner), .elementMatch(_, let inner):
            return check(inner)
        case .select(_, _, let q, _), .inQuery(_, let q, _):
            return check(q)
        case .constant, .exists, .text, .type, .fullText, .prefix, .aclGrants:
            return true
        case .compare(_, _, let t):
            return isValue(t)
        case .in(_, let items, _), .all(_, let items), .containedBy(_, let items):
            return areValues(items)
        case .modulo(_, let a, let b):
            return isValue(a) && isValue(b)
        case .size(_, let t):
            return isCount(t)
        case .like(_, let t):
            if case .value(.string) = t { return true }
            return false
        case .regex(_, let t, let options):
            guard case .value(.string(let s)) = t else { return false }
            return !hasOptionGroup(s) && isSortedWithoutRepeats(options)
        case .relatedTo, .relationHolds, .near, .withinBox, .withinPolygon, .withinCenterSphere, .geoIntersects:
            return false
        }
    }

    /// Whether `liftRegexOptions` would find something to lift: a pattern
    /// starting `(?` (it then lifts only a whole `(?imsx)` group; answering
    /// `true` for any `(?` just sends the rare rest down the full path).
    private static func hasOptionGroup(_ s: String) -> Bool {
        var it = s.utf8.makeIterator()
        return it.next() == UInt8(ascii: "(") && it.next() == UInt8(ascii: "?")
    }

    /// `mergeOptions(options, "")` returns the options sorted without
    /// repeats: unchanged exactly when they already are.
    private static func isSortedWithoutRepeats(_ s: String) -> Bool {
        var previous: UInt8 = 0
        var first = true
        for b in s.utf8 {
            if !first && b <= previous { return false }
            previous = b
            first = false
        }
        return true
    }
}
