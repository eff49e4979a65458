import CQLKit

/// Exact comparison of Int64 and Double: `1 == 1.0`, but `2^53 + 1` is not
/// the double `2^53` (converting the integer to a double would round it).
enum Numbers {
    /// 2^63 as a double: the first double above `Int64.max`.
    private static let twoTo63 = 9_223_372_036_854_775_808.0

    /// -1, 0 or 1 as `i` is below, equal to or above `d`. NaN (not produced by
    /// the JSON reader) sorts above every number.
    static func compare(_ i: Int64, _ d: Double) -> Int {
        if d.isNaN { return -1 }
        if d >= twoTo63 { return -1 }
        if d < -twoTo63 { return 1 }
        let floor = d.rounded(.down)
        // -2^63 <= floor < 2^63, so the conversion is exact.
        let f = Int64(floor)
        if i < f { return -1 }
        if i > f { return 1 }
        return d > floor ? -1 : 0
    }

    static func compare(_ a: Double, _ b: Double) -> Int {
        if a < b { return -1 }
        if a > b { return 1 }
        if a == b { return 0 }
        // NaN sorts last, consistently.
        return a.isNaN ? (b.isNaN ? 0 : 1) : -1
    }

    static func compare(_ a: Int64, _ b: Int64) -> Int { a < b ? -1 : (a > b ? 1 : 0) }

    /// Compares two numeric values; `nil` when either is not a number.
    static func compare(_ a: Value, _ b: Value) -> Int? {
        switch (a, b) {
        case (.int(let x), .int(let y)): return compare(x, y)
        case (.double(let x), .double(let y)): return compare(x, y)
        case (.int(let x), .double(let y)): return compare(x, y)
        case (.double(let x), .int(let y)): return -compare(y, x)
        default: return nil
        }
    }

    /// The value as an exact integer when it is an integer or an integral
    /// double in Int64 range (`2.0` → 2, `2.5` → nil).
    static func exactInteger(_ v: Value) -> Int64? {
        switch v {
        case .int(let i): return i
        case .double(let d):
            guard d.isFinite, d == d.rounded(.towardZero), d >= -twoTo63, d < twoTo63 else { return nil }
            return Int64(d)
        default: return nil
        }
    }
}
