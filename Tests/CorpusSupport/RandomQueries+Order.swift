import CQLKit

/// Order keys of random queries (EvaluationSemantics.md, "Order, paging,
/// projection"): one to three keys, often several paths through one array of
/// the schema (`items.n, items.name`, `o.a, o.b.c`, `tags, tags.0`), which
/// pair per element under MongoDB's sort-key rule.
///
/// Generated queries must evaluate without error, and two keys through two
/// different arrays of one object are an error ("parallel arrays"): a key
/// that could meet an array in another place than an earlier key does, in
/// some object of the class, is left out (``OrderArrays``).
extension RandomQueries {
    /// Paths through one array of the schema, to be ordered by together.
    static let orderFamilies: [[FieldPath]] = [
        ["items.n", "items.name"], ["items", "items.n"], ["items.name", "items.0.n"], ["items.1.n", "items.0.name"],
        ["o.a", "o.b.c"], ["o.b", "o.a"], ["o", "o.a"], ["tags", "tags.0"], ["tags.1", "tags.0"], ["n", "n.0"],
    ]

    mutating func orderKeys(over objects: [[String: Value]]) -> [OrderKey] {
        let candidates: [FieldPath] = [
            "n", "s", "tags", "items.n", "at", "createdAt", "b", "o.a", "objectId", "nope", "loc", "名前", "items.name", "o.b.c",
            "tags.0",
        ]
        var paths: [FieldPath] = []
        if rng.chance(0.35) {
            paths = rng.pick(Self.orderFamilies)
            if rng.chance(0.5) { paths.reverse() }
            if rng.chance(0.3) { paths.insert(rng.pick(candidates), at: rng.below(3)) }
        } else {
            for _ in 0..<(1 + rng.below(2)) { paths.append(rng.chance(0.1) ? rng.pick(Self.oddNames) : rng.pick(candidates)) }
        }
        var keys: [OrderKey] = []
        for p in paths where !keys.contains(where: { $0.path == p }) {
            let parallel = objects.contains { o in keys.contains { OrderArrays.mayBeParallel($0.path, p, in: o) } }
            if !parallel { keys.append(OrderKey(p, descending: rng.chance(0.4))) }
        }
        return keys
    }
}

/// Where order paths meet arrays in an object, to keep random orders clear
/// of MongoDB's "parallel arrays" error.
public enum OrderArrays {
    /// Whether `a` and `b` may reach two different arrays of `object`: some
    /// array `a` meets and some array `b` meets are not one inside the other
    /// (conservative: it ignores which elements the keys pair up on).
    public static func mayBeParallel(_ a: FieldPath, _ b: FieldPath, in object: [String: Value]) -> Bool {
        let la = locations(a, in: object), lb = locations(b, in: object)
        for x in la {
            for y in lb where !(x.starts(with: y) || y.starts(with: x)) { return true }
        }
        return false
    }

    /// The places (member names and `#index` element steps from the root)
    /// of every array the walk of `path` meets, as the sort-key walk goes:
    /// a numeric step in range takes that element, any other step fans out
    /// over object elements.
    public static func locations(_ path: FieldPath, in object: [String: Value]) -> [[String]] {
        var out: [[String]] = []
        walk(.object(object), path.components[...], [], &out)
        return out
    }

    private static func walk(_ v: Value, _ rest: ArraySlice<String>, _ at: [String], _ out: inout [[String]]) {
        switch v {
        case .object(let o), .typedObject(_, let o):
            guard let step = rest.first, let child = o[step] else { return }
            walk(child, rest.dropFirst(), at + [step], &out)
        case .array(let items):
            out.append(at)
            guard let step = rest.first else { return }
            if step.utf8.allSatisfy({ $0 >= 48 && $0 <= 57 }), let i = Int(step), i < items.count {
                // Positional: the element is kept whole when the path ends on it.
                if rest.count > 1 { walk(items[i], rest.dropFirst(), at + ["#\(i)"], &out) }
                return
            }
            for (k, e) in items.enumerated() {
                switch e {
                case .object, .typedObject: walk(e, rest, at + ["#\(k)"], &out)
                default: continue
                }
            }
        default:
            return
        }
    }
}
