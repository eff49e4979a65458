/// Replaces an `and` that no object can match by `false`, and an `or` that
/// every object matches by `true`, where that is provable exactly.
///
/// ```
/// a = 1 and a != 1                          →   false
/// a in (1, 2) or a not in (1, 2)            →   true
/// a is exists and a is not exists           →   false
/// objectId = 'x' and objectId = 'y'         →   false
/// createdAt > date('2020-01-01T00:00:00Z') and createdAt < date('2019-01-01T00:00:00Z')   →   false
/// a = 1 and a = 2                           stays ([1, 2] matches both)
/// a > 3 and a < 3                           stays ([5, 1] matches both)
/// a > 'a' and a > 1                         stays (['b', 2] matches both)
/// ```
///
/// Sound: (1) anywhere, `x and not x` is false and `x or not x` is true in
/// two-valued logic, with `not x` recognized only in its exact forms
/// (`ExactNegation`). (2) On a path that never holds an array
/// (`Operands.arrayFreePaths`: `objectId`, `createdAt`, `updatedAt`), each
/// object has at most one value there, so two equalities with constants of
/// different values, or an equality and a bound, or two bounds that no single
/// value of the constants' type class satisfies together, cannot all match
/// (ranges and equalities match only values of the constant's type class;
/// missing and null match neither — null constants are left alone). On any
/// other path an array can satisfy each test with a different element, so
/// nothing is concluded there.
public struct Contradictions: ConditionRule {
    public init() {}
    public var name: String { "Contradictions" }
    /// Fires only on operands that may negate each other, or two tests of one array-free key.
    public var triggers: ConditionFeatures? { [.complementKinds, .arrayFreeComparisons] }

    public func rewrite(_ c: Condition) -> Condition? {
        switch c.predicate {
        case .and(let items):
            if hasComplementPair(items) || conflictsOnArrayFreePath(items) { return Condition(.constant(false), range: c.range) }
        case .or(let items):
            if hasComplementPair(items) { return Condition(.constant(true), range: c.range) }
        case .not, .constant, .compare, .in, .all, .size, .exists, .regex, .like, .prefix, .text, .containedBy,
             .elementMatch, .type, .modulo, .fullText, .select, .inQuery, .relatedTo, .relationHolds, .aclGrants, .near, .withinBox,
             .withinPolygon, .withinCenterSphere, .geoIntersects: break
        }
        return nil
    }

    private func hasComplementPair(_ items: [Condition]) -> Bool {
        if items.count <= RemoveDuplicates.linearLimit {
            // A linear search over few operands costs less than hashing them all.
            return items.contains { x in
                guard let n = ExactNegation.negate(x) else { return false }
                let key = ExactCondition(n)
                return items.contains { ExactCondition($0) == key }
            }
        }
        let set = Set(items.map(ExactCondition.init))
        return items.contains { x in ExactNegation.negate(x).map { set.contains(ExactCondition($0)) } ?? false }
    }

    /// One value must lie in `[lower, upper]` and equal each of `equals`.
    private struct Window {
        var equals: [Value] = []
        var lower: (Value, strict: Bool)?
        var upper: (Value, strict: Bool)?
        var classes: Set<ConstantOrder.TypeClass> = []
    }

    private func conflictsOnArrayFreePath(_ items: [Condition]) -> Bool {
        var windows: [PathKey: Window] = [:]
        for item in items {
            guard case .compare(let path, let op, let term) = item.predicate, PathKey.isArrayFree(path),
                  op != .notEqual, let cls = ConstantOrder.typeClass(term), let v = term.value
            else { continue }
            // A string constant on a Date key: whether the evaluator reads it
            // as a Date is not this rule's business; only Dates are compared there.
            if path != "objectId" && cls != .date { continue }
            var w = windows[PathKey(path)] ?? Window()
            w.classes.insert(cls)
            switch op {
            case .equal: w.equals.append(v)
            case .greaterThan, .greaterThanOrEqual:
                let strict = op == .greaterThan
                if let lo = w.lower, let d = ConstantOrder.compare(v, lo.0), d < 0 || (d == 0 && lo.strict) {} else { w.lower = (v, strict) }
            case .lessThan, .lessThanOrEqual:
                let strict = op == .lessThan
                if let up = w.upper, let d = ConstantOrder.compare(v, up.0), d > 0 || (d == 0 && up.strict) {} else { w.upper = (v, strict) }
            case .notEqual: break
            }
            windows[PathKey(path)] = w
        }
        for w in windows.values {
            // Tests that need values of two type classes: no single value passes both.
            if w.classes.count > 1 { return true }
            var points = w.equals
            if let e = points.first, points.dropFirst().contains(where: { ConstantOrder.compare($0, e) != 0 }) { return true }
            if let lo = w.lower, let up = w.upper, let d = ConstantOrder.compare(lo.0, up.0), d > 0 || (d == 0 && (lo.strict || up.strict)) {
                return true
            }
            if let e = points.popLast() {
                if let lo = w.lower, let d = ConstantOrder.compare(e, lo.0), d < 0 || (d == 0 && lo.strict) { return true }
                if let up = w.upper, let d = ConstantOrder.compare(e, up.0), d > 0 || (d == 0 && up.strict) { return true }
            }
        }
        return false
    }
}
