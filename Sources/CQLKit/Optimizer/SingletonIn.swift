/// Writes a one-constant `in` list as an equality, and repeated constants once.
///
/// ```
/// a in (1)            →   a = 1
/// a not in ('x')      →   a != 'x'
/// a in (1, 1, 2)      →   a in (1, 2)
/// a in ([1, 2])       stays (array constants are left alone)
/// ```
///
/// Sound everywhere: `k in (x)` is "`k = x`" by the definition of `in`
/// (semantics.md; `null` in the list matches missing exactly as `k = null`
/// does), and `not in` is its negation, as `!=` is of `=`. Listing a
/// constant twice adds no object. Array members are excluded as in
/// ``EqualitiesToIn``.
public struct SingletonIn: ConditionRule {
    public init() {}

    public func rewrite(_ c: Condition) -> Condition? {
        guard case .in(let path, let terms, let negated) = c.predicate,
              EqualitiesToIn.members(c, negated: negated) != nil
        else { return nil }
        var unique: [Term] = []
        var seen = Set<ExactTerm>()
        for t in terms where seen.insert(ExactTerm(t)).inserted { unique.append(t) }
        if unique.count == 1 { return Condition(.compare(path, negated ? .notEqual : .equal, unique[0]), range: c.range) }
        return unique.count == terms.count ? nil : Condition(.in(path, unique, negated: negated), range: c.range)
    }
}
