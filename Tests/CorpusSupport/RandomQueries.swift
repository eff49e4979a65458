import CQLKit

/// A seeded generator of random test cases for differential and property
/// tests: a ``RandomDataset`` (see ``RandomDataGenerator`` for the schema)
/// and bound ``Query`` ASTs over it, built with the smart constructors.
///
/// Queries use every construct the AST has: `and`/`or`/`not` nesting,
/// comparisons with each operator and typed constants, `in`/`not in` (empty
/// lists, `null` members), `all`, `size`, `exists`, `regex` (patterns from a
/// safe list, options from `imsx`), `like` (`%` `_` `[..]` and escaped
/// metacharacters), Usergrid text matches, `near` / box / polygon /
/// center-sphere with valid coordinates, `$select` / `$inQuery` subqueries
/// over the second class, `related ... to`, the MongoDB-only operators, and
/// order keys, skip/limit, count, keys and include. ``Features`` switches
/// families off for backends that lack them (the SQL backends reuse this).
///
/// Every query is valid: evaluating it must not fail (regexes compile, geo
/// points are in range, boxes are not inverted, sizes are non-negative).
///
/// ```swift
/// var g = RandomQueries(seed: 42)
/// let data = g.dataset()
/// let q = g.query(data)
/// print(ASTPrinter.describe(q))
/// ```
public struct RandomQueries {
    /// Construct families that can be switched off, so a backend that lacks
    /// some (Usergrid, a SQL dialect) still gets many comparable cases.
    public struct Features: OptionSet, Sendable {
        public let rawValue: Int
        public init(rawValue: Int) { self.rawValue = rawValue }
        public static let subqueries = Features(rawValue: 1 << 0)
        public static let relations = Features(rawValue: 1 << 1)
        /// `near` with a maximum distance.
        public static let near = Features(rawValue: 1 << 2)
        public static let regex = Features(rawValue: 1 << 3)
        public static let like = Features(rawValue: 1 << 4)
        /// Usergrid's case-insensitive equality, wildcard and word matches.
        public static let text = Features(rawValue: 1 << 5)
        /// `$containedBy`, `$elemMatch`, `$type`, `$mod`.
        public static let mongoOperators = Features(rawValue: 1 << 6)
        /// Constant `true` / `false` conditions.
        public static let constants = Features(rawValue: 1 << 7)
        /// Order keys, skip, limit and keys.
        public static let paging = Features(rawValue: 1 << 8)
        /// `count(*)` and `include`.
        public static let countAndInclude = Features(rawValue: 1 << 9)
        /// `null`, Dates, Pointers, GeoPoints and objects as constants.
        public static let typedConstants = Features(rawValue: 1 << 10)
        /// `all`, `size`, `exists`.
        public static let arrayAndExists = Features(rawValue: 1 << 11)
        /// Boxes, polygons, center spheres, and `near` with a minimum.
        public static let geoShapes = Features(rawValue: 1 << 12)
        /// Excluded keys (`-k`).
        public static let excludedKeys = Features(rawValue: 1 << 13)
        /// Renamed keys (Usergrid `{source:alias}`); only whole-projection.
        public static let aliases = Features(rawValue: 1 << 14)
        public static let all = Features(rawValue: (1 << 15) - 1)
        /// What Usergrid `ql` can say.
        public static let usergrid: Features = [.near, .text, .paging, .aliases]
    }

    /// What a key path mostly holds, so constants are drawn from the right pool.
    public enum Kind: Sendable {
        case number, string, array, any, date, pointer, geo, bool, object, id, file
    }

    /// The key paths conditions use: top-level keys, dotted paths into
    /// objects and arrays of objects, an array index, and a key no object has.
    public static let paths: [(FieldPath, Kind)] = [
        ("n", .number), ("s", .string), ("tags", .array), ("tags.0", .any), ("items.name", .string), ("items.n", .number),
        ("o.a", .any), ("o.b.c", .any), ("o", .object), ("at", .date), ("createdAt", .date), ("p", .pointer),
        ("loc", .geo), ("b", .bool), ("objectId", .id), ("nope", .any), ("items", .array), ("o.b", .object),
        ("from", .number), ("x-y", .string), ("名前", .string), ("items.1.n", .number), ("f", .file),
    ]

    /// Key names that comma-separated `order` / `keys` lists cannot carry.
    static let oddNames: [FieldPath] = ["a,b", "-neg", " sp", "+pos"]

    /// Regular expressions that compile under every option set and cannot blow up.
    public static let regexPatterns: [String] = [
        "a", "^a", "b$", "^d", #"\d"#, "^$", ".", "a.b", #"x\ny"#, #"\p{L}+$"#, "[aeiou]{2}", #"^\QA.B\E"#, "é", "ß",
        "^.*$", #"\bword\b"#, "s+", "A|b", "^[^a-z]", "(?i)^d", "(?s)x.y", "^ABC", "straße", "(?m)^line2$", "^[ ]+$",
        "#", "a # comment", #"\Qa*b\E"#, "İ", "^$|^a", "😀", #"\x{e9}"#, "2$",
    ]

    static let typeNames = ["string", "number", "array", "object", "bool", "null", "date", "int", "double"]

    public var rng: SplitMix64
    public var features: Features
    /// How deep `and`/`or`/`not` may nest.
    public var maxDepth: Int
    /// The paths of the current query: a few, so conditions meet on one key
    /// (merging, `$and`, De Morgan) more often than over all ``paths``.
    var focus: [(FieldPath, Kind)] = RandomQueries.paths
    /// The objects the condition being built is about (the main class, or
    /// the second class inside a subquery): constants are often sampled
    /// from them, so that conditions hit.
    var objects: [[String: Value]] = []
    /// Leaf kinds the current query favours (×8), so rare combinations
    /// (two `near`s, several subqueries) come up too.
    var emphasis: Set<Int> = []

    /// `maxDepth` `nil`: mostly 3, sometimes up to 6.
    public init(seed: UInt64, features: Features = .all, maxDepth: Int? = nil) {
        rng = SplitMix64(seed: seed)
        self.features = features
        self.maxDepth = 3
        self.maxDepth = maxDepth ?? (rng.chance(0.1) ? 4 + rng.below(3) : 3)
    }

    // MARK: Data

    /// Main class `T` (ids `t0...`), second class `S` (ids `s0...`), and the
    /// relation `likes` of `S` (`_Join:likes:S`) relating S objects to T objects.
    public mutating func dataset(mainCount: Int? = nil, subCount: Int? = nil) -> RandomDataset {
        let tCount = mainCount ?? 6 + rng.below(9)
        let sCount = subCount ?? 3 + rng.below(4)
        var data = RandomDataGenerator(rng: SplitMix64(seed: rng.next()))
        let t = data.collection(count: tCount, idPrefix: "t", pointerClass: "S", pointerPrefix: "s", pointerCount: sCount)
        let s = data.collection(count: sCount, idPrefix: "s", pointerClass: "T", pointerPrefix: "t", pointerCount: tCount)
        var join: [[String: Value]] = []
        for _ in 0..<rng.below(8) {
            join.append(["owningId": .string("s\(rng.below(sCount))"), "relatedId": .string("t\(rng.below(tCount + 1))")])
        }
        return RandomDataset(mainClass: "T", subClass: "S", relationKey: "likes",
                             collections: ["T": t, "S": s, "_Join:likes:S": join])
    }

    // MARK: Queries

    /// A random query over `data.mainClass`.
    public mutating func query(_ data: RandomDataset) -> Query {
        var q = Query(className: data.mainClass)
        focus = (0..<(2 + rng.below(4))).map { _ in rng.pick(Self.paths) }
        emphasis = rng.chance(0.3) ? Set((0..<(1 + rng.below(2))).map { _ in rng.below(Leaf.allCases.count) }) : []
        objects = data.collections[data.mainClass] ?? []
        if rng.chance(0.92) { q.condition = condition(data, depth: 0, subqueryDepth: 0) }
        if features.contains(.paging) {
            if rng.chance(0.4) { q.order = orderKeys(over: objects) }
            if rng.chance(0.2) { q.skip = .value(count(rng.below(4))) }
            if rng.chance(0.3) { q.limit = .value(count(rng.below(7))) }
            if rng.chance(0.15) { q.keys = selectedKeys() }
        }
        if features.contains(.countAndInclude) {
            switch rng.weighted([8, 1, 1]) {
            case 1: q.count = .only
            case 2: q.count = .withResults
            default: break
            }
            if rng.chance(0.1) { q.includes = ["p"] }
        }
        return q
    }

    mutating func selectedKeys() -> [SelectedKey] {
        let candidates: [FieldPath] = ["n", "s", "items.name", "o.b", "p", "loc", "tags", "from", "o.b.c"]
        let style = rng.weighted([6, features.contains(.excludedKeys) ? 2 : 0, features.contains(.aliases) ? 2 : 0])
        var keys: [SelectedKey] = []
        for _ in 0..<(1 + rng.below(3)) {
            let p = rng.chance(0.1) ? rng.pick(Self.oddNames) : rng.pick(candidates)
            guard !keys.contains(where: { $0.path == p }) else { continue }
            keys.append(SelectedKey(p, excluded: style == 1, alias: style == 2 ? "k\(keys.count)" : nil))
        }
        return keys
    }

    /// A count, rarely as a whole double (`2.0`), which means the same.
    mutating func count(_ n: Int) -> Value { rng.chance(0.1) ? .double(Double(n)) : .int(Int64(n)) }

    /// A random condition; compound below `maxDepth`.
    public mutating func condition(_ data: RandomDataset, depth: Int, subqueryDepth: Int) -> Condition {
        if depth < maxDepth, rng.chance(0.42 - 0.1 * Double(depth)) {
            switch rng.weighted([4, 4, 2]) {
            case 0: return Condition.and((0..<(2 + rng.below(2))).map { _ in condition(data, depth: depth + 1, subqueryDepth: subqueryDepth) })
            case 1: return Condition.or((0..<(2 + rng.below(2))).map { _ in condition(data, depth: depth + 1, subqueryDepth: subqueryDepth) })
            default: return Condition.not(condition(data, depth: depth + 1, subqueryDepth: subqueryDepth))
            }
        }
        return Condition(leaf(data, subqueryDepth: subqueryDepth))
    }

    private enum Leaf: CaseIterable {
        case compare, `in`, all, size, exists, regex, like, text, near, box, polygon, centerSphere, select, inQuery,
            related, constant, containedBy, elementMatch, type, modulo
    }

    private func weight(_ leaf: Leaf, subqueryDepth: Int) -> Int {
        let f = features
        func on(_ feature: Features, _ w: Int) -> Int { f.contains(feature) ? w : 0 }
        switch leaf {
        case .compare: return 30
        case .in: return 10
        case .all, .size: return on(.arrayAndExists, 4)
        case .exists: return on(.arrayAndExists, 5)
        case .regex: return on(.regex, 6)
        case .like: return on(.like, 6)
        case .text: return on(.text, 6)
        case .near: return on(.near, 3)
        case .box, .polygon, .centerSphere: return on(.geoShapes, 2)
        case .select, .inQuery: return subqueryDepth < 2 ? on(.subqueries, 3) : 0
        case .related: return subqueryDepth == 0 ? on(.relations, 2) : 0
        case .constant: return on(.constants, 1)
        case .containedBy, .type, .modulo: return on(.mongoOperators, 1)
        case .elementMatch: return on(.mongoOperators, 2)
        }
    }

    private mutating func leaf(_ data: RandomDataset, subqueryDepth: Int) -> Predicate {
        let leaves = Leaf.allCases
        let weights = leaves.enumerated().map { i, leaf in weight(leaf, subqueryDepth: subqueryDepth) * (emphasis.contains(i) ? 8 : 1) }
        let kind = leaves[rng.weighted(weights)]
        var (path, pathKind) = rng.chance(0.8) ? rng.pick(focus) : rng.pick(Self.paths)
        if rng.chance(0.03) { (path, pathKind) = (rng.pick(Self.oddNames), .number) }
        switch kind {
        case .compare:
            if features.contains(.typedConstants), rng.chance(0.06) {
                // Ranges against null: <= and >= mean = null, < and > nothing.
                return .compare(path, rng.pick([.lessThan, .lessThanOrEqual, .greaterThan, .greaterThanOrEqual]), .value(.null))
            }
            return .compare(path, rng.pick(ComparisonOperator.allCases), .value(constant(pathKind, at: path)))
        case .in:
            return .in(path, list(pathKind, at: path, max: 4), negated: rng.chance(0.4))
        case .all:
            return .all(path, list(pathKind, at: path, max: 3))
        case .size:
            let n = Int64(rng.below(4))
            return .size(rng.chance(0.7) ? rng.pick(["tags", "items", "s", "n"]) : path, .value(rng.chance(0.85) ? .int(n) : .double(Double(n))))
        case .exists:
            return .exists(path, rng.chance(0.5))
        case .regex:
            var letters: [Character] = ["i", "m", "s", "x"].filter { _ in rng.chance(0.25) }
            // Any order: a lifted `(?sm)` group must keep it.
            for i in letters.indices.reversed() { letters.swapAt(i, rng.below(i + 1)) }
            let options = String(letters)
            let p = stringPath()
            var pattern = rng.pick(Self.regexPatterns)
            if rng.chance(0.3), let s = sampledString(at: p), let first = s.unicodeScalars.first {
                // The first character of a stored string, quoted, anchored or not.
                pattern = (rng.chance(0.5) ? "^" : "") + #"\Q"# + String(Character(first)) + #"\E"#
            }
            return .regex(p, pattern: .value(.string(pattern)), options: options)
        case .like:
            let p = stringPath()
            return .like(p, pattern: .value(.string(likePattern(at: p))))
        case .text:
            return textMatch()
        case .near:
            let point = geoConstant()
            var minimum = features.contains(.geoShapes) && rng.chance(0.3) ? distance() : nil
            var maximum = rng.chance(0.75) || minimum == nil || !features.contains(.geoShapes) ? distance() : nil
            // An inverted range is a query error (eval corpus, geo.cases).
            if let lo = minimum, let hi = maximum, Self.angle(lo) > Self.angle(hi) { (minimum, maximum) = (hi, lo) }
            return .near(geoPath(), point: .value(point), min: minimum, max: maximum)
        case .box:
            let a = data.geoPoint(&rng), b = data.geoPoint(&rng)
            let sw = GeoPoint(latitude: min(a.latitude, b.latitude), longitude: min(a.longitude, b.longitude))
            let ne = GeoPoint(latitude: max(a.latitude, b.latitude), longitude: max(a.longitude, b.longitude))
            return .withinBox(geoPath(), southwest: .value(.geoPoint(sw)), northeast: .value(.geoPoint(ne)))
        case .polygon:
            return .withinPolygon(geoPath(), (0..<(3 + rng.below(3))).map { _ in .value(.geoPoint(data.geoPoint(&rng))) })
        case .centerSphere:
            return .withinCenterSphere(geoPath(), center: .value(.geoPoint(data.geoPoint(&rng))),
                                       radius: .value(.double(rng.pick([0, 0.01, 0.1, 0.2, 1.0, 3.2]))))
        case .select:
            let keys: [FieldPath] = ["objectId", "n", "s", "tags", "p", "createdAt", "items.name", "o.a", "at"]
            let target: [FieldPath] = ["n", "s", "objectId", "tags", "items.name", "p", "at", "createdAt"]
            return .select(rng.pick(target), key: rng.pick(keys), query: subquery(data, subqueryDepth: subqueryDepth + 1),
                           negated: rng.chance(0.35))
        case .inQuery:
            return .inQuery(rng.chance(0.8) ? "p" : path, query: subquery(data, subqueryDepth: subqueryDepth + 1), negated: rng.chance(0.35))
        case .related:
            let owner = Pointer(className: data.subClass, objectId: "s\(rng.below(4))")
            return .relatedTo(object: .value(.pointer(owner)), key: data.relationKey)
        case .constant:
            return .constant(rng.chance(0.5))
        case .containedBy:
            return .containedBy(rng.chance(0.7) ? "tags" : path, list(.string, max: 4))
        case .elementMatch:
            return elementMatchPredicate()
        case .type:
            return .type(path, rng.pick(Self.typeNames))
        case .modulo:
            let divisor: Int64 = rng.pick([2, 3, -2, 5])
            let remainder: Int64 = rng.pick([0, 1, -1])
            return .modulo(rng.chance(0.7) ? "n" : path, divisor: .value(.int(divisor)),
                           remainder: .value(rng.chance(0.8) ? .int(remainder) : .double(Double(remainder))))
        }
    }

    /// A subquery over the second class, sometimes with its own order and limit.
    mutating func subquery(_ data: RandomDataset, subqueryDepth: Int) -> Query {
        // Mostly the second class; sometimes the main class itself.
        var q = Query(className: rng.chance(0.85) ? data.subClass : data.mainClass)
        if rng.chance(0.85) {
            let saved = (maxDepth, objects)
            maxDepth = min(maxDepth, 2)
            objects = data.collections[q.className] ?? []
            q.condition = condition(data, depth: 0, subqueryDepth: subqueryDepth)
            (maxDepth, objects) = saved
        }
        if features.contains(.paging), rng.chance(0.3) {
            q.order = orderKeys(over: data.collections[q.className] ?? [])
            q.limit = .value(.int(Int64(1 + rng.below(3))))
            if rng.chance(0.3) { q.skip = .value(.int(Int64(rng.below(2)))) }
        }
        return q
    }
}

extension RandomDataset {
    /// A GeoPoint from the shared pool (corners, poles, the antimeridian).
    func geoPoint(_ rng: inout SplitMix64) -> GeoPoint {
        GeoPoint(latitude: rng.pick(RandomPools.latitudes), longitude: rng.pick(RandomPools.longitudes))
    }
}
