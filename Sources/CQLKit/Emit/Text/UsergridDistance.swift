/// Exact conversion of a `near` distance to meters, for Usergrid's `within`.
///
/// A distance converts only when the meters value means *exactly* the same
/// bound under EvaluationSemantics.md's Earth radii (6 371 000 m = 6371.0 km =
/// 3958.8 miles = 1 radian):
/// - kilometers × 1000 and radians × 6 371 000, computed in decimal on the
///   number as written (its shortest form), so `1.1 km` is `1100.0 m`;
/// - miles × 6 371 000 / 3958.8 = × 15 927 500 / 9897, which is a finite
///   decimal only when the decimal digits are a multiple of 9897
///   (`3958.8 miles` = `6371000 m`); any other miles value has no exact
///   meters form and is refused. (The international mile, 1609.344 m, is
///   not the mile of these radii.)
/// Integers stay integers (overflow refuses); a double result must print
/// back as the exact decimal, otherwise it is refused.
enum UsergridDistance {
    /// The distance in meters, or `nil` when no exact meters value exists.
    static func meters(_ value: Value, _ unit: DistanceUnit) -> Value? {
        guard value.numberValue.map({ $0.isFinite }) ?? false else { return nil }
        if unit == .meters { return value }
        guard var d = DecimalDigits(value) else { return nil }
        switch unit {
        case .meters: return value
        case .kilometers: d.multiply(by: 1000)
        case .radians: d.multiply(by: 6_371_000)
        case .miles:
            guard d.divideExactly(by: 9897) else { return nil }
            d.multiply(by: 15_927_500)
        }
        if case .int = value { return d.int64.map(Value.int) }
        return d.double.map(Value.double)
    }
}

/// A decimal number: `digits` (most significant first) × 10^`exponent`.
struct DecimalDigits: Equatable {
    var negative: Bool
    var digits: [UInt8]
    var exponent: Int

    init?(_ value: Value) {
        switch value {
        case .int(let i):
            self.init(text: String(i))
        case .double(let d) where d.isFinite:
            self.init(text: d.description)
        default:
            return nil
        }
    }

    /// Parses `-?digits[.digits][e[+-]digits]`.
    init?(text: String) {
        var bytes = Array(text.utf8)[...]
        negative = bytes.first == UInt8(ascii: "-")
        if negative { bytes = bytes.dropFirst() }
        digits = []
        exponent = 0
        var seenDot = false
        while let b = bytes.first, b != UInt8(ascii: "e"), b != UInt8(ascii: "E") {
            bytes = bytes.dropFirst()
            if b == UInt8(ascii: ".") {
                seenDot = true
            } else if UsergridLexer.isDigit(b) {
                digits.append(b - UInt8(ascii: "0"))
                if seenDot { exponent -= 1 }
            } else {
                return nil
            }
        }
        if !bytes.isEmpty {
            guard let e = Int(String(decoding: bytes.dropFirst(), as: UTF8.self)) else { return nil }
            exponent += e
        }
        normalize()
    }

    /// No leading zeros, no trailing zeros (moved into the exponent); zero is
    /// `[]` with exponent 0 and no sign.
    mutating func normalize() {
        while digits.first == 0 { digits.removeFirst() }
        while digits.last == 0 {
            digits.removeLast()
            exponent += 1
        }
        if digits.isEmpty {
            negative = false
            exponent = 0
        }
    }

    mutating func multiply(by factor: Int) {
        var out = [UInt8](repeating: 0, count: digits.count)
        var carry = 0
        for i in stride(from: digits.count - 1, through: 0, by: -1) {
            let p = Int(digits[i]) * factor + carry
            out[i] = UInt8(p % 10)
            carry = p / 10
        }
        while carry > 0 {
            out.insert(UInt8(carry % 10), at: 0)
            carry /= 10
        }
        digits = out
        normalize()
    }

    /// Divides when the integer `digits` is a multiple of `divisor`.
    mutating func divideExactly(by divisor: Int) -> Bool {
        var out: [UInt8] = []
        var remainder = 0
        for d in digits {
            remainder = remainder * 10 + Int(d)
            out.append(UInt8(remainder / divisor))
            remainder %= divisor
        }
        guard remainder == 0 else { return false }
        digits = out
        normalize()
        return true
    }

    var int64: Int64? {
        if digits.isEmpty { return 0 }
        guard exponent >= 0, digits.count + exponent <= 19 else { return nil }
        var text = negative ? "-" : ""
        for d in digits { text.append(Character(Unicode.Scalar(d + UInt8(ascii: "0")))) }
        text += String(repeating: "0", count: exponent)
        return Int64(text)
    }

    /// The double with exactly this decimal value as its shortest form.
    var double: Double? {
        var text = negative ? "-" : ""
        if digits.isEmpty { text += "0" }
        for d in digits { text.append(Character(Unicode.Scalar(d + UInt8(ascii: "0")))) }
        text += "e\(exponent)"
        guard let d = Double(text), d.isFinite, DecimalDigits(.double(d)) == self else { return nil }
        return d
    }
}
