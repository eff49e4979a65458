/// A strict RFC 8259 JSON reader over UTF-8 bytes.
///
/// - Integers that fit `Int64` stay exact (`.int`); numbers with a fraction or
///   exponent become `.double`; an integer beyond `Int64` is an error, never a
///   silently rounded double.
/// - Escapes, including UTF-16 surrogate pairs, are decoded; a lone surrogate
///   is an error.
/// - Nesting deeper than `maxDepth` is an error, so hostile input cannot
///   exhaust the stack.
/// - Objects with a repeated key keep the last value (as most readers do).
///
/// ```swift
/// try JSONReader.parse(#"{"a":[1,2.5,"\u00e9"]}"#)
/// // .object(["a": .array([.int(1), .double(2.5), .string("é")])])
/// ```
public struct JSONReader {
    /// The default nesting limit.
    public static let defaultMaxDepth = 512

    /// Parses one JSON text (surrounding whitespace allowed).
    public static func parse(_ text: String, maxDepth: Int = defaultMaxDepth) throws(QueryError) -> Value {
        var copy = text
        let result = copy.withUTF8 { buf -> Result<Value, QueryError> in
            var reader = JSONReader(buf, maxDepth: maxDepth, recordPaths: false)
            do throws(QueryError) { return .success(try reader.parseDocument()) } catch { return .failure(error) }
        }
        do { return try result.get() } catch { throw error.withSource(text) }
    }

    /// Parses one JSON text and also returns the byte range of every value by
    /// its path (`where.score.$in`, array elements as `[0]`), so later
    /// validation errors can point into the text.
    public static func parseLocated(_ text: String, maxDepth: Int = defaultMaxDepth) throws(QueryError) -> (Value, [String: SourceRange]) {
        var copy = text
        let result = copy.withUTF8 { buf -> Result<(Value, [String: SourceRange]), QueryError> in
            var reader = JSONReader(buf, maxDepth: maxDepth, recordPaths: true)
            do throws(QueryError) {
                let v = try reader.parseDocument()
                return .success((v, reader.locations))
            } catch { return .failure(error) }
        }
        do { return try result.get() } catch { throw error.withSource(text) }
    }

    /// Parses JSON from raw bytes (e.g. one NDJSON line). Errors carry byte
    /// offsets relative to `bytes` but no source text.
    ///
    /// With `decodingTypedValues`, `{"__type": ...}` objects become typed
    /// values as they are read — the same result as
    /// ``Value/decodingTypedValues()`` afterwards, without a second pass that
    /// rebuilds every object (this is the data loaders' hot path). A malformed
    /// typed value is an `.invalidValue` error ranged over its object.
    public static func parse(
        bytes: UnsafeBufferPointer<UInt8>, maxDepth: Int = defaultMaxDepth, decodingTypedValues: Bool = false
    ) throws(QueryError) -> Value {
        var reader = JSONReader(bytes, maxDepth: maxDepth, recordPaths: false)
        reader.decodesTypedValues = decodingTypedValues
        return try reader.parseDocument()
    }

    private let bytes: UnsafeBufferPointer<UInt8>
    private var pos = 0
    private let maxDepth: Int
    private var depth = 0
    private let recordPaths: Bool
    private var pathStack: [String] = []
    private(set) var locations: [String: SourceRange] = [:]
    private var decodesTypedValues = false
    private let members = JSONMemberStack()

    private init(_ bytes: UnsafeBufferPointer<UInt8>, maxDepth: Int, recordPaths: Bool) {
        self.bytes = bytes
        self.maxDepth = maxDepth
        self.recordPaths = recordPaths
    }

    private mutating func parseDocument() throws(QueryError) -> Value {
        skipWhitespace()
        let v = try parseValue()
        skipWhitespace()
        if pos < bytes.count {
            throw error("unexpected \(describeByte(at: pos)) after the JSON value", at: pos)
        }
        return v
    }

    private func error(_ message: String, at offset: Int, length: Int = 1) -> QueryError {
        QueryError(.syntax, "invalid JSON: " + message, range: SourceRange(offset, min(bytes.count, offset + length)))
    }

    private func describeByte(at i: Int) -> String {
        guard i < bytes.count else { return "end of input" }
        let b = bytes[i]
        if b >= 0x20 && b < 0x7F { return "'\(Character(UnicodeScalar(b)))'" }
        return "byte 0x" + String(b, radix: 16, uppercase: true)
    }

    @inline(__always)
    private mutating func skipWhitespace() {
        while pos < bytes.count {
            let b = bytes[pos]
            if b == 0x20 || b == 0x0A || b == 0x0D || b == 0x09 { pos += 1 } else { break }
        }
    }

    private var currentPath: String {
        var s = ""
        for p in pathStack {
            if p.hasPrefix("[") || s.isEmpty { s += p } else { s += "." + p }
        }
        return s
    }

    private mutating func parseValue() throws(QueryError) -> Value {
        guard pos < bytes.count else { throw error("unexpected end of input, expected a value", at: pos, length: 0) }
        let start = pos
        let v: Value
        switch bytes[pos] {
        case UInt8(ascii: "{"): v = try parseObject()
        case UInt8(ascii: "["): v = try parseArray()
        case UInt8(ascii: "\""): v = .string(try parseString())
        case UInt8(ascii: "t"): try expectWord("true"); v = .bool(true)
        case UInt8(ascii: "f"): try expectWord("false"); v = .bool(false)
        case UInt8(ascii: "n"): try expectWord("null"); v = .null
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): v = try parseNumber()
        default: throw error("unexpected \(describeByte(at: pos)), expected a value", at: pos)
        }
        if recordPaths { locations[currentPath] = SourceRange(start, pos) }
        return v
    }

    private mutating func expectWord(_ word: StaticString) throws(QueryError) {
        let n = word.utf8CodeUnitCount
        let p = word.utf8Start
        guard pos + n <= bytes.count else { throw error("unexpected end of input in literal", at: pos, length: 0) }
        for i in 0..<n where bytes[pos + i] != p[i] {
            throw error("invalid literal, expected '\(word)'", at: pos)
        }
        pos += n
    }

    private mutating func enter() throws(QueryError) {
        depth += 1
        if depth > maxDepth {
            throw QueryError(.limit, "JSON nesting deeper than \(maxDepth) levels", range: SourceRange(pos, pos + 1))
        }
    }

    private mutating func parseObject() throws(QueryError) -> Value {
        try enter()
        let open = pos
        pos += 1
        skipWhitespace()
        if pos < bytes.count && bytes[pos] == UInt8(ascii: "}") {
            pos += 1
            depth -= 1
            return .object([:])
        }
        let base = members.count
        var sawType = false
        while true {
            skipWhitespace()
            guard pos < bytes.count else { throw error("unterminated object", at: open) }
            guard bytes[pos] == UInt8(ascii: "\"") else {
                throw error("expected a string key, found \(describeByte(at: pos))", at: pos)
            }
            let key = try parseString()
            if key.utf8.count == 6 && key == "__type" { sawType = true }
            skipWhitespace()
            guard pos < bytes.count, bytes[pos] == UInt8(ascii: ":") else {
                throw error("expected ':' after object key, found \(describeByte(at: pos))", at: pos)
            }
            pos += 1
            skipWhitespace()
            if recordPaths { pathStack.append(key) }
            members.push(key, try parseValue())
            if recordPaths { pathStack.removeLast() }
            skipWhitespace()
            guard pos < bytes.count else { throw error("unterminated object", at: open) }
            if bytes[pos] == UInt8(ascii: ",") { pos += 1; continue }
            if bytes[pos] == UInt8(ascii: "}") { pos += 1; break }
            throw error("expected ',' or '}' in object, found \(describeByte(at: pos))", at: pos)
        }
        depth -= 1
        let dict = members.popObject(from: base)
        if decodesTypedValues && sawType, case .string? = dict["__type"] {
            do {
                return try TypedValueCoding.decode(.object(dict), path: "")
            } catch {
                var e = error
                e.range = SourceRange(open, pos)
                if let p = e.path { e.message = "\(p): \(e.message)" }
                e.path = nil
                throw e
            }
        }
        return .object(dict)
    }

    private mutating func parseArray() throws(QueryError) -> Value {
        try enter()
        let open = pos
        pos += 1
        var items: [Value] = []
        skipWhitespace()
        if pos < bytes.count && bytes[pos] == UInt8(ascii: "]") {
            pos += 1
            depth -= 1
            return .array(items)
        }
        while true {
            skipWhitespace()
            if recordPaths { pathStack.append("[\(items.count)]") }
            items.append(try parseValue())
            if recordPaths { pathStack.removeLast() }
            skipWhitespace()
            guard pos < bytes.count else { throw error("unterminated array", at: open) }
            if bytes[pos] == UInt8(ascii: ",") { pos += 1; continue }
            if bytes[pos] == UInt8(ascii: "]") { pos += 1; break }
            throw error("expected ',' or ']' in array, found \(describeByte(at: pos))", at: pos)
        }
        depth -= 1
        return .array(items)
    }

    private mutating func parseString() throws(QueryError) -> String {
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

    private mutating func parseNumber() throws(QueryError) -> Value {
        let start = pos
        var isInteger = true
        if bytes[pos] == UInt8(ascii: "-") { pos += 1 }
        guard pos < bytes.count, isDigit(bytes[pos]) else { throw error("invalid number", at: start) }
        if bytes[pos] == UInt8(ascii: "0") {
            pos += 1
            if pos < bytes.count && isDigit(bytes[pos]) { throw error("leading zeros are not allowed in numbers", at: start) }
        } else {
            while pos < bytes.count && isDigit(bytes[pos]) { pos += 1 }
        }
        if pos < bytes.count && bytes[pos] == UInt8(ascii: ".") {
            isInteger = false
            pos += 1
            guard pos < bytes.count, isDigit(bytes[pos]) else { throw error("expected digits after '.'", at: pos) }
            while pos < bytes.count && isDigit(bytes[pos]) { pos += 1 }
        }
        if pos < bytes.count && (bytes[pos] == UInt8(ascii: "e") || bytes[pos] == UInt8(ascii: "E")) {
            isInteger = false
            pos += 1
            if pos < bytes.count && (bytes[pos] == UInt8(ascii: "+") || bytes[pos] == UInt8(ascii: "-")) { pos += 1 }
            guard pos < bytes.count, isDigit(bytes[pos]) else { throw error("expected digits in exponent", at: pos) }
            while pos < bytes.count && isDigit(bytes[pos]) { pos += 1 }
        }
        let range = SourceRange(start, pos)
        return try NumberText.value(UnsafeBufferPointer(rebasing: bytes[start..<pos]), isInteger: isInteger, range: range)
    }

    @inline(__always) private func isDigit(_ b: UInt8) -> Bool { b >= 0x30 && b <= 0x39 }
}

/// Conversion of validated number text to a value, shared by the JSON reader
/// and the query lexers.
enum NumberText {
    /// `isInteger` texts become `.int` (error beyond Int64); others `.double`
    /// (error when the magnitude overflows to infinity).
    static func value(_ text: UnsafeBufferPointer<UInt8>, isInteger: Bool, range: SourceRange) throws(QueryError) -> Value {
        if isInteger {
            var negative = false
            var i = 0
            if text[0] == UInt8(ascii: "-") { negative = true; i = 1 }
            var v: Int64 = 0
            while i < text.count {
                let d = Int64(text[i] - 48)
                let (m, o1) = v.multipliedReportingOverflow(by: 10)
                let (s, o2) = negative ? m.subtractingReportingOverflow(d) : m.addingReportingOverflow(d)
                if o1 || o2 {
                    throw QueryError(.invalidValue, "integer \(String(decoding: text, as: UTF8.self)) does not fit in 64 bits", range: range)
                }
                v = s
                i += 1
            }
            return .int(v)
        }
        let s = String(decoding: text, as: UTF8.self)
        guard let d = Double(s), d.isFinite else {
            throw QueryError(.invalidValue, "number \(s) is out of range", range: range)
        }
        return .double(d)
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
