/// String literals: `'...'` and `"..."` with doubled quotes and backslash
/// escapes (CQL.md, "Literals").
extension CQLScanner {
    mutating func scanString() throws(QueryError) {
        let start = pos
        let quote = bytes[pos]
        let quoteChar = quote == UInt8(ascii: "'") ? "'" : "\""
        pos += 1
        // Fast path: no escape and no doubled quote; the text between the
        // quotes is the value.
        var i = pos
        while i < bytes.count && bytes[i] != quote && bytes[i] != UInt8(ascii: "\\") { i += 1 }
        if i < bytes.count && bytes[i] == quote && byte(i + 1) != quote {
            pos = i + 1
            add(.string, from: start)
            return
        }
        var out = Array(UnsafeBufferPointer(rebasing: bytes[pos..<i]))
        pos = i
        while true {
            guard pos < bytes.count else {
                throw QueryError(.syntax, "unterminated string: no closing \(quoteChar) for the quote here",
                                 range: SourceRange(start, start + 1))
            }
            let b = bytes[pos]
            if b == quote {
                if byte(pos + 1) == quote {
                    out.append(quote)
                    pos += 2
                    continue
                }
                pos += 1
                break
            }
            if b != UInt8(ascii: "\\") {
                out.append(b)
                pos += 1
                continue
            }
            try scanEscape(into: &out, stringStart: start, quoteChar: quoteChar)
        }
        // The input came from a Swift String and escapes produce valid scalars,
        // so the bytes are valid UTF-8.
        storage.decoded.append(String(decoding: out, as: UTF8.self))
        add(.string, from: start, payload: UInt64(storage.decoded.count))
    }

    /// One `\x` escape at `pos`.
    private mutating func scanEscape(into out: inout [UInt8], stringStart: Int, quoteChar: String) throws(QueryError) {
        let escStart = pos
        guard let e = byte(pos + 1) else {
            throw QueryError(.syntax, "unterminated string: no closing \(quoteChar) for the quote here",
                             range: SourceRange(stringStart, stringStart + 1))
        }
        pos += 2
        switch e {
        case UInt8(ascii: "\\"): out.append(0x5C)
        case UInt8(ascii: "'"): out.append(0x27)
        case UInt8(ascii: "\""): out.append(0x22)
        case UInt8(ascii: "n"): out.append(0x0A)
        case UInt8(ascii: "t"): out.append(0x09)
        case UInt8(ascii: "r"): out.append(0x0D)
        case UInt8(ascii: "b"): out.append(0x08)
        case UInt8(ascii: "f"): out.append(0x0C)
        case UInt8(ascii: "0"): out.append(0x00)
        case UInt8(ascii: "u"):
            var scalar = try hex4(escStart)
            if (0xD800...0xDBFF).contains(scalar) {
                guard byte(pos) == UInt8(ascii: "\\"), byte(pos + 1) == UInt8(ascii: "u") else {
                    throw QueryError(.syntax, "invalid escape '\(text(escStart, pos))': a high surrogate must be followed by a low surrogate '\\uDC00'...'\\uDFFF'",
                                     range: SourceRange(escStart, pos))
                }
                let lowStart = pos
                pos += 2
                let low = try hex4(lowStart)
                guard (0xDC00...0xDFFF).contains(low) else {
                    throw QueryError(.syntax, "invalid escape '\(text(escStart, pos))': a high surrogate must be followed by a low surrogate '\\uDC00'...'\\uDFFF'",
                                     range: SourceRange(escStart, pos))
                }
                scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
            } else if (0xDC00...0xDFFF).contains(scalar) {
                throw QueryError(.syntax, "invalid escape '\(text(escStart, pos))': a lone low surrogate is not a character",
                                 range: SourceRange(escStart, pos))
            }
            appendUTF8(scalar, to: &out)
        default:
            // Unknown escapes keep the backslash, so `'\d+'` is the regex \d+.
            // `e` may start a multi-byte scalar: copy only the backslash and let
            // the main loop copy the rest.
            out.append(0x5C)
            pos -= 1
        }
    }

    /// The four hex digits after `\u` (at `pos`).
    private mutating func hex4(_ escStart: Int) throws(QueryError) -> UInt32 {
        var v: UInt32 = 0
        for k in 0..<4 {
            let c = byte(pos + k) ?? 0
            let d: UInt32
            switch c {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): d = UInt32(c) - 48
            case UInt8(ascii: "a")...UInt8(ascii: "f"): d = UInt32(c) - 87
            case UInt8(ascii: "A")...UInt8(ascii: "F"): d = UInt32(c) - 55
            default:
                var end = pos + k
                // Show the escape up to the bad character (not past a quote).
                if pos + k < bytes.count, c != UInt8(ascii: "'"), c != UInt8(ascii: "\""), c >= 0x20, c < 0x7F { end += 1 }
                throw QueryError(.syntax, "invalid escape '\(text(escStart, end))': \\u needs 4 hex digits",
                                 range: SourceRange(escStart, end))
            }
            v = v * 16 + d
        }
        pos += 4
        return v
    }
}
