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
/// (EvaluationSemantics.md; `null` in the list matches missing exactly as `k = null`
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
    /// Fires only on an `in` list that may shrink.
    public var triggers: ConditionFeatures? { .reducibleInList }
    /// A rewrite replaces a list by a comparison or a shorter list.
    public var rewritesOnlyOnChange: Bool { true }
    public var name: String { "SingletonIn" }

    /// `nil` (unchanged) when no `in` list is rewritten: the walk below
    /// rebuilds only the nodes above a rewritten list.
    public func rewritten(_ query: Query) -> Query? {
        // The walk first: the `near` test is needed only for a rewrite.
        guard let c = query.condition, let new = walk(c, keepPositive: false), !NearOrder.fixesOrder(query) else { return nil }
        var q = query
        q.condition = new
        return q
    }

    public func apply(_ query: Query) -> Query { rewritten(query) ?? query }

    /// `c` with its lists rewritten, or `nil` when none changed. Not inside
    /// `$elemMatch`; `keepPositive` keeps a positive one-constant list a
    /// list (its key has another test in the same `and`).
    private func walk(_ c: Condition, keepPositive: Bool) -> Condition? {
        var node = c
        switch c.predicate {
        case .and(let items):
            var out: [Condition]?
            var counts: [PathKey: Int]?
            for (i, item) in items.enumerated() {
                // Only a list uses `keepPositive`: count its key's tests then.
                var keep = false
                if case .in(let p, _, _) = item.predicate {
                    if items.count <= RemoveDuplicates.linearLimit {
                        // A second test of the key (a loop, not a lazy filter's `dropFirst().first`).
                        var tests = 0
                        for x in items {
                            guard let q = SingletonIn.path(x), PathKey.sameBytes(q, p) else { continue }
                            tests += 1
                            if tests > 1 { break }
                        }
                        keep = tests > 1
                    } else {
                        if counts == nil {
                            var all: [PathKey: Int] = [:]
                            for x in items { if let q = SingletonIn.path(x) { all[PathKey(q), default: 0] += 1 } }
                            counts = all
                        }
                        keep = counts![PathKey(p), default: 0] > 1
                    }
                }
                guard let new = walk(item, keepPositive: keep) else { continue }
                if out == nil { out = items }
                out![i] = new
            }
            guard let out else { return nil }
            node.predicate = .and(out)
        case .or(let items):
            var out: [Condition]?
            for (i, item) in items.enumerated() {
                guard let new = walk(item, keepPositive: false) else { continue }
                if out == nil { out = items }
                out![i] = new
            }
            guard let out else { return nil }
            node.predicate = .or(out)
        case .not(let inner):
            guard let new = walk(inner, keepPositive: false) else { return nil }
            node.predicate = .not(new)
        case .select(let path, let key, let query, let negated):
            guard let new = rewritten(query) else { return nil }
            node.predicate = .select(path, key: key, query: new, negated: negated)
        case .inQuery(let path, let query, let negated):
            guard let new = rewritten(query) else { return nil }
            node.predicate = .inQuery(path, query: new, negated: negated)
        case .in(let path, let terms, let negated):
            guard EqualitiesToIn.members(c, negated: negated) != nil else { return nil }
            let unique = SingletonIn.distinct(terms)
            if unique.count == 1 && (negated || !keepPositive) {
                return Condition(.compare(path, negated ? .notEqual : .equal, unique[0]), range: c.range)
            }
            guard unique.count != terms.count else { return nil }
            node.predicate = .in(path, unique, negated: negated)
        case .constant, .compare, .all, .size, .exists, .regex, .like, .prefix, .text, .containedBy, .elementMatch,
             .type, .modulo, .fullText, .relatedTo, .relationHolds, .aclGrants, .near, .withinBox, .withinPolygon, .withinCenterSphere,
             .geoIntersects: return nil
        }
        return node
    }

    /// The terms without byte-exact repeats, in first-seen order: by linear
    /// search in a short list, by a set in a long one.
    static func distinct(_ terms: [Term]) -> [Term] {
        var unique: [Term] = []
        unique.reserveCapacity(terms.count)
        if terms.count <= RemoveDuplicates.linearLimit {
            for t in terms {
                let key = ExactTerm(t)
                if !unique.contains(where: { ExactTerm($0) == key }) { unique.append(t) }
            }
        } else {
            var seen = Set<ExactTerm>()
            for t in terms where seen.insert(ExactTerm(t)).inserted { unique.append(t) }
        }
        return unique
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
        case .and, .or, .not, .constant, .select, .inQuery, .relatedTo, .relationHolds, .aclGrants:
            return nil
        }
    }
}
