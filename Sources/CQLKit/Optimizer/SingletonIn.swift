/// Writes a one-constant `in` list as an equality, and repeated constants once.
///
/// ```
/// a in (1)                  →   a = 1
/// a not in ('x')            →   a != 'x'
/// a in (1, 1, 2)            →   a in (1, 2)
/// a in (1) and a not in (2) →   a in (1) and a != 2   (see below)
/// a in ([1, 2])             stays (array constants are left alone)
/// ```
///
/// Sound everywhere: `k in (x)` is "`k = x`" by the definition of `in`
/// (semantics.md; `null` in the list matches missing exactly as `k = null`
/// does), and `not in` is its negation, as `!=` is of `=`. Listing a
/// constant twice adds no object. Array members are excluded as in
/// ``EqualitiesToIn``.
///
/// A positive `in (x)` next to another test of the same key in one `and`
/// stays a list: where-JSON writes an equality as the bare value
/// (`{"a":1}`), which cannot share the key's operator object with the other
/// test (`{"a":{"$in":[1],"$nin":[2]}}`), so the equality would cost an
/// `$and`. This is a choice of form, not of meaning.
public struct SingletonIn: OptimizerRule {
    public init() {}
    public var name: String { "SingletonIn" }

    /// `nil` (unchanged) when no `in` list is left to rewrite: the walk
    /// below rebuilds every node, and the optimizer then compares the copy.
    public func rewritten(_ query: Query) -> Query? {
        guard let c = query.condition, SingletonIn.containsIn(c) else { return nil }
        return apply(query)
    }

    /// Whether an `in` / `not in` test `walk` would rewrite is where it
    /// visits (not inside `$elemMatch`): one of value constants with fewer
    /// than two, or with a repeated, constant. A list of two or more
    /// distinct constants stays as it is whatever its neighbours.
    static func containsIn(_ c: Condition) -> Bool {
        switch c.predicate {
        case .in(_, let terms, let negated):
            guard EqualitiesToIn.members(c, negated: negated) != nil else { return false }
            if terms.count < 2 || terms.count > RemoveDuplicates.linearLimit { return true }
            for (i, t) in terms.enumerated() {
                let key = ExactTerm(t)
                for other in terms[..<i] where ExactTerm(other) == key { return true }
            }
            return false
        case .and(let items), .or(let items): return items.contains(where: containsIn)
        case .not(let inner): return containsIn(inner)
        case .select(_, _, let query, _), .inQuery(_, let query, _): return query.condition.map(containsIn) ?? false
        default: return false
        }
    }

    public func apply(_ query: Query) -> Query {
        guard !NearOrder.fixesOrder(query) else { return query }
        var q = query
        q.condition = query.condition.map { walk($0, keepPositive: false) }
        return q
    }

    private func walk(_ c: Condition, keepPositive: Bool) -> Condition {
        var node = c
        switch c.predicate {
        case .and(let items):
            var counts: [PathKey: Int] = [:]
            for item in items { if let p = SingletonIn.path(item) { counts[PathKey(p), default: 0] += 1 } }
            node.predicate = .and(items.map { item in
                walk(item, keepPositive: SingletonIn.path(item).map { counts[PathKey($0), default: 0] > 1 } ?? false)
            })
        case .or(let items): node.predicate = .or(items.map { walk($0, keepPositive: false) })
        case .not(let inner): node.predicate = .not(walk(inner, keepPositive: false))
        case .select(let path, let key, let query, let negated):
            node.predicate = .select(path, key: key, query: apply(query), negated: negated)
        case .inQuery(let path, let query, let negated):
            node.predicate = .inQuery(path, query: apply(query), negated: negated)
        case .in(let path, let terms, let negated):
            guard EqualitiesToIn.members(c, negated: negated) != nil else { break }
            var unique: [Term] = []
            var seen = Set<ExactTerm>()
            for t in terms where seen.insert(ExactTerm(t)).inserted { unique.append(t) }
            if unique.count == 1 && (negated || !keepPositive) {
                return Condition(.compare(path, negated ? .notEqual : .equal, unique[0]), range: c.range)
            }
            node.predicate = .in(path, unique, negated: negated)
        default: break
        }
        return node
    }

    /// The key a leaf test is about (`nil` for logic, subqueries and relations).
    static func path(_ c: Condition) -> FieldPath? {
        switch c.predicate {
        case .compare(let p, _, _), .in(let p, _, _), .all(let p, _), .size(let p, _), .exists(let p, _),
             .regex(let p, _, _), .like(let p, _), .prefix(let p, _), .text(let p, _, _), .containedBy(let p, _),
             .elementMatch(let p, _), .type(let p, _), .modulo(let p, _, _), .fullText(let p, _),
             .near(let p, _, _, _), .withinBox(let p, _, _), .withinPolygon(let p, _), .withinCenterSphere(let p, _, _),
             .geoIntersects(let p, _):
            return p
        default:
            return nil
        }
    }
}
