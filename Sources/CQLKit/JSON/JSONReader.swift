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
        try parse(bytes: bytes, maxDepth: maxDepth, decodingTypedValues: decodingTypedValues, keepingOnly: nil,
                  members: JSONMemberStack())
    }

    /// ``parse(bytes:maxDepth:decodingTypedValues:)`` where a top-level object
    /// keeps only the members the filter names; the others are read just as
    /// strictly (the same errors at the same offsets, typed values checked) but
    /// never built. This is for evaluating a query that reads a few keys of
    /// each line of a large file (CQLEval's streaming; package-internal).
    ///
    /// ```swift
    /// // line: {"objectId":"a","score":90,"note":"..."}
    /// try JSONReader.parse(bytes: line, keepingOnly: JSONKeyFilter(["score"]))   // .object(["score": 90])
    /// ```
    package static func parse(
        bytes: UnsafeBufferPointer<UInt8>, maxDepth: Int = defaultMaxDepth, decodingTypedValues: Bool = false,
        keepingOnly filter: JSONKeyFilter?
    ) throws(QueryError) -> Value {
        try parse(bytes: bytes, maxDepth: maxDepth, decodingTypedValues: decodingTypedValues, keepingOnly: filter,
                  members: JSONMemberStack())
    }

    /// ``parse(bytes:maxDepth:decodingTypedValues:keepingOnly:)`` with the
    /// member stack of a ``JSONLineParser``, kept from line to line.
    static func parse(
        bytes: UnsafeBufferPointer<UInt8>, maxDepth: Int, decodingTypedValues: Bool, keepingOnly filter: JSONKeyFilter?,
        members: JSONMemberStack
    ) throws(QueryError) -> Value {
        var reader = JSONReader(bytes, maxDepth: maxDepth, recordPaths: false, members: members)
        reader.decodesTypedValues = decodingTypedValues
        reader.keep = filter
        return try reader.parseDocument()
    }

    let bytes: UnsafeBufferPointer<UInt8>
    var pos = 0
    private let maxDepth: Int
    private var depth = 0
    private let recordPaths: Bool
    private var pathStack: [String] = []
    private(set) var locations: [String: SourceRange] = [:]
    private var decodesTypedValues = false
    private let members: JSONMemberStack
    /// The top-level members to build (`nil`: all of them).
    private var keep: JSONKeyFilter?
    /// Set when a filtered top-level object turns out to be a typed value,
    /// which needs all its members: the document is then read again whole.
    private var needsWholeDocument = false

    private init(_ bytes: UnsafeBufferPointer<UInt8>, maxDepth: Int, recordPaths: Bool, members: JSONMemberStack = JSONMemberStack()) {
        self.members = members
        self.bytes = bytes
        self.maxDepth = maxDepth
        self.recordPaths = recordPaths
    }

    private mutating func parseDocument() throws(QueryError) -> Value {
        skipWhitespace()
        let start = pos
        var v = try parseValue(build: true)
        if needsWholeDocument, let filter = keep {
            // The top-level object has a `__type`: decode it whole; if it
            // stays a plain object, drop the other members after all.
            keep = nil
            pos = start
            v = try parseValue(build: true)
            if case .object(let o) = v { v = .object(o.filter { filter.keys.contains($0.key) }) }
        }
        skipWhitespace()
        if pos < bytes.count {
            throw error("unexpected \(describeByte(at: pos)) after the JSON value", at: pos)
        }
        return v
    }

    func error(_ message: String, at offset: Int, length: Int = 1) -> QueryError {
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

    /// Reads one value. `build == false`: a member the filter drops; it is
    /// read as strictly but not built (the result is `.null`).
    private mutating func parseValue(build: Bool) throws(QueryError) -> Value {
        guard pos < bytes.count else { throw error("unexpected end of input, expected a value", at: pos, length: 0) }
        let start = pos
        let v: Value
        switch bytes[pos] {
        case UInt8(ascii: "{"): v = try parseObject(build: build)
        case UInt8(ascii: "["): v = try parseArray(build: build)
        case UInt8(ascii: "\""):
            if build { v = .string(try parseString()) } else { _ = try skipString(); v = .null }
        case UInt8(ascii: "t"): try expectWord("true"); v = .bool(true)
        case UInt8(ascii: "f"): try expectWord("false"); v = .bool(false)
        case UInt8(ascii: "n"): try expectWord("null"); v = .null
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): v = try parseNumber()
        default: throw error("unexpected \(describeByte(at: pos)), expected a value", at: pos)
        }
        if recordPaths && build { locations[currentPath] = SourceRange(start, pos) }
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

    private mutating func parseObject(build: Bool) throws(QueryError) -> Value {
        try enter()
        let open = pos
        pos += 1
        skipWhitespace()
        if pos < bytes.count && bytes[pos] == UInt8(ascii: "}") {
            pos += 1
            depth -= 1
            return build ? .object([:]) : .null
        }
        let base = members.count
        // Only the top-level object is filtered.
        let filter = depth == 1 ? keep : nil
        var sawType = false
        while true {
            skipWhitespace()
            guard pos < bytes.count else { throw error("unterminated object", at: open) }
            guard bytes[pos] == UInt8(ascii: "\"") else {
                throw error("expected a string key, found \(describeByte(at: pos))", at: pos)
            }
            // nil: the member is dropped (read, not built).
            let key: String?
            if !build {
                key = nil
                if try skipString() { sawType = true }
            } else if let filter {
                key = try filteredKey(filter, &sawType)
            } else {
                key = try parseString()
                if key == "__type" { sawType = true }
            }
            skipWhitespace()
            guard pos < bytes.count, bytes[pos] == UInt8(ascii: ":") else {
                throw error("expected ':' after object key, found \(describeByte(at: pos))", at: pos)
            }
            pos += 1
            skipWhitespace()
            if let key {
                if recordPaths { pathStack.append(key) }
                members.push(key, try parseValue(build: true))
                if recordPaths { pathStack.removeLast() }
            } else {
                _ = try parseValue(build: false)
            }
            skipWhitespace()
            guard pos < bytes.count else { throw error("unterminated object", at: open) }
            if bytes[pos] == UInt8(ascii: ",") { pos += 1; continue }
            if bytes[pos] == UInt8(ascii: "}") { pos += 1; break }
            throw error("expected ',' or '}' in object, found \(describeByte(at: pos))", at: pos)
        }
        depth -= 1
        guard build else {
            // A dropped typed value must fail as it would built: build it now.
            if decodesTypedValues && sawType {
                pos = open
                _ = try parseObject(build: true)
            }
            return .null
        }
        let dict = members.popObject(from: base)
        if decodesTypedValues && sawType && filter != nil {
            needsWholeDocument = true
            return .null
        }
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

    /// The key at `pos` if `filter` keeps its member, else `nil`; a plain
    /// ASCII key that is dropped is not built.
    private mutating func filteredKey(_ filter: JSONKeyFilter, _ sawType: inout Bool) throws(QueryError) -> String? {
        if filter.allASCII {
            let start = pos + 1
            let end = JSONStringScan.plainRunEnd(bytes, from: start, nonASCIIIsPlain: false)
            if end < bytes.count && bytes[end] == UInt8(ascii: "\"") {
                pos = end + 1
                let raw = UnsafeBufferPointer(rebasing: bytes[start..<end])
                if JSONReader.isTypeKey(raw) { sawType = true }
                return filter.keptKey(ascii: raw)
            }
        }
        let key = try parseString()
        if key == "__type" { sawType = true }
        return filter.keys.contains(key) ? key : nil
    }

    private mutating func parseArray(build: Bool) throws(QueryError) -> Value {
        try enter()
        let open = pos
        pos += 1
        var items: [Value] = []
        skipWhitespace()
        if pos < bytes.count && bytes[pos] == UInt8(ascii: "]") {
            pos += 1
            depth -= 1
            return build ? .array(items) : .null
        }
        while true {
            skipWhitespace()
            if recordPaths { pathStack.append("[\(items.count)]") }
            let item = try parseValue(build: build)
            if build { items.append(item) }
            if recordPaths { pathStack.removeLast() }
            skipWhitespace()
            guard pos < bytes.count else { throw error("unterminated array", at: open) }
            if bytes[pos] == UInt8(ascii: ",") { pos += 1; continue }
            if bytes[pos] == UInt8(ascii: "]") { pos += 1; break }
            throw error("expected ',' or ']' in array, found \(describeByte(at: pos))", at: pos)
        }
        depth -= 1
        return build ? .array(items) : .null
    }
}
