/// Drops repeated operands of `and` / `or` and operands absorbed by others.
///
/// ```
/// a = 1 and a = 1                  →   a = 1
/// a = 1 or b = 2 or a = 1          →   a = 1 or b = 2
/// a = 1 or (a = 1 and b = 2)       →   a = 1
/// a = 1 and (a = 1 or b = 2)       →   a = 1
/// (a = 1 and b = 2) or (b = 2 and a = 1 and c = 3)   →   a = 1 and b = 2
/// ```
///
/// Sound everywhere: idempotence (`x and x` is `x`) and absorption
/// (`x or (x and y)` is `x`, `x and (x or y)` is `x`) hold in any two-valued
/// logic, and each object either matches each operand or not. Operands are
/// compared structurally (the same predicate on the same path with the same
/// constants), never by meaning, so no semantic question arises.
public struct RemoveDuplicates: ConditionRule {
    public init() {}
    public var name: String { "RemoveDuplicates" }
    /// Fires only on an operand that may repeat or absorb another.
    public var triggers: ConditionFeatures? { .absorbableOperand }

    /// Up to this many operands, subsets are found by linear search.
    static let linearLimit = 16

    public func rewrite(_ c: Condition) -> Condition? {
        switch c.predicate {
        case .and(let items):
            return prune(items, inner: Operands.disjuncts, range: c.range) { Condition(.and($0), range: $1) }
        case .or(let items):
            return prune(items, inner: Operands.conjuncts, range: c.range) { Condition(.or($0), range: $1) }
        case .not, .constant, .compare, .in, .all, .size, .exists, .regex, .like, .prefix, .text, .containedBy,
             .elementMatch, .type, .modulo, .fullText, .select, .inQuery, .relatedTo, .relationHolds, .aclGrants, .near, .withinBox,
             .withinPolygon, .withinCenterSphere, .geoIntersects:
            return nil
        }
    }

    /// Whether every operand is its own only `inner` operand (no nested
    /// `or` under an `and`, or `and` under an `or`) and no two are equal:
    /// then no operand's set is a subset of another's, and nothing is
    /// dropped (byte-exact equality implies Swift's `==`, tested here).
    static func distinctLeaves(_ items: [Condition], inner: (Condition) -> [Condition]) -> Bool {
        for (i, item) in items.enumerated() {
            switch item.predicate {
            case .and, .or:
                let parts = inner(item)
                if parts.count != 1 || parts[0] != item { return false }
            case .not, .constant, .compare, .in, .all, .size, .exists, .regex, .like, .prefix, .text, .containedBy,
                 .elementMatch, .type, .modulo, .fullText, .select, .inQuery, .relatedTo, .relationHolds, .aclGrants, .near,
                 .withinBox, .withinPolygon, .withinCenterSphere, .geoIntersects: break
            }
            for other in items[..<i] where other == item { return false }
        }
        return true
    }

    /// Keeps an operand unless an earlier one is equal, or another one's
    /// `inner` operands are a subset of its own (a strict subset, or an equal
    /// set that comes earlier).
    private func prune(_ items: [Condition], inner: (Condition) -> [Condition], range: SourceRange?,
                       make: ([Condition], SourceRange?) -> Condition) -> Condition? {
        if items.count <= RemoveDuplicates.linearLimit && RemoveDuplicates.distinctLeaves(items, inner: inner) { return nil }
        let keys = items.map(ExactCondition.init)
        var kept: [Condition] = []
        if items.count <= RemoveDuplicates.linearLimit {
            // Few operands (the usual case): subset tests by linear search
            // over the operand lists, the same relation as the sets' below
            // without building and hashing a set per operand.
            let lists = items.map { inner($0).map(ExactCondition.init) }
            func subset(_ a: Int, _ b: Int) -> Bool { lists[a].allSatisfy { x in lists[b].contains(x) } }
            for (i, item) in items.enumerated() {
                let absorbed = items.indices.contains { j in
                    guard j != i else { return false }
                    if keys[j] == keys[i] { return j < i }
                    return subset(j, i) && (j < i || !subset(i, j))
                }
                if !absorbed { kept.append(item) }
            }
        } else {
            let sets = items.map { Set(inner($0).map(ExactCondition.init)) }
            for (i, item) in items.enumerated() {
                let absorbed = items.indices.contains { j in
                    guard j != i else { return false }
                    if keys[j] == keys[i] { return j < i }
                    return sets[j].isSubset(of: sets[i]) && (sets[j] != sets[i] || j < i)
                }
                if !absorbed { kept.append(item) }
            }
        }
        if kept.count == items.count { return nil }
        return kept.count == 1 ? kept[0] : make(kept, range)
    }
}
