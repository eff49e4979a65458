/// Pushes `not` inward where an exact negated form exists, and only there.
///
/// ```
/// not (a = 1)                  →   a != 1
/// not (a != 1)                 →   a = 1
/// not (a in (1, 2))            →   a not in (1, 2)
/// not (a is exists)            →   a is not exists
/// not not (a > 1)              →   a > 1
/// not (a = 1 and b in (2))     →   a != 1 or b not in (2)
/// not (a = 1 or b = 2)         →   a != 1 and b != 2
/// not (a > 1)                  stays (also matches missing, null, strings)
/// not (a = 1 and b > 2)        stays (De Morgan would leave a `not` behind)
/// ```
///
/// Sound everywhere: each step is an equivalence (`ExactNegation`), and De
/// Morgan's laws hold because every object either matches or does not match
/// each operand (two-valued logic: missing and null are handled inside the
/// predicates, not by a third truth value). De Morgan is applied only when
/// every operand can lose its `not`, so the rule never makes a query longer.
public struct PushNegation: ConditionRule {
    public init() {}
    public var name: String { "PushNegation" }
    /// Fires only on a `not`.
    public var triggers: ConditionFeatures? { .negation }

    public func rewrite(_ c: Condition) -> Condition? {
        guard case .not(let inner) = c.predicate else { return nil }
        return PushNegation.negated(inner, range: c.range)
    }

    /// `not inner` without a `not` node, or `nil`.
    static func negated(_ inner: Condition, range: SourceRange?) -> Condition? {
        switch inner.predicate {
        case .and(let items):
            guard let negated = all(items) else { return nil }
            return Condition(.or(negated), range: range)
        case .or(let items):
            guard let negated = all(items) else { return nil }
            return Condition(.and(negated), range: range)
        case .not, .constant, .compare, .in, .all, .size, .exists, .regex, .like, .prefix, .text, .containedBy,
             .elementMatch, .type, .modulo, .fullText, .select, .inQuery, .relatedTo, .relationHolds, .aclGrants, .near, .withinBox,
             .withinPolygon, .withinCenterSphere, .geoIntersects:
            return ExactNegation.negate(inner).map { var n = $0; n.range = n.range ?? range; return n }
        }
    }

    private static func all(_ items: [Condition]) -> [Condition]? {
        var out: [Condition] = []
        for item in items {
            guard let n = negated(item, range: item.range) else { return nil }
            out.append(n)
        }
        return out
    }
}
