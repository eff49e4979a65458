import CQLKit

/// The constants of random queries: values of the right kind, values
/// sampled from the data, LIKE patterns, Usergrid texts and geo distances.
extension RandomQueries {
    /// Every value stored at `path` in ``objects`` (fanning out over arrays,
    /// as the evaluator does) and the elements of arrays found there.
    func stored(at path: FieldPath) -> [Value] {
        var out: [Value] = []
        func walk(_ v: Value, _ i: Int) {
            if i == path.components.count {
                out.append(v)
                if case .array(let items) = v { out += items }
                return
            }
            switch v {
            case .object(let o): if let child = o[path.components[i]] { walk(child, i + 1) }
            case .array(let items):
                if let index = Int(path.components[i]) {
                    if index < items.count { walk(items[index], i + 1) }
                } else {
                    for item in items { walk(item, i) }
                }
            default: break
            }
        }
        for o in objects { walk(.object(o), 0) }
        return out
    }

    /// A value stored at `path`, when there is one (and, without
    /// ``Features/typedConstants``, only a number, string or boolean).
    mutating func sampled(at path: FieldPath) -> Value? {
        let candidates = stored(at: path).filter { v in
            switch v {
            case .int, .double, .string, .bool: return true
            default: return features.contains(.typedConstants)
            }
        }
        // Not `candidates.isEmpty ? nil : ...`: `Value` is expressible by
        // `nil`, so that `nil` would be `.null`, not "none".
        guard !candidates.isEmpty else { return Optional.none }
        return rng.pick(candidates)
    }

    mutating func sampledString(at path: FieldPath) -> String? {
        let strings = stored(at: path).compactMap(\.stringValue)
        return strings.isEmpty ? nil : rng.pick(strings)
    }

    /// A constant for `path`: often a value stored there, else one of `kind`.
    mutating func constant(_ kind: Kind, at path: FieldPath) -> Value {
        if rng.chance(0.45), let v = sampled(at: path) { return v }
        return constant(kind)
    }

    /// A constant for a path of `kind`: mostly of that kind, sometimes of any type.
    public mutating func constant(_ kind: Kind) -> Value {
        var d = RandomDataGenerator(rng: rng)
        defer { rng = d.rng }
        guard features.contains(.typedConstants) else { return d.plainScalar(kind) }
        if d.rng.chance(0.2) { return d.rng.chance(0.3) ? .null : d.scalar() }
        switch kind {
        case .number: return d.rng.chance(0.6) ? d.smallNumber() : d.number()
        case .string: return d.string()
        case .date:
            return d.rng.chance(0.85) ? d.date() : .string(d.rng.pick(RandomPools.isoDates))
        case .pointer: return .pointer(Pointer(className: "S", objectId: "s\(d.rng.below(5))"))
        case .geo:
            let p = d.geoPoint()
            return d.rng.chance(0.7) ? .geoPoint(p) : .object(["latitude": .double(p.latitude), "longitude": .double(p.longitude)])
        case .bool: return .bool(d.rng.chance(0.5))
        case .array:
            return d.rng.chance(0.5) ? .array((0..<d.rng.below(3)).map { _ in d.rng.chance(0.6) ? d.string() : d.smallNumber() }) : d.string()
        case .object:
            switch d.rng.weighted([4, 4, 1, 1, 1]) {
            case 0: return .object(["a": d.smallNumber()])
            case 1: return .object(["c": d.scalar()])
            case 2: return .object([d.rng.pick(["é", "e\u{301}"]): d.smallNumber()])
            case 3: return .object([d.rng.pick(["a.b", "$a", "__type", ""]): d.rng.chance(0.5) ? d.smallNumber() : d.string()])
            default: return .object([:])
            }
        case .id: return .string(d.rng.chance(0.9) ? "t\(d.rng.below(10))" : "s\(d.rng.below(4))")
        case .file: return d.file()
        case .any: return d.scalar()
        }
    }

    mutating func list(_ kind: Kind, at path: FieldPath? = nil, max: Int) -> [Term] {
        (0..<rng.below(max + 1)).map { _ in
            if features.contains(.typedConstants) && rng.chance(0.12) { return .value(.null) }
            return .value(path.map { constant(kind, at: $0) } ?? constant(kind))
        }
    }

    mutating func stringPath() -> FieldPath {
        rng.chance(0.8) ? rng.pick(["s", "items.name", "tags", "s"]) : rng.pick(Self.paths).0
    }

    mutating func geoPath() -> FieldPath {
        switch rng.weighted([14, 4, 2]) {
        case 0: return "loc"
        case 1: return "loc2"
        default: return rng.pick(["nope", "o", "items"])
        }
    }

    mutating func geoConstant() -> Value {
        var d = RandomDataGenerator(rng: rng)
        defer { rng = d.rng }
        return .geoPoint(d.geoPoint())
    }

    static func angle(_ d: Distance) -> Double { (d.value.value?.numberValue ?? 0) / d.unit.earthRadius }

    /// A `near` bound in a random unit.
    mutating func distance() -> Distance {
        let unit = rng.pick(DistanceUnit.allCases)
        let pool: [Double]
        switch unit {
        case .radians: pool = [0, 0.01, 0.1, 0.5, 3.2]
        case .kilometers: pool = [0, 50, 100, 700, 1500, 20000]
        case .miles: pool = [0, 30, 300, 1000, 3000]
        case .meters: pool = [0, 50000, 500_000, 1_500_000, 10_000_000]
        }
        let x = rng.pick(pool)
        return Distance(.value(rng.chance(0.5) && x == x.rounded() ? .int(Int64(x)) : .double(x)), unit)
    }

    /// A LIKE pattern: literal pieces (with regex metacharacters), `%`, `_`
    /// and bracket classes.
    mutating func likePattern(at path: FieldPath) -> String {
        if rng.chance(0.5), let s = sampledString(at: path) {
            // A stored string with a few characters turned into `_` or `%`.
            var scalars = Array(s.unicodeScalars).map { String(Character($0)) }
            for _ in 0..<rng.below(3) where !scalars.isEmpty {
                scalars[rng.below(scalars.count)] = rng.chance(0.5) ? "_" : "%"
            }
            if rng.chance(0.3) { scalars.append("%") }
            if rng.chance(0.3) { scalars.insert("%", at: 0) }
            return scalars.joined()
        }
        let pieces = [
            "%", "%", "_", "[ab]", "[^a]", "[a-c]", "[]x]", "a", "A", "b", "de", "Den", "nis", ".", "(", ")", "$", "^", "*",
            "\\", "[", "]", "ß", "é", "\n", "x", "line", "5", "0", "{2}", "|", "+", "?", "[%]", "[_]",
        ]
        var out = ""
        for _ in 0..<(1 + rng.below(4)) { out += rng.pick(pieces) }
        return out
    }

    mutating func textMatch() -> Predicate {
        let path = stringPath()
        if rng.chance(0.5), let s = sampledString(at: path), !s.contains("*") {
            // A stored string in other case, whole, wildcarded, or a word of it.
            let flipped = rng.chance(0.5) ? s.uppercased() : s.lowercased()
            let words = flipped.split(whereSeparator: { !$0.isLetter && !$0.isNumber }).map(String.init)
            switch rng.weighted([3, 2, 2, 2]) {
            case 0: return .text(path, .equalsIgnoringCase, flipped)
            case 1: return .text(path, .wildcard, String(flipped.prefix(2)) + "*" + String(flipped.suffix(1)))
            case 2: if let w = words.first { return .text(path, .word, w) }
            default: if let w = words.last { return .text(path, .wordPrefix, String(w.prefix(2))) }
            }
        }
        switch rng.weighted([3, 2, 3, 2]) {
        case 0:
            let s = rng.pick(RandomPools.strings + RandomPools.words)
            return .text(path, .equalsIgnoringCase, s.contains("*") ? "dennis" : s)
        case 1:
            var s = ""
            for _ in 0..<(1 + rng.below(3)) { s += rng.pick(["*", "den", "NIS", "a", "ß", "", "x", "."]) }
            if !s.contains("*") { s += "*" }
            return .text(path, .wildcard, s)
        case 2:
            return .text(path, .word, rng.pick(RandomPools.words))
        default:
            return .text(path, .wordPrefix, rng.pick(RandomPools.words))
        }
    }
}
