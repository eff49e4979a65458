/// Flattens nested `and`s and `or`s and unwraps a one-operand `and` / `or`.
///
/// ```
/// a = 1 and (b = 2 and c = 3)   →   a = 1 and b = 2 and c = 3
/// (a = 1 or (b = 2 or c = 3))   →   a = 1 or b = 2 or c = 3
/// ```
///
/// Sound everywhere: `and` and `or` are associative on each object's match
/// (EvaluationSemantics.md evaluates every predicate to matches / does not match, with
/// no third value), and a one-operand `and`/`or` is its operand.
public struct FlattenLogic: ConditionRule {
    public init() {}
    public var name: String { "FlattenLogic" }
    /// Fires only on an `and` / `or` with one operand or one of its own kind.
    public var triggers: ConditionFeatures? { .nestedLogic }

    public func rewrite(_ c: Condition) -> Condition? {
        switch c.predicate {
        case .and(let items):
            if items.count == 1 { return items[0] }
            guard items.contains(where: { if case .and = $0.predicate { return true } else { return false } }) else { return nil }
            return Condition(.and(items.flatMap(Operands.conjuncts)), range: c.range)
        case .or(let items):
            if items.count == 1 { return items[0] }
            guard items.contains(where: { if case .or = $0.predicate { return true } else { return false } }) else { return nil }
            return Condition(.or(items.flatMap(Operands.disjuncts)), range: c.range)
        case .not, .constant, .compare, .in, .all, .size, .exists, .regex, .like, .prefix, .text, .containedBy,
             .elementMatch, .type, .modulo, .fullText, .select, .inQuery, .relatedTo, .relationHolds, .aclGrants, .near, .withinBox,
             .withinPolygon, .withinCenterSphere, .geoIntersects:
            return nil
        }
    }
}
