import CQLKit
import CorpusSupport

/// Random queries aimed at the where-JSON writers' hard parts, for
/// ``WhereJSONWriteDifferentialTests``: ANDs nested as written (not
/// flattened, so merges that depend on the nesting happen), few keys so
/// that operators meet on one key (repeats, equality beside operators,
/// NFC and NFD spellings of one key), every value kind with the edges of
/// number and string formatting, and the inputs each check refuses (bad
/// keys, unbound placeholders, non-finite doubles, `$`-keyed objects, odd
/// list keys, aliases). Every node has its own range, so an error's
/// position tells which node threw.
struct RandomWhereRequests {
    var rng: SplitMix64
    /// Ranges handed out so far: the next node's is `position..<position+1`.
    private var position = 0

    init(seed: UInt64) { rng = SplitMix64(seed: seed) }

    private mutating func range() -> SourceRange {
        position += 1
        return SourceRange(position, position + 1)
    }

    static let keys: [FieldPath] = [
        "a", "a", "b", "b", "c.d", "objectId", "é", FieldPath(["e\u{301}"]), "名前",
        FieldPath([""]), "$x", FieldPath(["a.b"]), "a,b", " sp", "-neg", "+pos", "\"q\\",
    ]

    static let strings: [String] = [
        "", "alice", "a\"b\\c", "line\nbreak\t\r", "\u{0}\u{1}\u{1F}\u{7F}", "é", "e\u{301}", "名前", "😀", "%de_[ab]%", "^.*$", "\u{2028}",
    ]

    static let doubles: [Double] = [
        0.1, -0.0, 1.5, 1e16, 1e300, .leastNonzeroMagnitude, 123_456_789_012_345_678_900.0, 2.0, -7.25, .infinity, .nan,
    ]

    static let ints: [Int64] = [0, 1, -1, 42, Int64.max, Int64.min, 1_000_000_000_000_000_000]

    mutating func query() -> Query {
        var q = Query(className: rng.chance(0.9) ? rng.pick(["GameScore", "T", "名前", "a\"b"]) : "", range: range())
        if rng.chance(0.95) { q.condition = condition(depth: 0) }
        if rng.chance(0.3) { q.order = (0..<(1 + rng.below(3))).map { _ in OrderKey(key(), descending: rng.chance(0.5)) } }
        if rng.chance(0.3) { q.skip = count() }
        if rng.chance(0.4) { q.limit = count() }
        if rng.chance(0.2) {
            q.keys = (0..<(1 + rng.below(3))).map { _ in SelectedKey(key(), excluded: rng.chance(0.3), alias: rng.chance(0.05) ? "x" : nil) }
        }
        if rng.chance(0.15) { q.includes = (0..<(1 + rng.below(2))).map { _ in key() } }
        q.count = [CountMode.none, .none, .none, .only, .withResults][rng.below(5)]
        q.returnACL = rng.chance(0.1)
        if rng.chance(0.02) { q.direct = [.int(1)] }
        return q
    }

    /// Mostly keys that repeat; rarely one that some check refuses.
    private mutating func key() -> FieldPath {
        rng.chance(0.85) ? rng.pick(Array(Self.keys.prefix(5))) : rng.pick(Self.keys)
    }

    private mutating func count() -> Term {
        switch rng.below(8) {
        case 0: return .value(.double(3))
        case 1: return .value(.string("3"))
        case 2: return .placeholder(index: 0, range: range())
        default: return .value(.int(Int64(rng.below(100))))
        }
    }

    mutating func condition(depth: Int) -> Condition {
        if depth < 4, rng.chance(0.45 - 0.08 * Double(depth)) {
            let n = rng.below(4)  // 0 and 1 items too: `or()`, a lone branch
            let items = (0..<n).map { _ in condition(depth: depth + 1) }
            switch rng.weighted([4, 4, 3]) {
            case 0: return Condition(.and(items), range: range())
            case 1: return Condition(.or(items), range: range())
            default: return Condition(.not(condition(depth: depth + 1)), range: range())
            }
        }
        return Condition(leaf(), range: range())
    }

    private mutating func leaf() -> Predicate {
        let k = key()
        switch rng.weighted([30, 8, 5, 3, 5, 5, 3, 3, 2, 2, 2]) {
        case 0: return .compare(k, rng.pick(ComparisonOperator.allCases), term())
        case 1: return .in(k, (0..<rng.below(4)).map { _ in term() }, negated: rng.chance(0.4))
        case 2: return .exists(k, rng.chance(0.5))
        case 3: return .size(k, rng.chance(0.8) ? .value(.int(Int64(rng.below(4)))) : term())
        case 4: return .regex(k, pattern: rng.chance(0.9) ? .value(.string(rng.pick(Self.strings))) : term(), options: rng.pick(["", "i", "ms", "d", "x"]))
        case 5: return .like(k, pattern: rng.chance(0.9) ? .value(.string(rng.pick(Self.strings))) : term())
        case 6: return .prefix(k, rng.pick(Self.strings))
        case 7: return .text(k, rng.pick(TextMatch.allCases), rng.pick(["Alice", "a*", "", "b c"]))
        case 8: return .constant(rng.chance(0.5))
        case 9: return .all(k, [term()])
        default: return .elementMatch(k, Condition(.compare(FieldPath([""]), .greaterThan, .value(.int(1))), range: range()))
        }
    }

    /// An operand: every value kind, sometimes a list, a placeholder or a relative time.
    private mutating func term() -> Term {
        switch rng.weighted([20, 3, 1, 1, 1]) {
        case 0: return .value(value(depth: 0))
        case 1: return .array((0..<rng.below(3)).map { _ in .value(value(depth: 1)) })
        case 2: return .placeholder(index: rng.below(3), range: range())
        case 3: return .relativeTime("in 2 days")
        default: return .currentTimestamp
        }
    }

    private mutating func value(depth: Int) -> Value {
        switch rng.weighted([6, 6, 5, 2, 2, 2, 2, 1, 1, 1, depth < 2 ? 2 : 0, depth < 2 ? 2 : 0]) {
        case 0: return .int(rng.chance(0.7) ? Int64(rng.below(100)) : rng.pick(Self.ints))
        case 1: return .string(rng.pick(Self.strings))
        case 2: return .double(rng.pick(Self.doubles))
        case 3: return .bool(rng.chance(0.5))
        case 4: return .null
        case 5: return .date(DateValue(millisecondsSince1970: Int64(rng.below(2_000_000_000)) * 1000 + 123))
        case 6: return .pointer(Pointer(className: "S", objectId: rng.pick(["s1", "é\n"])))
        case 7: return .geoPoint(GeoPoint(latitude: 1.5, longitude: -2.25))
        case 8: return .bytes(base64: "AAE=")
        case 9: return .file(FileReference(id: "f", name: "n.txt", url: nil))
        case 10: return .array((0..<rng.below(3)).map { _ in value(depth: depth + 1) })
        default:
            let keys = ["x", "$x", "$date", "__type", "é"]
            var o: [String: Value] = [:]
            for _ in 0..<rng.below(3) { o[rng.pick(keys)] = value(depth: depth + 1) }
            return .object(o)
        }
    }
}
