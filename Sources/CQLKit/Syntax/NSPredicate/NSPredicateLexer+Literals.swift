/// Strings and numbers of NSPredicate format strings.
extension NSPredicateScanner {
    /// `'...'` or `"..."`; one kind of quote does not end the other. Escapes:
    /// `\\ \' \" \n \t \r`, `\ooo` (three octal digits), `\xhh`, `\uhhhh`
    /// (a surrogate pair as two); any other `\` is an error.
    mutating func scanString(quote: UInt8) throws(QueryError) {
        let start = pos
        var i = pos + 1
        var out: [UInt8] = []
        var pendingHigh: (UInt32, Int)?
        while true {
            guard i < bytes.count else {
                throw error("unterminated string; close it with \(quote == UInt8(ascii: "'") ? "'" : "\"")", start, start + 1)
            }
            let b = bytes[i]
            if b == quote && pendingHigh == nil { break }
            if b != UInt8(ascii: "\\") {
                if let (_, at) = pendingHigh { throw lowSurrogateMissing(at) }
                out.append(b)
                i += 1
                continue
            }
            guard let e = byte(at: i + 1) else { throw error("unterminated string; close it with a quote", start, start + 1) }
            if pendingHigh != nil && e != UInt8(ascii: "u") { throw lowSurrogateMissing(pendingHigh!.1) }
            switch e {
            case UInt8(ascii: "\\"), UInt8(ascii: "'"), UInt8(ascii: "\""): out.append(e); i += 2
            case UInt8(ascii: "n"): out.append(0x0A); i += 2
            case UInt8(ascii: "t"): out.append(0x09); i += 2
            case UInt8(ascii: "r"): out.append(0x0D); i += 2
            case UInt8(ascii: "x"):
                let v = try digits(i, from: i + 2, count: 2, radix: 16, what: "\\x takes two hex digits (\\x41)")
                try appendScalar(v, &out, at: i, length: 4)
                i += 4
            case UInt8(ascii: "u"):
                let v = try digits(i, from: i + 2, count: 4, radix: 16, what: "\\u takes four hex digits (\\u00e9)")
                if let (high, at) = pendingHigh {
                    guard v >= 0xDC00 && v <= 0xDFFF else { throw lowSurrogateMissing(at) }
                    try appendScalar(0x10000 + ((high - 0xD800) << 10) + (v - 0xDC00), &out, at: at, length: 12)
                    pendingHigh = nil
                } else if v >= 0xD800 && v <= 0xDBFF {
                    pendingHigh = (v, i)
                } else {
                    try appendScalar(v, &out, at: i, length: 6)
                }
                i += 6
            case UInt8(ascii: "0")...UInt8(ascii: "7"):
                let v = try digits(i, from: i + 1, count: 3, radix: 8, what: "an octal escape takes three digits (\\101)")
                guard v <= 0o377 else { throw error("octal escape above \\377", i, i + 4) }
                try appendScalar(v, &out, at: i, length: 4)
                i += 4
            default:
                let shown = text(i, min(bytes.count, i + NSPredicateScanner.scalarLength(e) + 1))
                throw error("unknown escape '\(shown)'; write \\\\ for a backslash (escapes: \\\\ \\' \\\" \\n \\t \\r \\ooo \\xhh \\uhhhh)",
                            i, i + 2)
            }
        }
        add(.string, start, i + 1, value: .string(String(decoding: out, as: UTF8.self)))
    }

    func lowSurrogateMissing(_ at: Int) -> QueryError {
        error("a \\u escape of a high surrogate must be followed by a \\u escape of a low surrogate", at, at + 6)
    }

    func digits(_ escapeStart: Int, from: Int, count: Int, radix: UInt32, what: String) throws(QueryError) -> UInt32 {
        var v: UInt32 = 0
        for k in 0..<count {
            guard let b = byte(at: from + k), let d = Self.digitValue(b), d < radix else {
                throw error(what, escapeStart, from + k + 1)
            }
            v = v * radix + d
        }
        return v
    }

    static func digitValue(_ b: UInt8) -> UInt32? {
        if NSPredicateLexer.isDigit(b) { return UInt32(b - 0x30) }
        let l = b | 0x20
        if l >= UInt8(ascii: "a") && l <= UInt8(ascii: "z") { return UInt32(l - UInt8(ascii: "a") + 10) }
        return nil
    }

    func appendScalar(_ v: UInt32, _ out: inout [UInt8], at: Int, length: Int) throws(QueryError) {
        guard let s = Unicode.Scalar(v) else { throw error("escape of a lone surrogate", at, at + length) }
        out.append(contentsOf: Array(String(Character(s)).utf8))
    }

    static func scalarLength(_ lead: UInt8) -> Int {
        if lead < 0x80 { return 1 }
        if lead >= 0xF0 { return 4 }
        if lead >= 0xE0 { return 3 }
        return lead >= 0xC0 ? 2 : 1
    }

    /// Integers, decimals, exponents, `0x..`, `0o..`, `0b..`; a leading `-`
    /// makes a negative constant.
    mutating func scanNumber() throws(QueryError) {
        let start = pos
        var i = pos
        let negative = bytes[i] == UInt8(ascii: "-")
        if negative { i += 1 }
        if bytes[i] == UInt8(ascii: "0"), let p = byte(at: i + 1), let radix = Self.radix(p) {
            var end = i + 2
            var magnitude: UInt64 = 0
            var overflow = false
            while let b = byte(at: end), let d = Self.digitValue(b), d < radix {
                let (m1, o1) = magnitude.multipliedReportingOverflow(by: UInt64(radix))
                let (m2, o2) = m1.addingReportingOverflow(UInt64(d))
                overflow = overflow || o1 || o2
                magnitude = m2
                end += 1
            }
            guard end > i + 2 else { throw error("'\(text(start, i + 2))' needs digits after it", start, i + 2) }
            if let b = byte(at: end), NSPredicateLexer.isIdentifierByte(b) {
                throw error("'\(text(end, end + 1))' is not a base-\(radix) digit", end, end + 1)
            }
            let limit: UInt64 = negative ? UInt64(Int64.max) + 1 : UInt64(Int64.max)
            guard !overflow && magnitude <= limit else {
                throw error("integer \(text(start, end)) is outside the 64-bit range", start, end, kind: .invalidValue)
            }
            let v: Int64 = negative ? (magnitude == limit ? Int64.min : -Int64(magnitude)) : Int64(magnitude)
            add(.integer, start, end, value: .int(v))
            return
        }
        var end = i
        while let b = byte(at: end), NSPredicateLexer.isDigit(b) { end += 1 }
        var isDecimal = false
        if byte(at: end) == UInt8(ascii: "."), let d = byte(at: end + 1), NSPredicateLexer.isDigit(d) {
            isDecimal = true
            end += 1
            while let b = byte(at: end), NSPredicateLexer.isDigit(b) { end += 1 }
        }
        if let e = byte(at: end), e | 0x20 == UInt8(ascii: "e") {
            var k = end + 1
            if let s = byte(at: k), s == UInt8(ascii: "+") || s == UInt8(ascii: "-") { k += 1 }
            guard let d = byte(at: k), NSPredicateLexer.isDigit(d) else {
                throw error("an exponent needs digits (1e3)", end, k)
            }
            while let b = byte(at: k), NSPredicateLexer.isDigit(b) { k += 1 }
            isDecimal = true
            end = k
        }
        if let b = byte(at: end), NSPredicateLexer.isIdentifierStart(b) {
            throw error("a name cannot start with a digit ('\(text(start, end + 1))...'); pass such a key with %K", start, end + 1)
        }
        let literal = text(start, end)
        if isDecimal {
            guard let d = Double(literal), d.isFinite else {
                throw error("number \(literal) is out of range", start, end, kind: .invalidValue)
            }
            add(.number, start, end, value: .double(d))
        } else {
            guard let v = Int64(literal) else {
                throw error("integer \(literal) is outside the 64-bit range", start, end, kind: .invalidValue)
            }
            add(.integer, start, end, value: .int(v))
        }
    }

    static func radix(_ b: UInt8) -> UInt32? {
        switch b | 0x20 {
        case UInt8(ascii: "x"): return 16
        case UInt8(ascii: "o"): return 8
        case UInt8(ascii: "b"): return 2
        default: return nil
        }
    }
}
