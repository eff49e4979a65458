/// The lexical side of canonical CQL: names, strings, numbers and typed values.
enum CQLLiterals {
    /// The CQL lexer's reserved words: as names they must be backquoted.
    static let reservedWords: Set<String> = [
        "select", "from", "where", "and", "or", "not", "in", "like", "regexp", "is",
        "limit", "order", "null", "true", "false", "include",
    ]

    /// `[A-Za-z_][A-Za-z0-9_]*`
    static func isWord(_ s: String) -> Bool {
        var first = true
        for b in s.utf8 {
            let letter = (b | 0x20) >= 0x61 && (b | 0x20) <= 0x7A || b == 0x5F
            let digit = b >= 0x30 && b <= 0x39
            guard letter || (!first && digit) else { return false }
            first = false
        }
        return !first
    }

    /// Digits without a leading zero (or `0`): a path step that reads back as itself.
    static func isIndex(_ s: String) -> Bool {
        guard !s.isEmpty, s.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) else { return false }
        // The CQL lexer reads a bare step as a 64-bit integer; longer ones are backquoted.
        return (s == "0" || !s.hasPrefix("0")) && Int64(s) != nil
    }

    /// A class name or key component: bare when it is a word that is not
    /// reserved, else backquoted. `after dot`: array indexes (`tags.0`) stay bare.
    static func name(_ s: String, afterDot: Bool = false, range: SourceRange?) throws(QueryError) -> String {
        if isWord(s) && !reservedWords.contains(s.lowercased()) { return s }
        if afterDot && isIndex(s) { return s }
        // Scalars, not Characters: a `.` or a backquote a combining mark follows is still one.
        let dot = s.unicodeScalars.contains("."), tick = s.unicodeScalars.contains("`")
        guard !s.isEmpty, !dot, !tick else {
            let why = s.isEmpty ? "is empty" : dot ? "contains '.'" : "contains '`'"
            throw QueryError(.unsupported, "the name '\(s)' \(why), which CQL cannot write", range: range)
        }
        return "`" + s + "`"
    }

    /// `a.b.c` with each component written by ``name(_:afterDot:range:)``.
    static func path(_ p: FieldPath, range: SourceRange?) throws(QueryError) -> String {
        var out = ""
        for (i, c) in p.components.enumerated() {
            if i > 0 { out += "." }
            out += try name(c, afterDot: i > 0, range: range)
        }
        if p.components.isEmpty { throw QueryError(.unsupported, "an empty key path cannot be expressed in CQL", range: range) }
        return out
    }

    /// `'...'`: `'` doubled, `\` as `\\`, control characters escaped.
    static func string(_ s: String) -> String {
        var out: [UInt8] = [UInt8(ascii: "'")]
        out.reserveCapacity(s.utf8.count + 2)
        let hex = Array("0123456789abcdef".utf8)
        for b in s.utf8 {
            switch b {
            case UInt8(ascii: "'"): out += [b, b]
            case UInt8(ascii: "\\"): out += [b, b]
            case 0x0A: out += Array(#"\n"#.utf8)
            case 0x09: out += Array(#"\t"#.utf8)
            case 0x0D: out += Array(#"\r"#.utf8)
            case 0x08: out += Array(#"\b"#.utf8)
            case 0x0C: out += Array(#"\f"#.utf8)
            case 0x00: out += Array(#"\0"#.utf8)
            case 0x01..<0x20, 0x7F:
                out += Array(#"\u00"#.utf8)
                out.append(hex[Int(b >> 4)])
                out.append(hex[Int(b & 0xF)])
            default: out.append(b)
            }
        }
        out.append(UInt8(ascii: "'"))
        return String(decoding: out, as: UTF8.self)
    }

    /// Doubles always with a `.` or an exponent, so they read back as doubles.
    static func double(_ d: Double, range: SourceRange?) throws(QueryError) -> String {
        guard d.isFinite else { throw QueryError(.unsupported, "the number \(d) cannot be expressed in CQL", range: range) }
        return JSONWriter.doubleText(d)
    }

    /// A constant as CQL writes it: typed values through their functions
    /// (`date('…')`, `pointer('C', 'id')`, `geopoint(lng, lat)`, `file('id')`,
    /// `base64('…')`), the rest as object literals with unquoted keys.
    static func value(_ v: Value, range: SourceRange?) throws(QueryError) -> String {
        switch v {
        case .null: return "null"
        case .bool(let b): return b ? "true" : "false"
        case .int(let i): return String(i)
        case .double(let d): return try double(d, range: range)
        case .string(let s): return string(s)
        case .array(let items):
            var parts: [String] = []
            for item in items { parts.append(try value(item, range: range)) }
            return "[" + parts.joined(separator: ", ") + "]"
        case .object(let o):
            return try object(o.sorted { $0.key.utf8.lexicographicallyPrecedes($1.key.utf8) }.map { ($0.key, $0.value) }, range: range)
        case .date(let d): return "date(" + string(ISODate.format(d)) + ")"
        case .pointer(let p):
            // pointer() refuses empty names; a Pointer from data or a bound
            // parameter may still have one, and its REST form reads back.
            if p.className.isEmpty || p.objectId.isEmpty {
                return try object([("__type", "Pointer"), ("className", .string(p.className)), ("objectId", .string(p.objectId))], range: range)
            }
            return "pointer(" + string(p.className) + ", " + string(p.objectId) + ")"
        case .geoPoint(let g):
            return "geopoint(" + (try double(g.longitude, range: range)) + ", " + (try double(g.latitude, range: range)) + ")"
        case .bytes(let b):
            // base64() accepts base64 text only; other text (from data) keeps
            // its REST form, which reads back as the same Bytes.
            if b.utf8.allSatisfy(TypedFunctions.isBase64Byte) { return "base64(" + string(b) + ")" }
            return try object([("__type", "Bytes"), ("base64", .string(b))], range: range)
        case .file(let f):
            if let id = f.id, !id.isEmpty, f.name == nil, f.url == nil { return "file(" + string(id) + ")" }
            var members: [(String, Value)] = [("__type", "File")]
            if let id = f.id { members.append(("id", .string(id))) }
            if let name = f.name { members.append(("name", .string(name))) }
            if let url = f.url { members.append(("url", .string(url))) }
            return try object(members, range: range)
        case .relation(let c):
            return try object([("__type", "Relation"), ("className", .string(c))], range: range)
        case .typedObject(let c, let fields):
            let rest = fields.filter { $0.key != "__type" && $0.key != "className" }
                .sorted { $0.key.utf8.lexicographicallyPrecedes($1.key.utf8) }.map { ($0.key, $0.value) }
            return try object([("__type", "Object"), ("className", .string(c))] + rest, range: range)
        }
    }

    /// `{key: value, 'odd key': value}` in the given order.
    private static func object(_ members: [(String, Value)], range: SourceRange?) throws(QueryError) -> String {
        var parts: [String] = []
        for (k, item) in members {
            parts.append((isWord(k) ? k : string(k)) + ": " + (try value(item, range: range)))
        }
        return "{" + parts.joined(separator: ", ") + "}"
    }
}
