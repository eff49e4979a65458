import CQLKit

/// Random CQL writes for the write differentials (in memory, REST form,
/// data directory, SQLite, PostgreSQL): inserts, updates with values and
/// every op, deletes, on class `T` with keys `n`, `s`, `tags`, `flag` and
/// the relation `likes` (`_Join:likes:T`), sometimes with an extra
/// condition or a missing objectId, so that 101, 305 and op errors occur.
public enum RandomWrites {
    public static let keys = ["n", "s", "tags", "flag"]

    public static func value(for key: String, _ rng: inout SplitMix64) -> Value {
        if rng.chance(0.1) { return .null }
        switch key {
        case "n":
            // Now and then the edges: 64-bit overflow, 2^53 + 1, the double range, -0.0.
            if rng.chance(0.15) { return rng.pick([.int(Int64.max - 1), .int(Int64.min + 2), .int(9_007_199_254_740_993), .double(1e308), .double(-0.0), .double(0.1)]) }
            return rng.chance(0.6) ? .int(rng.pick(RandomPools.ints.filter { $0 > -(1 << 40) && $0 < 1 << 40 })) : (rng.chance(0.7) ? .double(rng.pick(RandomPools.doubles.filter(\.isFinite))) : .string("7"))
        case "s": return .string(rng.pick(RandomPools.strings))
        case "tags":
            let extras: [Value] = [.double(1.0), .double(0.5), .bool(true), .null, .array([.int(1)]), .int(9_007_199_254_740_993)]
            return .array((0..<rng.below(4)).map { _ in
                rng.chance(0.2) ? rng.pick(extras) : rng.chance(0.5) ? .string(rng.pick(["a", "b", "c"])) : .int(Int64(rng.below(3)))
            })
        default: return .bool(rng.chance(0.5))
        }
    }

    /// CQL text of a value from the pools.
    public static func literal(_ v: Value) -> String {
        switch v {
        case .string(let s): return "'" + s.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "'", with: "''") + "'"
        case .array(let a): return "[" + a.map(literal).joined(separator: ", ") + "]"
        default: return JSONWriter.string(v)
        }
    }

    public static func statement(_ rng: inout SplitMix64, ids: [String]) -> String {
        let id = ids.isEmpty || rng.chance(0.08) ? "missing" : rng.pick(ids)
        let conditions = ["n > 0", "n <= 10", "s = 'a'", "tags = 'a'", "n is exists", "flag = true", "size(tags) = 2", "s != 'b'"]
        let condition = rng.chance(0.4) ? " and " + rng.pick(conditions) : ""
        switch rng.weighted([2, 6, 2]) {
        case 0:
            let columns = Array(keys.shuffled(using: &rng).prefix(1 + rng.below(3)))
            let rows = (0...rng.below(2)).map { _ in "(" + columns.map { literal(value(for: $0, &rng)) }.joined(separator: ", ") + ")" }
            return "insert into T(" + columns.joined(separator: ", ") + ") values " + rows.joined(separator: ", ")
        case 1:
            let ops = [
                "n = op('Increment', {'amount': \(rng.pick(["1", "-2", "0.5", "1000", "-0.0", "1e308", "0.1", "9007199254740993", "9223372036854775807"]))})",
                "n = op('Decrement', {'amount': \(rng.pick(["3", "0", "0.25", "-0.0", "-9223372036854775807"]))})",
                "tags = op('Add', {'objects': \(rng.pick(["['a', 1]", "[]", "[1.50, [2], {'k': 1}]"]))})",
                "tags = op('AddUnique', {'objects': \(rng.pick(["['a', 1.0, 'c']", "[1, 2, 2.0]", "[true, null, 'b']", "[[1], 'a']", "['a', 9007199254740993]"]))})",
                "tags = op('Remove', {'objects': \(rng.pick(["['a', 0]", "[1.0, 'b', true]", "[null]", "[[1]]", "[0.5, 9007199254740993]"]))})",
                "\(rng.pick(keys)) = op('Delete')",
                "n = op('\(rng.pick(["BitAnd", "BitOr", "BitXor"]))', {'value': \(rng.pick(["\(rng.below(16))", "-1", "-8"]))})",
                "likes = op('AddRelation', {'objects': [pointer('U', 'u\(1 + rng.below(3))')]})",
                "likes = op('RemoveRelation', {'objects': [pointer('U', 'u\(1 + rng.below(3))')]})",
            ]
            var used = Set<String>()
            var sets: [String] = []
            for _ in 0...rng.below(2) {
                let a = rng.chance(0.6) ? rng.pick(ops) : { let k = rng.pick(keys); return k + " = " + literal(value(for: k, &rng)) }()
                let key = String(a.prefix { $0 != " " })
                if used.insert(key).inserted { sets.append(a) }
            }
            return "update T set " + sets.joined(separator: ", ") + " where objectId = '\(id)'" + condition
        default:
            return "delete from T where objectId = '\(id)'" + condition
        }
    }
}
