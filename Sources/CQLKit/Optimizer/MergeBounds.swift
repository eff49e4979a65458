/// Keeps one bound per key, direction and type class: the tighter one under
/// `and`, the looser one under `or`.
///
/// ```
/// a > 1 and a >= 3            →   a >= 3
/// a < 5 and a <= 5            →   a < 5
/// a > 1 or a > 3              →   a > 1
/// s >= 'b' and s > 'a'        →   s >= 'b'
/// a > 3 and a < 3             stays (opposite directions: [5, 1] matches)
/// a > 'a' and a > 1           stays (two type classes: ['b', 2] matches)
/// a >= null and a > 1         stays (null ranges are special)
/// ```
///
/// Sound everywhere: a range test matches when some value reached at the key
/// (an element, where the path fans out over an array) is of the constant's
/// type class and compares true (EvaluationSemantics.md). For two lower bounds
/// `lo1 <= lo2` of one class, a value above `lo2` is above `lo1`, so "some
/// value above `lo1` and some value above `lo2`" is "some value above
/// `lo2`" — one element serves both; and "some value above `lo1` or some
/// above `lo2`" is "some value above `lo1`". Upper bounds mirror this.
/// Numbers compare exactly across Int64 and Double, strings by code point,
/// Dates by instant; null, booleans and other classes are left alone.
public struct MergeBounds: ConditionRule {
    public init() {}
    public var name: String { "MergeBounds" }
    /// Fires only on two bounds of one direction side by side.
    public var triggers: ConditionFeatures? { .boundPair }

    public func rewrite(_ c: Condition) -> Condition? {
        switch c.predicate {
        case .and(let items): return merge(items, tighter: true, range: c.range) { Condition(.and($0), range: $1) }
        case .or(let items): return merge(items, tighter: false, range: c.range) { Condition(.or($0), range: $1) }
        case .not, .constant, .compare, .in, .all, .size, .exists, .regex, .like, .prefix, .text, .containedBy,
             .elementMatch, .type, .modulo, .fullText, .select, .inQuery, .relatedTo, .relationHolds, .aclGrants, .near, .withinBox,
             .withinPolygon, .withinCenterSphere, .geoIntersects: return nil
        }
    }

    private struct Key: Hashable {
        var path: PathKey
        var lower: Bool
        var typeClass: ConstantOrder.TypeClass
    }

    private func merge(_ items: [Condition], tighter: Bool, range: SourceRange?,
                       make: ([Condition], SourceRange?) -> Condition) -> Condition? {
        // Nothing merges without two bounds: answer before building keys.
        guard items.lazy.filter(MergeBounds.isBound).dropFirst().first != nil else { return nil }
        // The best bound so far per (path, direction, type class), found by
        // linear search: few bounds share an `and`, and a dictionary keyed
        // by the path's bytes cost an allocation and a hash per bound.
        var best: [(path: FieldPath, lower: Bool, typeClass: ConstantOrder.TypeClass, index: Int)] = []
        // Long lists (up to QueryLimits' 10,000 conditions) index `best` by key.
        var slots: [Key: Int] = [:]
        var drop = Set<Int>()
        for (i, item) in items.enumerated() {
            guard case .compare(let path, let op, let term) = item.predicate, let cls = ConstantOrder.typeClass(term),
                  op != .equal && op != .notEqual
            else { continue }
            let lower = op == .greaterThan || op == .greaterThanOrEqual
            let found = items.count <= 64
                ? best.firstIndex(where: { $0.lower == lower && $0.typeClass == cls && PathKey.sameBytes($0.path, path) })
                : slots[Key(path: PathKey(path), lower: lower, typeClass: cls)]
            guard let b = found else {
                if items.count > 64 { slots[Key(path: PathKey(path), lower: lower, typeClass: cls)] = best.count }
                best.append((path, lower, cls, i))
                continue
            }
            let j = best[b].index
            if stronger(item, than: items[j], lower: lower) == tighter {
                drop.insert(j)
                best[b].index = i
            } else {
                drop.insert(i)
            }
        }
        if drop.isEmpty { return nil }
        let kept = items.indices.filter { !drop.contains($0) }.map { items[$0] }
        return kept.count == 1 ? kept[0] : make(kept, range)
    }

    /// Whether `c` is a range comparison with a constant of a type class (a bound `merge` considers).
    private static func isBound(_ c: Condition) -> Bool {
        guard case .compare(_, let op, let term) = c.predicate, op != .equal && op != .notEqual else { return false }
        return ConstantOrder.typeClass(term) != nil
    }

    /// Whether `a` admits fewer values than `b` (both bounds of one direction and class).
    private func stronger(_ a: Condition, than b: Condition, lower: Bool) -> Bool {
        guard case .compare(_, let opA, let ta) = a.predicate, case .compare(_, let opB, let tb) = b.predicate,
              let va = ta.value, let vb = tb.value, let d = ConstantOrder.compare(va, vb)
        else { return false }
        if d == 0 { return (opA == .greaterThan || opA == .lessThan) && opB != opA }
        return lower ? d > 0 : d < 0
    }
}
