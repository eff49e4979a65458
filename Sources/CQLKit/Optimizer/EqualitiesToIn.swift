/// Gathers the equalities and `in` lists on one key under an `or` into one
/// `in` list.
///
/// ```
/// a = 1 or a = 2                    →   a in (1, 2)
/// a in (1, 2) or a in (2, 3)        →   a in (1, 2, 3)
/// a = null or a = 'x'               →   a in (null, 'x')
/// a = 1 or b = 2 or a = 3           →   a in (1, 3) or b = 2
/// a in (1, 2) and a in (2, 3)       stays (an intersection: [1, 3] matches both)
/// a = [1, 2] or a = 3               stays (array constants are left alone)
/// ```
///
/// Sound everywhere: EvaluationSemantics.md defines `k in (x1, ..., xn)` as "`k = xi`
/// for some i" (with `null` in the list matching missing, as `k = null`
/// does), so an `or` of equalities and `in`s on one key is the `in` of all
/// their constants. Array constants are excluded (whether an `in` list member
/// that is itself an array means the same as `=` with it is a question this
/// rule need not answer). Repeated constants are listed once.
public struct EqualitiesToIn: ConditionRule {
    public init() {}
    public var name: String { "EqualitiesToIn" }
    /// Fires only on two `=` / `in` under one `or`.
    public var triggers: ConditionFeatures? { .equalityPair }

    public func rewrite(_ c: Condition) -> Condition? {
        guard case .or(let items) = c.predicate else { return nil }
        // Nothing combines without two candidates: answer before building keys.
        let candidates = items.indices.filter { EqualitiesToIn.members(items[$0], negated: false) != nil }
        guard candidates.count > 1 else { return nil }
        var groups: [PathKey: [Int]] = [:]
        for i in candidates {
            let item = items[i]
            groups[PathKey(EqualitiesToIn.path(item)!), default: []].append(i)
        }
        return EqualitiesToIn.combine(items, groups: groups, negated: false, range: c.range) { Condition(.or($0), range: $1) }
    }

    /// The constants `item` tests its key against: `=` / `in` (or, with
    /// `negated`, `!=` / `not in`) with value constants other than arrays.
    static func members(_ item: Condition, negated: Bool) -> [Term]? {
        let terms: [Term]
        switch item.predicate {
        case .compare(_, let op, let t) where op == (negated ? .notEqual : .equal): terms = [t]
        case .in(_, let ts, let n) where n == negated: terms = ts
        case .and, .or, .not, .constant, .compare, .in, .all, .size, .exists, .regex, .like, .prefix, .text,
             .containedBy, .elementMatch, .type, .modulo, .fullText, .select, .inQuery, .relatedTo, .relationHolds, .aclGrants, .near,
             .withinBox, .withinPolygon, .withinCenterSphere, .geoIntersects: return nil
        }
        for t in terms {
            guard let v = t.value else { return nil }
            if case .array = v { return nil }
        }
        return terms
    }

    static func path(_ item: Condition) -> FieldPath? {
        switch item.predicate {
        case .compare(let p, _, _), .in(let p, _, _): return p
        case .and, .or, .not, .constant, .all, .size, .exists, .regex, .like, .prefix, .text, .containedBy,
             .elementMatch, .type, .modulo, .fullText, .select, .inQuery, .relatedTo, .relationHolds, .aclGrants, .near, .withinBox,
             .withinPolygon, .withinCenterSphere, .geoIntersects: return nil
        }
    }

    /// Replaces each group of two or more operands by one `in` (or `not in`)
    /// at the place of the group's first operand.
    static func combine(_ items: [Condition], groups: [PathKey: [Int]], negated: Bool, range: SourceRange?,
                        make: ([Condition], SourceRange?) -> Condition) -> Condition? {
        var replacement: [Int: Condition] = [:]
        var drop = Set<Int>()
        for (_, indices) in groups where indices.count > 1 {
            let path = EqualitiesToIn.path(items[indices[0]])!
            var list: [Term] = []
            var seen = Set<ExactTerm>()
            for i in indices {
                for t in members(items[i], negated: negated)! where seen.insert(ExactTerm(t)).inserted { list.append(t) }
            }
            let r = Condition.span(indices.map { items[$0] })
            replacement[indices[0]] = Condition(.in(path, list, negated: negated), range: r)
            drop.formUnion(indices.dropFirst())
        }
        if replacement.isEmpty { return nil }
        var kept: [Condition] = []
        for i in items.indices where !drop.contains(i) { kept.append(replacement[i] ?? items[i]) }
        return kept.count == 1 ? kept[0] : make(kept, range)
    }
}
