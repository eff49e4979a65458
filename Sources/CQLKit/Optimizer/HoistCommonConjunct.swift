/// Takes a conjunct that every operand of an `or` has out of the `or`.
///
/// ```
/// (a = 1 and b = 2) or (a = 1 and c = 3)     →   a = 1 and (b = 2 or c = 3)
/// (a = 1 and b = 2) or (c = 3 and a = 1 and d = 4)   →   a = 1 and (b = 2 or c = 3 and d = 4)
/// (a = 1 and b = 2) or c = 3                 stays (not common to every operand)
/// ```
///
/// Sound everywhere: `(x and y) or (x and z)` is `x and (y or z)` by
/// distributivity, which holds because each object matches each operand or
/// not (two-valued logic). Conjuncts are compared structurally. When an
/// operand is nothing but the common conjuncts, the `or` is absorbed and the
/// common conjuncts remain (`x or (x and y)` is `x`).
public struct HoistCommonConjunct: ConditionRule {
    public init() {}
    public var name: String { "HoistCommonConjunct" }
    /// Fires only on an `or` whose operands may share a conjunct.
    public var triggers: ConditionFeatures? { .sharedConjunctKind }

    public func rewrite(_ c: Condition) -> Condition? {
        guard case .or(let items) = c.predicate, items.count > 1 else { return nil }
        let operands = items.map(Operands.conjuncts)
        let common = operands[0].filter { x in operands.dropFirst().allSatisfy { $0.containsExactly(x) } }
        guard !common.isEmpty else { return nil }
        var rests: [Condition] = []
        for o in operands {
            let rest = o.filter { !common.containsExactly($0) }
            if rest.isEmpty { return Condition.and(common, range: c.range) }
            rests.append(rest.count == 1 ? rest[0] : Condition(.and(rest), range: Condition.span(rest)))
        }
        return Condition(.and(common + [Condition(.or(rests), range: Condition.span(rests))]), range: c.range)
    }
}
