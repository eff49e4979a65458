import CQLKit

/// Drawing helpers on ``SplitMix64`` that do not depend on the standard
/// library's `random(in:using:)` algorithms, so a seed means the same data
/// on every Swift version.
extension SplitMix64 {
    /// A uniform integer in `0..<n` (0 when `n <= 1`).
    public mutating func below(_ n: Int) -> Int { n <= 1 ? 0 : Int(next() % UInt64(n)) }

    /// `true` with probability `p`.
    public mutating func chance(_ p: Double) -> Bool { Double(next() >> 11) / 9_007_199_254_740_992.0 < p }

    /// One element of a non-empty array.
    public mutating func pick<T>(_ items: [T]) -> T { items[below(items.count)] }

    /// An index drawn with the given relative weights.
    public mutating func weighted(_ weights: [Int]) -> Int {
        let total = weights.reduce(0, +)
        var r = below(total)
        for (i, w) in weights.enumerated() {
            if r < w { return i }
            r -= w
        }
        return weights.count - 1
    }
}

/// The collections of one random case: the main class, a second class for
/// subqueries and pointers, and the relation join collection
/// (`_Join:likes:<second class>`, the layout EvaluationSemantics.md names).
public struct RandomDataset: Sendable {
    public var mainClass: String
    public var subClass: String
    /// The relation key of the join collection.
    public var relationKey: String
    public var collections: [String: [[String: Value]]]

    /// The objects of `className` as NDJSON (typed values in REST form), one per line.
    public func ndjson(_ className: String) -> String {
        (collections[className] ?? []).map { JSONWriter.string(.object($0)) }.joined(separator: "\n")
    }

    /// Every collection as NDJSON, each under a `# <class>` header: what a
    /// failure message prints so the case can be rebuilt by hand.
    public var dump: String {
        collections.keys.sorted().map { "# \($0)\n" + ndjson($0) }.joined(separator: "\n")
    }
}

/// The value pools of the random schema. Queries draw their constants from
/// the same pools as the data, so equalities and ranges actually hit.
public enum RandomPools {
    public static let ints: [Int64] = [0, 1, 2, 3, -1, 10, 42, 1 << 53, (1 << 53) + 1, .max, .min, -7]
    public static let doubles: [Double] = [
        0.0, -0.0, 1.0, 2.0, 2.5, -1.5, 0.1, 10.0, 1e300, -1e-300, 9_007_199_254_740_992.0, 9.223372036854775807e18, 3.0,
    ]
    /// Mixed case, Unicode (precomposed and combining, case-folding traps),
    /// newlines, regex and LIKE metacharacters, empty and blank strings.
    public static let strings: [String] = [
        "a", "A", "abc", "Abc", "ABC", "b", "Dennis", "dennis", "DENNIS", "dennis\n", "straße", "STRASSE", "Straße",
        "ß", "é", "e\u{301}", "É", "İ", "i", "ı", "x\ny", "line1\nline2", "a.b", "a*b", "*", "50%", "a_b", "[x]",
        "(?)", #"\E"#, #"a\Eb"#, "$^", "", " ", "word other", "Word-other", "other words2 3", "日本語", "emoji 😀",
        "tab\tsep", "10", "2", "null", "true", "'quote'", "\"dq\"", "back\\slash", "%", "_", "a%b", "\u{0}",
        "\u{FEFF}bom", "line\u{2028}sep", "del\u{7F}", "nel\u{85}x", "\r\n", "K", "\u{212A}", "`tick`",
    ]
    public static let isoDates: [String] = [
        "2015-06-21T18:02:52.249Z", "2015-06-21T18:02:52.250Z", "2011-08-20T02:06:57.931Z", "2020-01-01T00:00:00.000Z",
        "1969-12-31T23:59:59.999Z",
    ]
    /// Other spellings of `createdAt` strings: the same instants with an
    /// offset or without milliseconds, a bare date, and strings that are no date.
    public static let createdAtStrings: [String] = [
        "2015-06-22T02:02:52.249+08:00", "2020-01-01T00:00:00Z", "2020-01-01", "yesterday", "2015-13-01T00:00:00.000Z",
    ]
    public static let latitudes: [Double] = [0, 0.5, -5, 5, 10, -10, 40.0, 89.9, -90, 1.25]
    public static let longitudes: [Double] = [0, 0.5, -5, 5, 10, -10, 116.4, 179.9, -180, 180, 1.25]
    /// Words for Usergrid `contains` and case-insensitive matches.
    public static let words: [String] = [
        "word", "WORD", "wo", "other", "Other", "words2", "3", "straße", "STRASSE", "ß", "日本語", "a.b", "dennis",
        "DEN", "x", "line2", "emoji", "😀",
    ]

    public static func date(_ iso: String) -> DateValue { ISODate.parse(iso) ?? DateValue(millisecondsSince1970: 0) }
}

/// Random objects over a small schema. Every field mostly holds its own
/// kind of value, and sometimes an adversarial one: another type, null, a
/// missing key, an array (for MongoDB's fan-out), an object.
///
/// | key | mostly | also |
/// |---|---|---|
/// | `objectId` | `<prefix><i>` | — |
/// | `createdAt` | ISO string (a Date by EvaluationSemantics.md) | typed Date, missing, a number, null, true, a string that is no date |
/// | `n` | Int64 / Double, equal pairs (1, 1.0), big values | numeric strings, bools, null, arrays |
/// | `s` | strings from ``RandomPools/strings`` | arrays of strings, numbers, null |
/// | `tags` | arrays: empty, nested, mixed | scalars, null, `[[1, 2], 3, {"0": 1}]` |
/// | `items` | arrays of objects `{name, n}` | one object, `[]`, `[1, {...}]`, `[{"1": {...}}, {...}]` |
/// | `o` | `{a, b: {c}}` | null, arrays of objects |
/// | `at` | typed Date | ISO string (not a Date), null |
/// | `p` | Pointer to the second class | Pointer elsewhere, array of Pointers, string |
/// | `loc` | typed GeoPoint | Usergrid `{latitude, longitude}`, `[lng, lat]`, near-misses |
/// | `b` | Bool | null, `1`, `"true"` |
/// | `f` | File (`id` or `name`, with or without `url`) | any scalar |
public struct RandomDataGenerator {
    public var rng: SplitMix64

    public init(rng: SplitMix64) { self.rng = rng }

    /// `count` objects with ids `<idPrefix>0...`. Pointers in `p` go to
    /// `pointerClass` objects `<pointerPrefix>0..<pointerCount`.
    public mutating func collection(count: Int, idPrefix: String, pointerClass: String, pointerPrefix: String, pointerCount: Int)
        -> [[String: Value]]
    {
        var out: [[String: Value]] = []
        for i in 0..<count {
            out.append(object(id: "\(idPrefix)\(i)", pointerClass: pointerClass, pointerPrefix: pointerPrefix, pointerCount: pointerCount))
        }
        return out
    }

    mutating func object(id: String, pointerClass: String, pointerPrefix: String, pointerCount: Int) -> [String: Value] {
        var o: [String: Value] = ["objectId": .string(id)]
        func put(_ key: String, _ present: Double, _ make: (inout RandomDataGenerator) -> Value) {
            if rng.chance(present) { o[key] = make(&self) }
        }
        put("createdAt", 0.9) { g in
            let iso = g.rng.pick(RandomPools.isoDates)
            switch g.rng.weighted([6, 2, 1, 1]) {
            case 0: return .string(iso)
            case 1: return .date(RandomPools.date(iso))
            case 2: return .string(g.rng.pick(RandomPools.createdAtStrings))
            // Not a Date at all: SQL's date column is NULL for these.
            default: return g.rng.pick([.int(17), .double(1.5), .null, .bool(true), .string("")])
            }
        }
        put("n", 0.85) { $0.numberish() }
        put("s", 0.85) { $0.stringish() }
        put("tags", 0.8) { $0.tags() }
        put("items", 0.7) { $0.items() }
        put("o", 0.6) { $0.nested() }
        put("at", 0.7) { g in
            let iso = g.rng.pick(RandomPools.isoDates)
            switch g.rng.weighted([7, 2, 1]) {
            case 0: return .date(RandomPools.date(iso))
            case 1: return .string(iso)
            default: return .null
            }
        }
        put("p", 0.7) { g in
            switch g.rng.weighted([7, 1, 1, 1]) {
            case 0: return .pointer(Pointer(className: pointerClass, objectId: "\(pointerPrefix)\(g.rng.below(pointerCount + 1))"))
            case 1: return .pointer(Pointer(className: "Other", objectId: "\(pointerPrefix)\(g.rng.below(pointerCount))"))
            case 2:
                return .array([
                    .pointer(Pointer(className: pointerClass, objectId: "\(pointerPrefix)\(g.rng.below(pointerCount))")),
                    .pointer(Pointer(className: pointerClass, objectId: "\(pointerPrefix)\(g.rng.below(pointerCount))")),
                ])
            default: return .string("\(pointerPrefix)\(g.rng.below(pointerCount))")
            }
        }
        put("loc", 0.75) { $0.location() }
        put("loc2", 0.4) { g in .geoPoint(g.geoPoint()) }
        put("f", 0.4) { g in
            switch g.rng.weighted([8, 1, 1]) {
            case 0: return g.file()
            // Not base64 (a constant could not say it), canonically equivalent spellings.
            case 1: return .bytes(base64: g.rng.pick(["é", "e\u{301}"]))
            default: return g.scalar()
            }
        }
        put("from", 0.4) { $0.numberish() }
        // Names that comma-separated `order` / `keys` lists cannot carry.
        put(rng.pick(["a,b", "-neg", " sp", "+pos"]), 0.3) { $0.smallNumber() }
        put("x-y", 0.4) { $0.stringish() }
        put("名前", 0.4) { $0.stringish() }
        put("b", 0.7) { g in
            switch g.rng.weighted([8, 1, 1, 1]) {
            case 0: return .bool(g.rng.chance(0.5))
            case 1: return .null
            case 2: return .int(1)
            default: return .string("true")
            }
        }
        return o
    }

    // MARK: Values

    public mutating func number() -> Value {
        rng.chance(0.5) ? .int(rng.pick(RandomPools.ints)) : .double(rng.pick(RandomPools.doubles))
    }

    /// A small number: the common ground of `1`, `1.0`, `2`, `2.0`.
    public mutating func smallNumber() -> Value {
        let k = Int64(rng.below(4))
        return rng.chance(0.5) ? .int(k) : .double(Double(k))
    }

    public mutating func string() -> Value { .string(rng.pick(RandomPools.strings)) }

    public mutating func date() -> Value { .date(RandomPools.date(rng.pick(RandomPools.isoDates))) }

    public mutating func geoPoint() -> GeoPoint {
        GeoPoint(latitude: rng.pick(RandomPools.latitudes), longitude: rng.pick(RandomPools.longitudes))
    }

    /// A scalar of any type (including typed values).
    public mutating func scalar() -> Value {
        switch rng.weighted([6, 4, 6, 2, 2, 2, 2, 1, 1]) {
        case 0: return rng.chance(0.5) ? number() : smallNumber()
        case 1: return rng.chance(0.5) ? .bool(rng.chance(0.5)) : .null
        case 2: return string()
        case 3: return date()
        case 4: return .pointer(Pointer(className: "S", objectId: "s\(rng.below(4))"))
        case 5: return .geoPoint(geoPoint())
        case 6: return .object(["a": smallNumber()])
        case 7: return .bytes(base64: rng.pick(["AAE=", "aGk=", ""]))
        default: return rng.chance(0.7) ? file() : .relation(className: rng.chance(0.5) ? "S" : "T")
        }
    }

    /// A File: LeanCloud's (by `id`) or Parse's (by `name`), with or without
    /// a `url` (which is not part of its identity).
    public mutating func file() -> Value {
        let url: String? = rng.chance(0.5) ? "http://files/\(rng.below(2))" : nil
        // Ids that are canonically equivalent but not the same bytes, too.
        if rng.chance(0.7) { return .file(FileReference(id: rng.pick(["f0", "f1", "é", "e\u{301}"]), url: url)) }
        return .file(FileReference(name: "n\(rng.below(2)).png", url: url))
    }

    /// A number, string or boolean (what every query language can write),
    /// mostly of the kind a path holds.
    public mutating func plainScalar(_ kind: RandomQueries.Kind) -> Value {
        let preferred = rng.chance(0.8)
        switch kind {
        case .number where preferred: return rng.chance(0.6) ? smallNumber() : number()
        case .string where preferred, .id where preferred: return string()
        case .bool where preferred: return .bool(rng.chance(0.5))
        default:
            switch rng.weighted([3, 3, 1]) {
            case 0: return smallNumber()
            case 1: return string()
            default: return .bool(rng.chance(0.5))
            }
        }
    }

    mutating func numberish() -> Value {
        switch rng.weighted([6, 3, 1, 1, 1, 1, 1]) {
        case 0: return smallNumber()
        case 1: return number()
        case 2: return .null
        case 3: return .array((0..<rng.below(3)).map { _ in smallNumber() })
        case 4: return .string(rng.pick(["1", "10", "2.0"]))
        case 5: return .bool(rng.chance(0.5))
        default: return .array([number(), .array([smallNumber()])])
        }
    }

    mutating func stringish() -> Value {
        switch rng.weighted([10, 1, 1, 1, 1]) {
        case 0: return string()
        case 1: return .array((0..<rng.below(3)).map { _ in string() })
        case 2: return .null
        case 3: return smallNumber()
        default: return .array([string(), smallNumber()])
        }
    }

    mutating func tags() -> Value {
        switch rng.weighted([2, 4, 2, 1, 1, 1, 1]) {
        case 0: return .array([])
        case 1: return .array((0..<(1 + rng.below(3))).map { _ in rng.chance(0.7) ? string() : smallNumber() })
        case 2: return .array((0..<(1 + rng.below(3))).map { _ in scalar() })
        case 3: return .array([.array([string(), smallNumber()]), string(), .null])
        case 4: return string()
        case 5:
            // Nested arrays of numbers beside a number and an object with a
            // numeric key: `$elemMatch` takes elements whole, `tags.0` reaches
            // both the element and the field "0".
            return .array([.array((0..<rng.below(3)).map { _ in smallNumber() }), smallNumber(), .object(["0": smallNumber(), "name": string()])])
        default: return .null
        }
    }

    mutating func items() -> Value {
        func item(_ g: inout RandomDataGenerator) -> Value {
            var o: [String: Value] = [:]
            if g.rng.chance(0.8) { o["name"] = g.rng.chance(0.9) ? g.string() : .null }
            if g.rng.chance(0.7) { o["n"] = g.smallNumber() }
            return .object(o)
        }
        switch rng.weighted([6, 1, 1, 1, 1, 1]) {
        case 0: return .array((0..<(1 + rng.below(3))).map { _ in item(&self) })
        case 1: return item(&self)
        case 2: return .array([])
        case 3: return .array([smallNumber(), item(&self)])
        // An object element with the numeric key "1": `items.1.n` reaches it too.
        case 4: return .array([.object(["1": item(&self)]), item(&self)])
        default: return .array([item(&self), .array([item(&self)])])
        }
    }

    mutating func nested() -> Value {
        func make(_ g: inout RandomDataGenerator) -> Value {
            var o: [String: Value] = [:]
            if g.rng.chance(0.8) { o["a"] = g.rng.chance(0.5) ? g.smallNumber() : g.scalar() }
            // Keys that are canonically equivalent but not the same bytes, and
            // keys no path can name (a dot, a leading `$`, `__type`).
            if g.rng.chance(0.15) { o[g.rng.pick(["é", "e\u{301}"])] = g.smallNumber() }
            if g.rng.chance(0.08) { o[g.rng.pick(["a.b", "$a", "__type", ""])] = g.rng.chance(0.5) ? g.smallNumber() : g.string() }
            if g.rng.chance(0.7) {
                o["b"] = g.rng.chance(0.85) ? .object(g.rng.chance(0.8) ? ["c": g.scalar()] : [:]) : g.scalar()
            }
            return .object(o)
        }
        switch rng.weighted([7, 1, 2]) {
        case 0: return make(&self)
        case 1: return .null
        default: return .array([make(&self), make(&self)])
        }
    }

    mutating func location() -> Value {
        let p = geoPoint()
        switch rng.weighted([6, 3, 1, 1, 1]) {
        case 0: return .geoPoint(p)
        case 1: return .object(["latitude": .double(p.latitude), "longitude": .double(p.longitude)])
        case 2: return .array([.double(p.longitude), .double(p.latitude)])
        case 3: return .object(["latitude": .double(p.latitude), "longitude": .double(p.longitude), "alt": .int(1)])
        default: return .array([.geoPoint(p), .geoPoint(geoPoint())])
        }
    }
}
