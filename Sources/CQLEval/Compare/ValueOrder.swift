import CQLKit

/// The total order of values (EvaluationSemantics.md, "Order, paging, projection"): null/missing <
/// numbers < strings < objects < arrays < bytes < booleans < dates, and
/// within a class: numbers by value, strings by UTF-8 bytes (code points),
/// objects by their keys in sorted order then values, arrays element by
/// element, booleans false < true, dates by instant.
///
/// Pointers, GeoPoints, Files, Relations and included objects are objects
/// (that is how the services store them) and order by their REST form (a
/// File without its `url`, which equality ignores too).
enum ValueOrder {
    /// The class rank used for ordering.
    static func rank(_ v: Value) -> Int {
        switch v {
        case .null: return 0
        case .int, .double: return 1
        case .string: return 2
        case .object, .typedObject, .pointer, .geoPoint, .file, .relation: return 3
        case .array: return 4
        case .bytes: return 5
        case .bool: return 6
        case .date: return 7
        }
    }

    /// -1, 0 or 1.
    static func compare(_ a: Value, _ b: Value) -> Int {
        let ra = rank(a), rb = rank(b)
        if ra != rb { return ra < rb ? -1 : 1 }
        switch (a, b) {
        case (.null, .null): return 0
        case (.string(let x), .string(let y)): return compareBytes(x, y)
        case (.bool(let x), .bool(let y)): return x == y ? 0 : (x ? 1 : -1)
        case (.date(let x), .date(let y)): return Numbers.compare(x.millisecondsSince1970, y.millisecondsSince1970)
        case (.bytes(let x), .bytes(let y)): return compareBytes(x, y)
        case (.array(let x), .array(let y)):
            for i in 0..<min(x.count, y.count) {
                let c = compare(x[i], y[i])
                if c != 0 { return c }
            }
            return Numbers.compare(Int64(x.count), Int64(y.count))
        default:
            if let c = Numbers.compare(a, b) { return c }
            return compareObjects(objectForm(a), objectForm(b))
        }
    }

    /// The fields an object-class value orders by.
    static func objectForm(_ v: Value) -> [String: Value] {
        switch v {
        case .object(let o): return o
        case .file(let f):
            // What equality compares (`id`, `name`): the `url` is not part of a
            // File's identity, so `k <= f` holds whenever `k = f` does.
            var o: [String: Value] = ["__type": "File"]
            if let id = f.id { o["id"] = .string(id) }
            if let name = f.name { o["name"] = .string(name) }
            return o
        case .typedObject(let c, let o):
            var r = o
            r["__type"] = "Object"
            r["className"] = .string(c)
            return r
        default:
            if case .object(let o) = v.restJSON { return o }
            return [:]
        }
    }

    private static func compareObjects(_ x: [String: Value], _ y: [String: Value]) -> Int {
        let kx = x.keys.sorted(by: { compareBytes($0, $1) < 0 })
        let ky = y.keys.sorted(by: { compareBytes($0, $1) < 0 })
        for i in 0..<min(kx.count, ky.count) {
            let ck = compareBytes(kx[i], ky[i])
            if ck != 0 { return ck }
            // Both keys exist by construction.
            let c = compare(x[kx[i]] ?? .null, y[ky[i]] ?? .null)
            if c != 0 { return c }
        }
        return Numbers.compare(Int64(kx.count), Int64(ky.count))
    }

    /// Lexicographic order of the UTF-8 bytes, which is code point order.
    @inline(__always)
    static func compareBytes(_ a: String, _ b: String) -> Int { CodePointOrder.compare(a, b) }

    /// The classes that range operators bracket by (`"10" > 5` is false): a
    /// range only compares values of the same class.
    enum RangeClass: Hashable {
        case null, number, string, object, array, bytes, bool, date, pointer, geoPoint, file, relation
    }

    static func rangeClass(_ v: Value) -> RangeClass {
        switch Semantic.canonical(v) {
        case .null: return .null
        case .int, .double: return .number
        case .string: return .string
        case .object, .typedObject: return .object
        case .array: return .array
        case .bytes: return .bytes
        case .bool: return .bool
        case .date: return .date
        case .pointer: return .pointer
        case .geoPoint: return .geoPoint
        case .file: return .file
        case .relation: return .relation
        }
    }
}

/// What an order key sorts by: a value, or an empty array at the end of the
/// path, which sorts before every value, null included (EvaluationSemantics.md; it is
/// MongoDB's `undefined` index key).
enum SortValue: Sendable {
    case emptyArray
    case value(Value)

    /// -1, 0 or 1: ``ValueOrder`` with the empty array first.
    @inline(__always)
    static func compare(_ a: SortValue, _ b: SortValue) -> Int {
        switch (a, b) {
        case (.value(let x), .value(let y)): return ValueOrder.compare(x, y)
        case (.emptyArray, .emptyArray): return 0
        case (.emptyArray, .value): return -1
        case (.value, .emptyArray): return 1
        }
    }
}
