/// String and number literals of `ql`.
extension UsergridScanner {
    /// `'...'` with the escapes of Usergrid's grammar: `\' \" \\ \b \t \n \f \r`,
    /// `\uXXXX` (UTF-16; surrogate pairs combine) and octal `\7`, `\77`, `\377`.
    /// Usergrid itself never decodes them; we do (UsergridQL.md, defect 5).
    mutating func scanString() throws(QueryError) {
        let start = pos
        var i = pos + 1
        var out: [UInt8] = []
        while true {
            guard i < bytes.count else {
                throw error("unterminated string: no closing quote for the ' here", start, start + 1)
            }
            let b = bytes[i]
            if b == UInt8(ascii: "'") { break }
            if b != UInt8(ascii: "\\") {
                out.append(b)
                i += 1
                continue
            }
            guard let e = byte(at: i + 1) else {
                throw error("unterminated string: no closing quote for the ' here", start, start + 1)
            }
            switch e {
            case UInt8(ascii: "'"), UInt8(ascii: "\""), UInt8(ascii: "\\"):
                out.append(e)
                i += 2
            case UInt8(ascii: "b"): out.append(0x08); i += 2
            case UInt8(ascii: "t"): out.append(0x09); i += 2
            case UInt8(ascii: "n"): out.append(0x0A); i += 2
            case UInt8(ascii: "f"): out.append(0x0C); i += 2
            case UInt8(ascii: "r"): out.append(0x0D); i += 2
            case UInt8(ascii: "u"):
                let (scalar, next) = try unicodeEscape(at: i)
                out.append(contentsOf: Array(String(Character(scalar)).utf8))
                i = next
            case UInt8(ascii: "0")...UInt8(ascii: "7"):
                // Longest octal escape first, as the grammar's OCTAL_ESC does;
                // three digits only when the first is 0-3 (at most \377).
                var value = Int(e - UInt8(ascii: "0"))
                var j = i + 2
                let maxDigits = e <= UInt8(ascii: "3") ? 3 : 2
                while j - (i + 1) < maxDigits, let d = byte(at: j), d >= UInt8(ascii: "0"), d <= UInt8(ascii: "7") {
                    value = value * 8 + Int(d - UInt8(ascii: "0"))
                    j += 1
                }
                if let scalar = Unicode.Scalar(UInt32(value)) {
                    out.append(contentsOf: Array(String(Character(scalar)).utf8))
                }
                i = j
            default:
                let end = min(bytes.count, i + 1 + UsergridScanner.scalarLength(e))
                throw error(
                    "unknown escape '\(text(i, end))' in a string; Usergrid knows \\' \\\" \\\\ \\b \\t \\n \\f \\r \\uXXXX and octal escapes",
                    i, end)
            }
        }
        add(.string, start, i + 1, value: .string(String(decoding: out, as: UTF8.self)))
    }

    /// `\uXXXX` at `i` (the backslash); a high surrogate must be followed by
    /// `\u` and a low one.
    func unicodeEscape(at i: Int) throws(QueryError) -> (Unicode.Scalar, Int) {
        guard let high = hex4(at: i + 2) else {
            throw error("'\\u' must be followed by 4 hex digits", i, min(bytes.count, i + 2))
        }
        if (0xDC00...0xDFFF).contains(high) {
            throw error("lone low surrogate in \\u escape", i, i + 6)
        }
        if (0xD800...0xDBFF).contains(high) {
            guard byte(at: i + 6) == UInt8(ascii: "\\"), byte(at: i + 7) == UInt8(ascii: "u"),
                let low = hex4(at: i + 8), (0xDC00...0xDFFF).contains(low)
            else {
                throw error("lone high surrogate in \\u escape", i, i + 6)
            }
            let value = 0x10000 + ((high - 0xD800) << 10) + (low - 0xDC00)
            guard let scalar = Unicode.Scalar(UInt32(value)) else {
                throw error("invalid \\u escape", i, i + 12)
            }
            return (scalar, i + 12)
        }
        guard let scalar = Unicode.Scalar(UInt32(high)) else { throw error("invalid \\u escape", i, i + 6) }
        return (scalar, i + 6)
    }

    func hex4(at i: Int) -> Int? {
        guard i + 4 <= bytes.count else { return nil }
        var v = 0
        for k in i..<(i + 4) {
            let b = bytes[k]
            guard UsergridLexer.isHexDigit(b) else { return nil }
            v = v * 16 + (UsergridLexer.isDigit(b) ? Int(b - UInt8(ascii: "0")) : Int((b | 0x20) - UInt8(ascii: "a")) + 10)
        }
        return v
    }

    /// `-?digits`, or a float: `1.5`, `.5`, `5.`, `1e10`, `-5.5e-3`.
    /// Integers beyond Int64 and floats beyond Double are errors, never
    /// wrapped or rounded to infinity (UsergridQL.md, defect 7).
    mutating func scanNumber() throws(QueryError) {
        let start = pos
        var i = pos
        if bytes[i] == UInt8(ascii: "-") { i += 1 }
        let digitsStart = i
        while let b = byte(at: i), UsergridLexer.isDigit(b) { i += 1 }
        var isFloat = false
        if byte(at: i) == UInt8(ascii: ".") {
            isFloat = true
            i += 1
            while let b = byte(at: i), UsergridLexer.isDigit(b) { i += 1 }
        }
        if let e = byte(at: i), e | 0x20 == UInt8(ascii: "e") {
            var j = i + 1
            if let s = byte(at: j), s == UInt8(ascii: "+") || s == UInt8(ascii: "-") { j += 1 }
            if let d = byte(at: j), UsergridLexer.isDigit(d) {
                while let d = byte(at: j), UsergridLexer.isDigit(d) { j += 1 }
                isFloat = true
                i = j
            }
        }
        // A number runs into a letter, digit or dot: `5abc`, `1.2.3`, `1e`.
        if let b = byte(at: i), UsergridLexer.isIdentifierByte(b) && b != UInt8(ascii: "-") {
            var end = i
            while let c = byte(at: end), UsergridLexer.isIdentifierByte(c) { end += 1 }
            throw error("malformed number '\(text(start, end))'", start, end)
        }
        let literal = text(start, i)
        if !isFloat {
            guard let v = Int64(literal) else {
                throw error("integer \(literal) does not fit in 64 bits", start, i, kind: .invalidValue)
            }
            add(.integer, start, i, value: .int(v))
            return
        }
        // Spell the forms strtod may not take (`.5`, `5.`) in full.
        var normalized = literal
        if bytes[digitsStart] == UInt8(ascii: ".") {
            normalized = (digitsStart > start ? "-" : "") + "0" + text(digitsStart, i)
        }
        normalized = normalized.replacingDotBeforeExponentOrEnd()
        guard let d = Double(normalized), d.isFinite else {
            throw error("number \(literal) is out of range", start, i, kind: .invalidValue)
        }
        add(.number, start, i, value: .double(d))
    }
}

extension String {
    /// `5.` → `5.0`, `5.e3` → `5.0e3` (a `.` with no digits after it).
    fileprivate func replacingDotBeforeExponentOrEnd() -> String {
        var out: [UInt8] = []
        let b = Array(utf8)
        for (n, c) in b.enumerated() {
            out.append(c)
            if c == UInt8(ascii: "."), n + 1 == b.count || !UsergridLexer.isDigit(b[n + 1]) {
                out.append(UInt8(ascii: "0"))
            }
        }
        return String(decoding: out, as: UTF8.self)
    }
}
