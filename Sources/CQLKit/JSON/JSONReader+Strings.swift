extension JSONReader {
    mutating func parseString() throws(QueryError) -> String {
        let open = pos
        pos += 1
        // Fast path: no escapes. Plain runs are skipped a word at a time.
        var i = pos
        var ascii = true
        while true {
            i = JSONStringScan.plainRunEnd(bytes, from: i, nonASCIIIsPlain: !ascii)
            guard i < bytes.count else { break }
            let b = bytes[i]
            if b == UInt8(ascii: "\"") {
                let s = try validatedString(from: pos, to: i, ascii: ascii)
                pos = i + 1
                return s
            }
            if b == UInt8(ascii: "\\") { break }
            if b < 0x20 { throw error("unescaped control character in string", at: i) }
            ascii = false  // b >= 0x80: from now on such bytes are plain
        }
        var out: [UInt8] = Array(bytes[pos..<i])
        pos = i
        while true {
            guard pos < bytes.count else { throw error("unterminated string", at: open) }
            let b = bytes[pos]
            if b == UInt8(ascii: "\"") { pos += 1; break }
            if b < 0x20 { throw error("unescaped control character in string", at: pos) }
            if b != UInt8(ascii: "\\") {
                let end = JSONStringScan.plainRunEnd(bytes, from: pos + 1, nonASCIIIsPlain: true)
                out.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[pos..<end]))
                pos = end
                continue
            }
            let escStart = pos
            pos += 1
            guard pos < bytes.count else { throw error("unterminated string", at: open) }
            let e = bytes[pos]
            pos += 1
            switch e {
            case UInt8(ascii: "\""): out.append(0x22)
            case UInt8(ascii: "\\"): out.append(0x5C)
            case UInt8(ascii: "/"): out.append(0x2F)
            case UInt8(ascii: "b"): out.append(0x08)
            case UInt8(ascii: "f"): out.append(0x0C)
            case UInt8(ascii: "n"): out.append(0x0A)
            case UInt8(ascii: "r"): out.append(0x0D)
            case UInt8(ascii: "t"): out.append(0x09)
            case UInt8(ascii: "u"):
                var scalar = try hex4(escStart)
                if (0xD800...0xDBFF).contains(scalar) {
                    guard pos + 1 < bytes.count, bytes[pos] == UInt8(ascii: "\\"), bytes[pos + 1] == UInt8(ascii: "u") else {
                        throw error("lone high surrogate in \\u escape", at: escStart, length: 6)
                    }
                    pos += 2
                    let low = try hex4(escStart)
                    guard (0xDC00...0xDFFF).contains(low) else {
                        throw error("high surrogate not followed by a low surrogate", at: escStart, length: 12)
                    }
                    scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
                } else if (0xDC00...0xDFFF).contains(scalar) {
                    throw error("lone low surrogate in \\u escape", at: escStart, length: 6)
                }
                appendUTF8(UInt32(scalar), to: &out)
            default:
                throw error("invalid escape '\\\(Character(UnicodeScalar(e)))'", at: escStart, length: 2)
            }
        }
        guard let s = String(validating: out, as: UTF8.self) else {
            throw error("string is not valid UTF-8", at: open)
        }
        return s
    }

    /// Reads a string as strictly as ``parseString()`` without building it
    /// when it is plain ASCII (a dropped member); returns whether it is `__type`.
    mutating func skipString() throws(QueryError) -> Bool {
        let start = pos + 1
        let end = JSONStringScan.plainRunEnd(bytes, from: start, nonASCIIIsPlain: false)
        guard end < bytes.count, bytes[end] == UInt8(ascii: "\"") else {
            // Escapes, non-ASCII, a control character or no closing quote:
            // the full reader decides, with its own errors.
            return try parseString() == "__type"
        }
        pos = end + 1
        return JSONReader.isTypeKey(UnsafeBufferPointer(rebasing: bytes[start..<end]))
    }

    /// Whether plain ASCII key bytes spell `__type`.
    static func isTypeKey(_ b: UnsafeBufferPointer<UInt8>) -> Bool {
        b.count == 6 && b[0] == UInt8(ascii: "_") && b[1] == UInt8(ascii: "_") && b[2] == UInt8(ascii: "t")
            && b[3] == UInt8(ascii: "y") && b[4] == UInt8(ascii: "p") && b[5] == UInt8(ascii: "e")
    }

    /// The string of bytes `a..<b` (between the quotes), validated unless the
    /// scan saw only ASCII.
    private func validatedString(from a: Int, to b: Int, ascii: Bool) throws(QueryError) -> String {
        let slice = UnsafeBufferPointer(rebasing: bytes[a..<b])
        // String(validating:) is slow (generic metadata lookups per call):
        // ASCII, the common case, needs no validation.
        if ascii { return String(decoding: slice, as: UTF8.self) }
        guard let s = String(validating: slice, as: UTF8.self) else {
            throw error("string is not valid UTF-8", at: a - 1)
        }
        return s
    }

    private mutating func hex4(_ escStart: Int) throws(QueryError) -> Int {
        guard pos + 4 <= bytes.count else { throw error("incomplete \\u escape", at: escStart, length: 2) }
        var v = 0
        for _ in 0..<4 {
            let c = bytes[pos]
            let d: Int
            switch c {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): d = Int(c) - 48
            case UInt8(ascii: "a")...UInt8(ascii: "f"): d = Int(c) - 87
            case UInt8(ascii: "A")...UInt8(ascii: "F"): d = Int(c) - 55
            default: throw error("invalid hex digit in \\u escape", at: escStart, length: 6)
            }
            v = v * 16 + d
            pos += 1
        }
        return v
    }
}

@inline(__always)
func appendUTF8(_ scalar: UInt32, to out: inout [UInt8]) {
    switch scalar {
    case 0..<0x80:
        out.append(UInt8(scalar))
    case 0x80..<0x800:
        out.append(UInt8(0xC0 | (scalar >> 6)))
        out.append(UInt8(0x80 | (scalar & 0x3F)))
    case 0x800..<0x10000:
        out.append(UInt8(0xE0 | (scalar >> 12)))
        out.append(UInt8(0x80 | ((scalar >> 6) & 0x3F)))
        out.append(UInt8(0x80 | (scalar & 0x3F)))
    default:
        out.append(UInt8(0xF0 | (scalar >> 18)))
        out.append(UInt8(0x80 | ((scalar >> 12) & 0x3F)))
        out.append(UInt8(0x80 | ((scalar >> 6) & 0x3F)))
        out.append(UInt8(0x80 | (scalar & 0x3F)))
    }
}
