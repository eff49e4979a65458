/// Gathers the inequalities and `not in` lists on one key under an `and`
/// into one `not in` list.
///
/// ```
/// a != 1 and a != 2                 →   a not in (1, 2)
/// a not in (1) and a != 3           →   a not in (1, 3)
/// a != null and a != 0              →   a not in (null, 0)
/// a not in (1, 2) or a not in (2, 3)   stays (a union of negations)
/// ```
///
/// Sound everywhere: `k != v` is `not (k = v)` and `k not in (..)` is
/// `not (k in (..))` (EvaluationSemantics.md), so by De Morgan an `and` of them is
/// `not (k = v1 or ... )`, which is `k not in (v1, ...)` by the definition
/// of `in` (see ``EqualitiesToIn``; array constants are excluded likewise).
public struct InequalitiesToNotIn: ConditionRule {
    public init() {}
    public var name: String { "InequalitiesToNotIn" }
    /// Fires only on two `!=` / `not in` under one `and`.
    public var triggers: ConditionFeatures? { .inequalityPair }

    public func rewrite(_ c: Condition) -> Condition? {
        guard case .and(let items) = c.predicate else { return nil }
        // Nothing combines without two candidates: answer before building keys.
        let candidates = items.indices.filter { EqualitiesToIn.members(items[$0], negated: true) != nil }
        guard candidates.count > 1 else { return nil }
        var groups: [PathKey: [Int]] = [:]
        for i in candidates {
            let item = items[i]
            groups[PathKey(EqualitiesToIn.path(item)!), default: []].append(i)
        }
        return EqualitiesToIn.combine(items, groups: groups, negated: true, range: c.range) { Condition(.and($0), range: $1) }
    }
}
