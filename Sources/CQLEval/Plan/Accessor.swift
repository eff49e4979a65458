import CQLKit

/// A field path split once at plan time, and the walk that reads it
/// (EvaluationSemantics.md, "Field paths"):
///
/// - a step on an object reads the member; an absent member is **missing**;
/// - a numeric step on an array reaches the element at that index and the
///   field of that name in every object element (``walkNumeric``; out of
///   range: nothing from the index);
/// - any other step on an array fans out: the same step is applied to every
///   element that is an object; elements that are not objects (scalars,
///   nulls, nested arrays) contribute nothing, and neither does an empty
///   array — not even a missing branch, so `a.b = null` does not match
///   `{"a": [1, 2]}` or `{"a": []}` (MongoDB's `null_query_semantics`; a
///   decision where EvaluationSemantics.md only says "fans out", eval corpus
///   nulls.cases);
/// - a step on anything else (null, a string, ...) is missing.
///
/// The walk reports every value reached ("slot") and every branch that ended
/// missing, through callbacks that can stop it early, so no array of slots is
/// allocated per object.
struct Accessor: Sendable {
    struct Step: Sendable {
        let key: String
        /// The step as an array index when it is a non-negative decimal integer.
        let index: Int?
        /// Whether a dictionary hit must be checked byte by byte: Swift's
        /// `String ==` is canonical equivalence, and only non-ASCII keys and
        /// the three ASCII characters with a non-ASCII equivalent (`K` the
        /// Kelvin sign, `;` U+037E, `` ` `` U+1FEF) can hit another key.
        let checksBytes: Bool
    }

    let steps: [Step]
    /// The key of a one-step path (most paths): `visit` then reads it from
    /// the root object directly, without the recursive walk.
    let singleKey: String?
    /// The top-level built-in keys `createdAt` / `updatedAt` read ISO strings
    /// as Dates (EvaluationSemantics.md); no other key does.
    let coercesDates: Bool
    /// The dotted path, for messages.
    let dotted: String

    init(_ path: FieldPath) {
        // An empty path (`$elemMatch` on the element itself) has no steps.
        let components = path.components == [""] ? [] : path.components
        steps = components.map { Step(key: $0, index: Accessor.arrayIndex($0), checksBytes: Accessor.checksBytes($0)) }
        singleKey = steps.count == 1 ? steps[0].key : nil
        coercesDates = components.count == 1 && (components[0] == "createdAt" || components[0] == "updatedAt")
        dotted = components.joined(separator: ".")
    }

    private static func checksBytes(_ key: String) -> Bool {
        key.utf8.contains { $0 >= 0x80 || $0 == UInt8(ascii: "K") || $0 == UInt8(ascii: ";") || $0 == UInt8(ascii: "`") }
    }

    private static func arrayIndex(_ s: String) -> Int? {
        guard !s.isEmpty, s.utf8.count <= 18, s.utf8.allSatisfy({ $0 >= 48 && $0 <= 57 }) else { return nil }
        return Int(s)
    }

    /// Walks the path from `root`. `present` receives each value reached,
    /// `missing` is called for each branch that ends without one; either
    /// returns `true` to stop the walk. Returns whether it was stopped.
    @inline(__always)
    func visit(_ root: Value, present: (Value) -> Bool, missing: () -> Bool) -> Bool {
        if let key = singleKey {
            switch root {
            case .object(let o), .typedObject(_, let o):
                let hit = steps[0].checksBytes ? Accessor.memberByBytes(o, key) : o[key]
                guard let child = hit else { return missing() }
                return reached(child, present)
            default:
                break
            }
        }
        return walk(root, 0, present, missing)
    }

    /// The end of a walk: `createdAt`/`updatedAt` strings become Dates.
    @inline(__always)
    private func reached(_ value: Value, _ present: (Value) -> Bool) -> Bool {
        if coercesDates, case .string(let s) = value, let d = ISODate.parse(s) { return present(.date(d)) }
        return present(value)
    }

    /// Out of line, so that the inlined `visit` stays small in every predicate.
    @inline(never)
    private func walk(_ value: Value, _ i: Int, _ present: (Value) -> Bool, _ missing: () -> Bool) -> Bool {
        if i == steps.count { return reached(value, present) }
        let step = steps[i]
        switch value {
        case .object(let o), .typedObject(_, let o):
            guard let child = Accessor.member(o, step) else { return missing() }
            return walk(child, i + 1, present, missing)
        case .array(let items):
            if let index = step.index { return walkNumeric(items, index, i, present, missing) }
            for item in items {
                switch item {
                case .object, .typedObject:
                    if walk(item, i, present, missing) { return true }
                default:
                    continue
                }
            }
            return false
        default:
            return missing()
        }
    }

    /// A numeric step on an array, as MongoDB's path iterator takes it
    /// (EvaluationSemantics.md): the step names the field `"1"` of every object
    /// element (an element without it is a missing branch), **and** the
    /// element at that index, from which the rest of the path goes on if it
    /// is an object or array (a scalar there has no keys: it reaches
    /// nothing). An index past the end reaches nothing either, like an
    /// empty array; so `a.1 = 4` matches `{"a": [{"1": 4}, 5]}`, and
    /// `a.1 = null` does not match `{"a": [5]}`.
    @inline(never)
    private func walkNumeric(_ items: [Value], _ index: Int, _ i: Int, _ present: (Value) -> Bool, _ missing: () -> Bool) -> Bool {
        let last = i + 1 == steps.count
        for (k, item) in items.enumerated() {
            switch item {
            case .object, .typedObject:
                if walk(item, i, present, missing) { return true }
            default:
                break
            }
            guard k == index else { continue }
            if last {
                if reached(item, present) { return true }
                continue
            }
            switch item {
            case .object, .typedObject, .array:
                if walk(item, i + 1, present, missing) { return true }
            default:
                continue
            }
        }
        return false
    }

    /// The member `step.key` of `o`, matched by bytes like every string
    /// (EvaluationSemantics.md): a dictionary lookup alone also finds a canonically
    /// equivalent key (`e\u{301}` for `é`, `\u{212A}` for `K`). Keys that
    /// cannot meet such a key take the plain lookup (no cost on the hot path).
    @inline(__always)
    static func member(_ o: [String: Value], _ step: Step) -> Value? {
        guard step.checksBytes else { return o[step.key] }
        return memberByBytes(o, step.key)
    }

    /// The lookup with the byte check, out of line: it is rare, and inlined
    /// into every predicate it slowed the common lookups down.
    @inline(never)
    private static func memberByBytes(_ o: [String: Value], _ key: String) -> Value? {
        guard let i = o.index(forKey: key), Semantic.bytesEqual(o[i].key, key) else { return nil }
        // (Not a `? value : nil` ternary: `Value` is expressible by `nil`,
        // so that `nil` would be a present `.null`.)
        return o[i].value
    }

    /// Whether some value reached satisfies `test`.
    @inline(__always)
    func anyPresent(_ root: Value, _ test: (Value) -> Bool) -> Bool {
        visit(root, present: test, missing: { false })
    }

    /// Every value reached, and whether some branch ended missing.
    func collect(_ root: Value) -> (values: [Value], sawMissing: Bool) {
        var values: [Value] = []
        var sawMissing = false
        _ = visit(root, present: { values.append($0); return false }, missing: { sawMissing = true; return false })
        return (values, sawMissing)
    }

    /// The value at the path without fanning out over arrays (for projection
    /// aliases and `$select` keys on plain objects); `nil` when missing.
    func plainValue(_ root: Value) -> Value? {
        var v = root
        for step in steps {
            switch v {
            case .object(let o), .typedObject(_, let o):
                guard let child = Accessor.member(o, step) else { return nil }
                v = child
            case .array(let items):
                guard let index = step.index, index < items.count else { return nil }
                v = items[index]
            default:
                return nil
            }
        }
        if coercesDates, case .string(let s) = v, let d = ISODate.parse(s) { return .date(d) }
        return v
    }
}
