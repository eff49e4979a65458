/// The exact rewrites of `not x` (CQL.md, "Negation"): operators that have a negated
/// form take it, double negation cancels, De Morgan pushes `not` through
/// `and`/`or`. Anything else is left to the dialect (`$nor`, `$not`, or an
/// error), because e.g. `not (a < 5)` is *not* `a >= 5` (missing values and
/// other types match the former only).
enum NegationRewriter {
    /// The condition equal to `not inner`, one step down, or `nil` when no
    /// exact rewrite exists. `range` is the `not` node's range, kept on the result.
    static func rewrite(not inner: Condition, range: SourceRange?) -> Condition? {
        let r = range ?? inner.range
        switch inner.predicate {
        case .compare(let p, .equal, let t):
            return Condition(.compare(p, .notEqual, t), range: r)
        case .compare(let p, .notEqual, let t):
            return Condition(.compare(p, .equal, t), range: r)
        case .in(let p, let list, let negated):
            return Condition(.in(p, list, negated: !negated), range: r)
        case .exists(let p, let present):
            return Condition(.exists(p, !present), range: r)
        case .select(let p, let key, let query, let negated):
            return Condition(.select(p, key: key, query: query, negated: !negated), range: r)
        case .inQuery(let p, let query, let negated):
            return Condition(.inQuery(p, query: query, negated: !negated), range: r)
        case .not(let x):
            return x
        case .constant(let b):
            return Condition(.constant(!b), range: r)
        case .and(let items):
            return Condition(.or(items.map { Condition(.not($0), range: $0.range) }), range: r)
        case .or(let items):
            return Condition(.and(items.map { Condition(.not($0), range: $0.range) }), range: r)
        case .compare, .all, .size, .regex, .like, .prefix, .text, .containedBy, .elementMatch, .type, .modulo,
             .fullText, .relatedTo, .relationHolds, .aclGrants, .near, .withinBox, .withinPolygon, .withinCenterSphere, .geoIntersects:
            return nil
        }
    }
}
