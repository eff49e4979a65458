import CQLKit

/// MongoDB's sort-key rule (EvaluationSemantics.md, "Order, paging, projection"): a
/// document's key for `order k1, k2, ...` is the best (first in the requested
/// order) of the key tuples a compound multikey index on (k1, k2, ...) would
/// hold for it.
///
/// The index keys of one path:
/// - a step on an object reads the member; a missing member, or a step on
///   anything that is neither an object nor an array, gives null;
/// - an array at the end of the path gives one key per element, each element
///   whole (a nested array is not expanded); an empty one gives
///   ``SortValue/emptyArray``, which sorts before null;
/// - a numeric step on an array that has that index takes the element at
///   it (positional), kept whole when the path ends there (`a.0` over `[[1]]`
///   is the array `[1]`);
/// - any other step on an array (a name, or an index past the end) applies
///   the rest of the path to each element: object elements are walked, every
///   other element gives null; an empty array gives null (it reaches nothing).
///
/// Keys through the same array pair up per element: `a.x, a.y` over
/// `a: [{x: 1, y: 4}, {x: 2, y: 1}]` holds (1, 4) and (2, 1), never (1, 1).
/// Keys through two different arrays of one object would need their cross
/// product, which MongoDB refuses ("cannot sort with keys that are parallel
/// arrays"): ``ParallelArrays``.
///
/// Two readings where MongoDB's index code does something odd: a positional
/// step takes the element even when object elements also have a member
/// named by the number (MongoDB refuses such objects, "Ambiguous field
/// name"), and an element kept whole stays whole when it is an empty array
/// (MongoDB's index holds `undefined` for `a.0` over `[[]]`).
///
/// Walks stop at the first array, so an object without arrays on its order
/// paths costs one lookup per key, as before this rule.
struct SortKeys: Sendable {
    struct Key: Sendable {
        let path: Accessor
        let descending: Bool
    }

    /// Two order keys (indexes into `keys`, `first < second`) that reach two
    /// different arrays of one object.
    struct ParallelArrays: Error {
        let first: Int
        let second: Int
    }

    let keys: [Key]
    /// Per key, whether it is descending (what comparisons read).
    let descending: [Bool]

    init(keys: [Key]) {
        self.keys = keys
        descending = keys.map(\.descending)
    }

    /// The best key of each order key, for one object.
    func best(_ root: Value) throws(ParallelArrays) -> [SortValue] {
        if keys.count == 1 { return [best(0, root)] }
        var fixed = [SortValue](repeating: .value(.null), count: keys.count)
        var pending: [Pending] = []
        for k in keys.indices {
            switch descend(k, root, from: 0, whole: false) {
            case .value(let v): fixed[k] = v
            case .array(let items, let at): pending.append(Pending(key: k, items: items, from: 0, at: at, base: -1))
            }
        }
        if pending.isEmpty { return fixed }
        var best = BestTuple(descending: descending)
        try expand(pending, fixed, &best)
        return best.tuple ?? fixed
    }

    /// The best key of the one order key `k` (no tuple to pair).
    func best(_ k: Int, _ root: Value) -> SortValue {
        switch descend(k, root, from: 0, whole: false) {
        case .value(let v):
            return v
        case .array(let items, let at):
            var best = BestValue(descending: keys[k].descending)
            offerArray(k, items, at: at, &best)
            return best.value ?? .value(.null)
        }
    }

    // MARK: Walking one path

    /// Where a walk through objects ended: a key, or an array with the path
    /// still to apply from step `at` (`at == steps.count`: the path ends on it).
    private enum Reach {
        case value(SortValue)
        case array([Value], at: Int)
    }

    /// Walks key `k`'s path from step `from`, through objects only.
    /// `whole`: `value` is a positionally indexed element that ends the path.
    @inline(__always)
    private func descend(_ k: Int, _ value: Value, from: Int, whole: Bool) -> Reach {
        let path = keys[k].path
        if whole { return .value(.value(value)) }
        var v = value
        var i = from
        while i < path.steps.count {
            switch v {
            case .object(let o), .typedObject(_, let o):
                guard let child = Accessor.member(o, path.steps[i]) else { return .value(.value(.null)) }
                v = child
                i += 1
            case .array(let items):
                return .array(items, at: i)
            default:
                return .value(.value(.null))
            }
        }
        if case .array(let items) = v { return .array(items, at: i) }
        // `createdAt` / `updatedAt` strings are Dates (EvaluationSemantics.md).
        if path.coercesDates, case .string(let s) = v, let d = ISODate.parse(s) { return .value(.value(.date(d))) }
        return .value(.value(v))
    }

    /// The positional element of `items` for step `at` of key `k`, if the step
    /// is an index the array has.
    @inline(__always)
    private func positional(_ k: Int, _ items: [Value], at: Int) -> Int? {
        let steps = keys[k].path.steps
        guard at < steps.count, let index = steps[at].index, index < items.count else { return nil }
        return index
    }

    /// Offers every key of key `k` below an array met at step `at`.
    private func offerArray(_ k: Int, _ items: [Value], at: Int, _ best: inout BestValue) {
        let count = keys[k].path.steps.count
        if items.isEmpty {
            best.offer(at == count ? .emptyArray : .value(.null))
        } else if at == count {
            for item in items { best.offer(.value(item)) }
        } else if let index = positional(k, items, at: at) {
            offer(k, items[index], from: at + 1, whole: at + 1 == count, &best)
        } else {
            for item in items {
                switch item {
                case .object, .typedObject: offer(k, item, from: at, whole: false, &best)
                default: best.offer(.value(.null))
                }
            }
        }
    }

    private func offer(_ k: Int, _ value: Value, from: Int, whole: Bool, _ best: inout BestValue) {
        switch descend(k, value, from: from, whole: whole) {
        case .value(let v): best.offer(v)
        case .array(let items, let at): offerArray(k, items, at: at, &best)
        }
    }

    // MARK: Pairing several paths

    /// A key whose walk met an array. `base` names the value the walk started
    /// from: -1 the object itself, else the index of the element of the
    /// array expanded one level up; `from..<at` are the steps walked from it.
    private struct Pending {
        let key: Int
        let items: [Value]
        let from: Int
        let at: Int
        let base: Int
    }

    /// Whether two pending keys met the same array: the same start and the
    /// same member names (by bytes, as member lookups match) down to it.
    private func sameArray(_ a: Pending, _ b: Pending) -> Bool {
        guard a.base == b.base, a.at - a.from == b.at - b.from else { return false }
        let sa = keys[a.key].path.steps, sb = keys[b.key].path.steps
        for j in 0..<(a.at - a.from) where !Semantic.bytesEqual(sa[a.from + j].key, sb[b.from + j].key) { return false }
        return true
    }

    /// Offers the key tuples below the arrays the `pending` keys met (all keys
    /// not pending are in `fixed`), expanding one shared array per level.
    private func expand(_ pending: [Pending], _ fixed: [SortValue], _ best: inout BestTuple) throws(ParallelArrays) {
        guard let first = pending.first else {
            best.offer(fixed)
            return
        }
        for p in pending.dropFirst() where !sameArray(first, p) {
            throw ParallelArrays(first: min(first.key, p.key), second: max(first.key, p.key))
        }
        var tuple = fixed
        if pending.count == 1 {
            // One key left: the others are constant, so its best key makes the best tuple.
            var one = BestValue(descending: keys[first.key].descending)
            offerArray(first.key, first.items, at: first.at, &one)
            tuple[first.key] = one.value ?? .value(.null)
            best.offer(tuple)
            return
        }
        let items = first.items
        if items.isEmpty {
            for p in pending { tuple[p.key] = p.at == keys[p.key].path.steps.count ? .emptyArray : .value(.null) }
            best.offer(tuple)
            return
        }
        // Positional keys take the same element whatever element the others are at.
        var positionalStarts: [(key: Int, value: Value, from: Int, whole: Bool, base: Int)] = []
        var perElement: [Pending] = []
        for p in pending {
            if let index = positional(p.key, items, at: p.at) {
                let count = keys[p.key].path.steps.count
                positionalStarts.append((p.key, items[index], p.at + 1, p.at + 1 == count, index))
            } else {
                perElement.append(p)
            }
        }
        // Once when every key is positional, else once per element.
        for index in 0..<(perElement.isEmpty ? 1 : items.count) {
            let element = items[index]
            var next: [Pending] = []
            var row = tuple
            for s in positionalStarts {
                switch descend(s.key, s.value, from: s.from, whole: s.whole) {
                case .value(let v): row[s.key] = v
                case .array(let inner, let at): next.append(Pending(key: s.key, items: inner, from: s.from, at: at, base: s.base))
                }
            }
            for p in perElement {
                if p.at == keys[p.key].path.steps.count {
                    row[p.key] = .value(element)
                    continue
                }
                switch element {
                case .object, .typedObject:
                    switch descend(p.key, element, from: p.at, whole: false) {
                    case .value(let v): row[p.key] = v
                    case .array(let inner, let at): next.append(Pending(key: p.key, items: inner, from: p.at, at: at, base: index))
                    }
                default:
                    row[p.key] = .value(.null)
                }
            }
            try expand(next, row, &best)
        }
    }

    // MARK: Keeping the best

    /// The best single key seen: smallest ascending, largest descending.
    private struct BestValue {
        let descending: Bool
        var value: SortValue?

        init(descending: Bool) { self.descending = descending }

        @inline(__always)
        mutating func offer(_ candidate: SortValue) {
            guard let v = value else {
                value = candidate
                return
            }
            let c = SortValue.compare(candidate, v)
            if descending ? c > 0 : c < 0 { value = candidate }
        }
    }

    /// The best tuple seen, in the order's own comparison.
    private struct BestTuple {
        let descending: [Bool]
        var tuple: [SortValue]?

        init(descending: [Bool]) { self.descending = descending }

        mutating func offer(_ candidate: [SortValue]) {
            guard let t = tuple else {
                tuple = candidate
                return
            }
            if SortKeys.compare(candidate, t, descending) < 0 { tuple = candidate }
        }
    }

    /// Compares two key tuples in the order: key by key, descending keys reversed.
    @inline(__always)
    static func compare(_ a: [SortValue], _ b: [SortValue], _ descending: [Bool]) -> Int {
        for i in descending.indices {
            let c = SortValue.compare(a[i], b[i])
            if c != 0 { return descending[i] ? -c : c }
        }
        return 0
    }
}
