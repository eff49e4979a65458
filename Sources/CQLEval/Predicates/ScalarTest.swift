import CQLKit

/// `=`, `<`, `<=`, `>`, `>=` against a number, string, boolean or Date
/// constant: the common predicates, compiled so that testing a value is one
/// `switch` instead of `Semantic.canonical` + `ValueOrder.compare` on two
/// `Value`s.
///
/// It agrees with ``Semantic/equal(_:_:)`` (for `=`) and ``RangeTest`` (for
/// ranges) on every value; PredicateFastPathTests checks both side by side.
/// The cases that make it so:
/// - numbers compare exactly across Int64 and Double (`1 == 1.0`, but
///   `2^53 + 1 != 2^53` as a double) through ``Numbers``, with the same NaN
///   rules as the general path;
/// - type bracketing: a value of another class (including a plain
///   `{latitude, longitude}` object, which is a GeoPoint) never passes;
/// - strings compare by UTF-8 bytes.
struct ScalarTest: Sendable {
    enum Constant: Sendable {
        case int(Int64)
        case double(Double)
        case string(String)
        case bool(Bool)
        case date(Int64)
    }

    let op: ComparisonOperator
    let constant: Constant

    /// The test for `op` against `value`, when `value` is a scalar this type
    /// handles and `op` is `=` or a range; else `nil` (use the general path).
    init?(_ op: ComparisonOperator, _ value: Value) {
        switch op {
        case .equal, .lessThan, .lessThanOrEqual, .greaterThan, .greaterThanOrEqual: self.op = op
        case .notEqual: return nil
        }
        switch value {
        case .int(let i): constant = .int(i)
        case .double(let d): constant = .double(d)
        case .string(let s): constant = .string(s)
        case .bool(let b): constant = .bool(b)
        case .date(let d): constant = .date(d.millisecondsSince1970)
        default: return nil
        }
    }

    /// Whether a value reached by a path matches: the value itself passes, or
    /// it is an array with an element that passes (one level, as for `=`).
    @inline(__always)
    func matches(_ x: Value) -> Bool {
        if case .array(let items) = x {
            for item in items where passes(item) { return true }
            return false
        }
        return passes(x)
    }

    /// Whether the value itself (no array fan-out) passes.
    @inline(__always)
    func passes(_ v: Value) -> Bool {
        switch (v, constant) {
        case (.int(let a), .int(let b)):
            return op == .equal ? a == b : holds(Numbers.compare(a, b))
        case (.double(let a), .double(let b)):
            // `==` is false for NaN, as in Semantic.equal; ranges order NaN last.
            return op == .equal ? a == b : holds(Numbers.compare(a, b))
        case (.int(let a), .double(let b)):
            return holds(Numbers.compare(a, b))
        case (.double(let a), .int(let b)):
            return holds(-Numbers.compare(b, a))
        case (.string(let a), .string(let b)):
            if op == .equal { return Semantic.bytesEqual(a, b) }
            return holds(ValueOrder.compareBytes(a, b))
        case (.bool(let a), .bool(let b)):
            return holds(a == b ? 0 : (a ? 1 : -1))
        case (.date(let a), .date(let b)):
            return holds(Numbers.compare(a.millisecondsSince1970, b))
        default:
            return false
        }
    }

    /// Whether `c` (the value compared with the constant: -1, 0, 1) satisfies `op`.
    @inline(__always)
    private func holds(_ c: Int) -> Bool {
        switch op {
        case .equal: return c == 0
        case .lessThan: return c < 0
        case .lessThanOrEqual: return c <= 0
        case .greaterThan: return c > 0
        case .greaterThanOrEqual: return c >= 0
        case .notEqual: return c != 0
        }
    }
}
