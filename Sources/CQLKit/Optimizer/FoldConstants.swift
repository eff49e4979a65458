/// Folds conditions whose outcome is known without looking at an object.
///
/// ```
/// a = 1 and true          →   a = 1
/// a = 1 and false         →   false
/// a = 1 or true           →   true
/// a in ()                 →   false
/// a not in ()             →   true
/// a all ()                →   false
/// where true              →   (no condition)
/// ```
///
/// Sound everywhere, by the table of EvaluationSemantics.md: `in ()` and `all ()`
/// match nothing, `not in ()` is `not (in ())`; an empty `and` is `true` and
/// an empty `or` is `false` (the identities of the two operators); `true` and
/// `false` are the identity and the absorbing element of `and`, the other
/// way round of `or`. A query whose whole condition is `true` matches every
/// object, which is what no condition means.
public struct FoldConstants: OptimizerRule, ConditionRule {
    public init() {}
    public var name: String { "FoldConstants" }
    /// Fires only on a `true` / `false`, or an empty operand list.
    public var triggers: ConditionFeatures? { [.constant, .emptyList] }

    public func apply(_ query: Query) -> Query { rewritten(query) ?? query }

    public func rewritten(_ query: Query) -> Query? {
        guard !NearOrder.fixesOrder(query), let condition = query.condition else { return nil }
        let new = walk(condition)
        guard new != nil || condition.predicate.isConstant(true) else { return nil }
        var q = query
        q.condition = new ?? condition
        if q.condition?.predicate.isConstant(true) == true { q.condition = nil }
        return q
    }

    public func rewrite(_ c: Condition) -> Condition? {
        let r = c.range
        switch c.predicate {
        case .and(let items):
            if items.isEmpty { return Condition(.constant(true), range: r) }
            if items.contains(where: { $0.predicate.isConstant(false) }) { return Condition(.constant(false), range: r) }
            let kept = items.filter { !$0.predicate.isConstant(true) }
            if kept.count == items.count { return nil }
            return kept.isEmpty ? Condition(.constant(true), range: r) : (kept.count == 1 ? kept[0] : Condition(.and(kept), range: r))
        case .or(let items):
            if items.isEmpty { return Condition(.constant(false), range: r) }
            if items.contains(where: { $0.predicate.isConstant(true) }) { return Condition(.constant(true), range: r) }
            let kept = items.filter { !$0.predicate.isConstant(false) }
            if kept.count == items.count { return nil }
            return kept.isEmpty ? Condition(.constant(false), range: r) : (kept.count == 1 ? kept[0] : Condition(.or(kept), range: r))
        case .not(let inner):
            if case .constant(let b) = inner.predicate { return Condition(.constant(!b), range: r) }
            return nil
        case .in(_, let terms, let negated) where terms.isEmpty:
            return Condition(.constant(negated), range: r)
        case .all(_, let terms) where terms.isEmpty:
            return Condition(.constant(false), range: r)
        case .constant, .compare, .in, .all, .size, .exists, .regex, .like, .prefix, .text, .containedBy,
             .elementMatch, .type, .modulo, .fullText, .select, .inQuery, .relatedTo, .relationHolds, .aclGrants, .near, .withinBox,
             .withinPolygon, .withinCenterSphere, .geoIntersects:
            return nil
        }
    }
}

extension Predicate {
    /// Whether this is the constant `b`: `== .constant(b)` without building
    /// the (indirect, so heap-allocated) right-hand side on every test.
    func isConstant(_ b: Bool) -> Bool {
        if case .constant(let x) = self { return x == b }
        return false
    }
}
