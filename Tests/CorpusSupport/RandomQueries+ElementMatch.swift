import CQLKit

/// `$elemMatch` in random queries (EvaluationSemantics.md): the operator form (the
/// condition reads the element itself, an empty path), the field form (keys
/// of object or array elements, numeric keys included), `{}`, and MongoDB's
/// `$all` of `$elemMatch`es (an AND of them on one path). The data has nested
/// arrays in `tags`, `n` and `items`, so elements taken whole and elements
/// read as documents both come up.
extension RandomQueries {
    mutating func elementMatchPredicate() -> Predicate {
        switch rng.weighted([5, 4, 1, 2]) {
        case 0:
            return .elementMatch(rng.pick(["tags", "n", "s", "items"]), elementCondition())
        case 1:
            return .elementMatch(rng.pick(["items", "tags", "o"]), fieldCondition())
        case 2:
            return .elementMatch(rng.pick(["items", "tags", "n"]), Condition(.constant(true)))
        default:
            let path: FieldPath = rng.pick(["items", "tags"])
            let n = 2 + rng.below(2)
            var parts: [Condition] = []
            for _ in 0..<n { parts.append(Condition(.elementMatch(path, rng.chance(0.5) ? elementCondition() : fieldCondition()))) }
            return Condition.and(parts).predicate
        }
    }

    /// Operators on the element itself: comparisons (with array constants,
    /// which a nested array element equals whole, and null), `size`, `in`,
    /// a nested `$elemMatch`; one, or two ANDed, or one negated.
    mutating func elementCondition() -> Condition {
        let element = FieldPath([])
        func one(_ g: inout RandomQueries) -> Condition {
            switch g.rng.weighted([6, 2, 1, 1, 2, 1]) {
            case 0:
                return Condition(.compare(element, g.rng.pick(ComparisonOperator.allCases), .value(g.constant(.any))))
            case 1:
                let items: [Value] = (0..<g.rng.below(3)).map { _ in .int(Int64(g.rng.below(4))) }
                return Condition(.compare(element, g.rng.pick([.equal, .notEqual, .greaterThan, .lessThanOrEqual]), .value(.array(items))))
            case 2:
                return Condition(.size(element, .value(.int(Int64(g.rng.below(3))))))
            case 3:
                return Condition(.in(element, [.value(g.constant(.any)), .value(g.constant(.number))], negated: g.rng.chance(0.3)))
            case 4:
                return Condition(.compare(element, g.rng.pick([.lessThan, .lessThanOrEqual, .greaterThan, .greaterThanOrEqual, .equal]), .value(.null)))
            default:
                return Condition(.elementMatch(element, Condition(.compare(element, g.rng.pick([.greaterThan, .equal]), .value(g.constant(.number))))))
            }
        }
        switch rng.weighted([5, 3, 1]) {
        case 0: return one(&self)
        case 1: return Condition.and([one(&self), one(&self)])
        default: return Condition.not(one(&self))
        }
    }

    /// Conditions on keys of object (or array) elements, numeric keys too.
    mutating func fieldCondition() -> Condition {
        let keys: [(FieldPath, Kind)] = [("name", .string), ("n", .number), ("0", .any), ("1", .any), ("a", .any), ("b.c", .any)]
        func one(_ g: inout RandomQueries) -> Condition {
            let (key, kind) = g.rng.pick(keys)
            switch g.rng.weighted([5, 2, 1]) {
            case 0: return Condition(.compare(key, g.rng.pick(ComparisonOperator.allCases), .value(g.constant(kind))))
            case 1: return Condition(.compare(key, .equal, .value(.null)))
            default: return Condition(.exists(key, g.rng.chance(0.5)))
            }
        }
        switch rng.weighted([4, 3, 1]) {
        case 0: return one(&self)
        case 1: return Condition.and([one(&self), one(&self)])
        default: return Condition.or([one(&self), one(&self)])
        }
    }
}
