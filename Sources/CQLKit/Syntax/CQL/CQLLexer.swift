/// The CQL lexer: UTF-8 bytes in, ``CQLToken``s out.
///
/// Lexical rules (Grammar/cql.ebnf has the exact grammar):
/// - Words are `[A-Za-z_][A-Za-z0-9_]*`; the ``CQLToken/reservedWords`` are
///   keywords (case-insensitive), every other word is an identifier.
/// - A backquoted name (\`name\`) is one key component whatever its text; it may not be empty
///   or contain `.` (stored keys cannot contain dots, so \`a.b\` is
///   reported instead of silently meaning the path `a`.`b`).
/// - Strings use `'` or `"`; the quote is escaped by doubling it or with a
///   backslash; `\\ \' \" \n \t \r \b \f \0 \uXXXX` decode; any other `\x`
///   keeps both characters (regexes read naturally).
/// - Integers are exact `Int64` (overflow is an error); `-` directly before a
///   number is its sign unless the previous token ends a value (`a-1` is not
///   CQL anyway, but `order by -score` keeps `-` as a token).
/// - `--` comments run to the end of the line, `/* */` comments do not nest.
///
/// ```swift
/// try CQLLexer.tokenize("limit -1").map(\.kind)   // [.keyword, .integer, .end]
/// ```
public enum CQLLexer {
    /// The tokens of `text`, ending with an `.end` token.
    /// - Throws: ``QueryError`` (`.syntax`, or `.invalidValue` for a number out
    ///   of range) positioned at the offending text.
    public static func tokenize(_ text: String) throws(QueryError) -> [CQLToken] {
        var scanner = CQLScanner(Array(text.utf8))
        do { return try scanner.run() } catch { throw error.withSource(text) }
    }
}

/// The scanning state. `bytes` is the statement's UTF-8; every token boundary
/// falls on an ASCII byte, so slicing never splits a scalar.
struct CQLScanner {
    let bytes: [UInt8]
    var pos = 0
    var tokens: [CQLToken] = []

    init(_ bytes: [UInt8]) { self.bytes = bytes }

    mutating func run() throws(QueryError) -> [CQLToken] {
        // Tokens average well over 4 bytes with their spacing: one allocation.
        tokens.reserveCapacity(bytes.count / 4 + 2)
        // A leading byte order mark (editors add one) is not part of the statement.
        if bytes.count >= 3 && bytes[0] == 0xEF && bytes[1] == 0xBB && bytes[2] == 0xBF { pos = 3 }
        while true {
            try skipComments()
            if pos >= bytes.count { break }
            try scanToken()
        }
        tokens.append(CQLToken(.end, SourceRange(bytes.count, bytes.count), ""))
        return tokens
    }

    // MARK: Trivia

    static func isSpace(_ b: UInt8) -> Bool { b == 0x20 || b == 0x09 || b == 0x0A || b == 0x0D || b == 0x0C || b == 0x0B }
    static func isDigit(_ b: UInt8) -> Bool { b >= 0x30 && b <= 0x39 }
    static func isWordStart(_ b: UInt8) -> Bool { (b | 0x20) >= 0x61 && (b | 0x20) <= 0x7A || b == 0x5F }
    static func isWordByte(_ b: UInt8) -> Bool { isWordStart(b) || isDigit(b) }

    func byte(_ i: Int) -> UInt8? { i < bytes.count ? bytes[i] : nil }

    /// Skips whitespace and comments (so `run` sees only real tokens).
    mutating func skipComments() throws(QueryError) {
        while true {
            while pos < bytes.count && CQLScanner.isSpace(bytes[pos]) { pos += 1 }
            if byte(pos) == UInt8(ascii: "-") && byte(pos + 1) == UInt8(ascii: "-") {
                while pos < bytes.count && bytes[pos] != 0x0A { pos += 1 }
            } else if byte(pos) == UInt8(ascii: "/") && byte(pos + 1) == UInt8(ascii: "*") {
                let start = pos
                pos += 2
                while true {
                    guard pos + 1 < bytes.count else {
                        throw QueryError(.syntax, "unterminated comment: no '*/' closes the '/*' here", range: SourceRange(start, start + 2))
                    }
                    if bytes[pos] == UInt8(ascii: "*") && bytes[pos + 1] == UInt8(ascii: "/") { pos += 2; break }
                    pos += 1
                }
            } else {
                return
            }
        }
    }

    // MARK: Tokens

    func text(_ start: Int, _ end: Int) -> String {
        // One-byte tokens (punctuation) share prebuilt Strings.
        if end == start + 1, bytes[start] < 0x80 { return CQLScanner.asciiText[Int(bytes[start])] }
        return String(decoding: bytes[start..<end], as: UTF8.self)
    }

    private static let asciiText: [String] = (0..<128).map { String(UnicodeScalar(UInt8($0))) }

    mutating func add(_ kind: CQLToken.Kind, from start: Int, word: String = "", value: Value? = nil) {
        tokens.append(CQLToken(kind, SourceRange(start, pos), text(start, pos), word: word, value: value))
    }

    /// Whether a `-` here would be a sign: the previous token does not end a value.
    var signAllowed: Bool {
        guard let last = tokens.last else { return true }
        switch last.kind {
        case .identifier, .quotedIdentifier, .integer, .decimal, .string, .placeholder,
             .rightParen, .rightBracket, .rightBrace, .dot:
            return false
        case .keyword:
            return !(last.word == "null" || last.word == "true" || last.word == "false")
        default:
            return true
        }
    }

    mutating func scanToken() throws(QueryError) {
        let start = pos
        let b = bytes[pos]
        if CQLScanner.isWordStart(b) { return scanWord() }
        if CQLScanner.isDigit(b) { return try scanNumber() }
        switch b {
        case UInt8(ascii: "'"), UInt8(ascii: "\""): return try scanString()
        case UInt8(ascii: "`"): return try scanQuotedName()
        case UInt8(ascii: "-"):
            if let n = byte(pos + 1), CQLScanner.isDigit(n), signAllowed { return try scanNumber() }
            pos += 1; add(.minus, from: start)
        case UInt8(ascii: "+"): pos += 1; add(.plus, from: start)
        case UInt8(ascii: "?"): pos += 1; add(.placeholder, from: start)
        case UInt8(ascii: "*"): pos += 1; add(.star, from: start)
        case UInt8(ascii: ","): pos += 1; add(.comma, from: start)
        case UInt8(ascii: "."): pos += 1; add(.dot, from: start)
        case UInt8(ascii: ";"): pos += 1; add(.semicolon, from: start)
        case UInt8(ascii: ":"): pos += 1; add(.colon, from: start)
        case UInt8(ascii: "("): pos += 1; add(.leftParen, from: start)
        case UInt8(ascii: ")"): pos += 1; add(.rightParen, from: start)
        case UInt8(ascii: "["): pos += 1; add(.leftBracket, from: start)
        case UInt8(ascii: "]"): pos += 1; add(.rightBracket, from: start)
        case UInt8(ascii: "{"): pos += 1; add(.leftBrace, from: start)
        case UInt8(ascii: "}"): pos += 1; add(.rightBrace, from: start)
        case UInt8(ascii: "="): pos += 1; add(.equal, from: start)
        case UInt8(ascii: "!"):
            guard byte(pos + 1) == UInt8(ascii: "=") else {
                throw QueryError(.syntax, "unexpected character '!' (use '!=' or 'not')", range: SourceRange(pos, pos + 1))
            }
            pos += 2; add(.notEqual, from: start)
        case UInt8(ascii: "<"):
            pos += 1
            if byte(pos) == UInt8(ascii: "=") { pos += 1; add(.lessOrEqual, from: start) }
            else if byte(pos) == UInt8(ascii: ">") { pos += 1; add(.notEqual, from: start) }
            else { add(.less, from: start) }
        case UInt8(ascii: ">"):
            pos += 1
            if byte(pos) == UInt8(ascii: "=") { pos += 1; add(.greaterOrEqual, from: start) }
            else { add(.greater, from: start) }
        default:
            throw unexpectedCharacter(at: pos)
        }
    }

    /// `unexpected character '，'`, covering the whole scalar.
    func unexpectedCharacter(at i: Int) -> QueryError {
        let b = bytes[i]
        var n = 1
        if b >= 0xF0 { n = 4 } else if b >= 0xE0 { n = 3 } else if b >= 0xC0 { n = 2 }
        let end = min(bytes.count, i + n)
        let scalarText = text(i, end)
        let shown: String
        if let s = scalarText.unicodeScalars.first, s.value >= 0x20, s.value != 0x7F, !(0x80..<0xA0).contains(s.value) {
            shown = "'\(scalarText)'"
        } else {
            let v = scalarText.unicodeScalars.first?.value ?? UInt32(b)
            let hex = String(v, radix: 16, uppercase: true)
            shown = "U+" + String(repeating: "0", count: max(0, 4 - hex.count)) + hex
        }
        return QueryError(.syntax, "unexpected character \(shown)", range: SourceRange(i, end))
    }

    /// A word: keyword or identifier. Most words are lowercase already, and
    /// then the lowercased `word` is the text itself (no second String); the
    /// keyword test compares bytes, without building and hashing a String.
    mutating func scanWord() {
        let start = pos
        var hasUpper = false
        while pos < bytes.count {
            let b = bytes[pos]
            guard CQLScanner.isWordByte(b) else { break }
            if b >= 0x41 && b <= 0x5A { hasUpper = true }
            pos += 1
        }
        let text = text(start, pos)
        let word = hasUpper ? lowercased(start, pos) : text
        let kind: CQLToken.Kind = CQLScanner.isReservedWord(bytes, start, pos) ? .keyword : .identifier
        tokens.append(CQLToken(kind, SourceRange(start, pos), text, word: word))
    }

    /// ASCII lowercase of bytes `a..<b`.
    private func lowercased(_ a: Int, _ b: Int) -> String {
        String(unsafeUninitializedCapacity: b - a) { out in
            for i in a..<b {
                let c = bytes[i]
                out[i - a] = c >= 0x41 && c <= 0x5A ? c | 0x20 : c
            }
            return b - a
        }
    }

    /// Word bytes `a..<b` (at most 8) packed into a UInt64, byte `i` at bits
    /// `8i`, each `| 0x20`: that lowercases A-Z and maps no other word byte
    /// (digits, `_`) onto a-z, and no word byte is 0, so two packed words are
    /// equal exactly when the words are equal ignoring case.
    @inline(__always)
    static func packedLowercase(_ bytes: [UInt8], _ a: Int, _ b: Int) -> UInt64 {
        var v: UInt64 = 0
        var i = b
        while i > a {
            i -= 1
            v = v << 8 | UInt64(bytes[i] | 0x20)
        }
        return v
    }

    /// Whether word bytes `a..<b` are one of ``CQLToken/reservedWords``,
    /// case-insensitively, without building and hashing a String: a switch
    /// over the packed words (CQLLexerTests checks it against the set).
    static func isReservedWord(_ bytes: [UInt8], _ a: Int, _ b: Int) -> Bool {
        guard b - a >= 2 && b - a <= 7 else { return false }  // the reserved words have 2 to 7 letters
        switch packedLowercase(bytes, a, b) {
        case 0x6E69, 0x7369, 0x726F,  // in is or
            0x646E61, 0x746F6E,  // and not
            0x6D6F7266, 0x656B696C, 0x6C6C756E, 0x65757274,  // from like null true
            0x65736C6166, 0x74696D696C, 0x726564726F, 0x6572656877,  // false limit order where
            0x707865676572, 0x7463656C6573,  // regexp select
            0x6564756C636E69:  // include
            return true
        default:
            return false
        }
    }

    mutating func scanQuotedName() throws(QueryError) {
        let start = pos
        pos += 1
        while pos < bytes.count && bytes[pos] != UInt8(ascii: "`") {
            if bytes[pos] == UInt8(ascii: ".") {
                throw QueryError(.syntax, "a backquoted name cannot contain '.'; quote each part of a dotted key: `a`.`b`",
                                 range: SourceRange(pos, pos + 1))
            }
            pos += 1
        }
        guard pos < bytes.count else {
            throw QueryError(.syntax, "unterminated backquoted name: no closing '`'", range: SourceRange(start, start + 1))
        }
        let name = text(start + 1, pos)
        pos += 1
        guard !name.isEmpty else {
            throw QueryError(.syntax, "empty backquoted name", range: SourceRange(start, pos))
        }
        add(.quotedIdentifier, from: start, value: .string(name))
    }

    /// Digits, an optional fraction and exponent; a leading `-` when
    /// `scanToken` decided it is a sign. After a `.` (a path step such as
    /// `tags.0`) only digits are read.
    mutating func scanNumber() throws(QueryError) {
        let start = pos
        if bytes[pos] == UInt8(ascii: "-") { pos += 1 }
        while pos < bytes.count && CQLScanner.isDigit(bytes[pos]) { pos += 1 }
        var isInteger = true
        let pathStep = tokens.last?.kind == .dot
        if !pathStep {
            if byte(pos) == UInt8(ascii: ".") {
                guard let d = byte(pos + 1), CQLScanner.isDigit(d) else {
                    throw QueryError(.syntax, "expected digits after '.' in number '\(text(start, pos + 1))'",
                                     range: SourceRange(start, pos + 1))
                }
                isInteger = false
                pos += 1
                while pos < bytes.count && CQLScanner.isDigit(bytes[pos]) { pos += 1 }
            }
            if byte(pos) == UInt8(ascii: "e") || byte(pos) == UInt8(ascii: "E") {
                var p = pos + 1
                if byte(p) == UInt8(ascii: "+") || byte(p) == UInt8(ascii: "-") { p += 1 }
                if let d = byte(p), CQLScanner.isDigit(d) {
                    isInteger = false
                    pos = p
                    while pos < bytes.count && CQLScanner.isDigit(bytes[pos]) { pos += 1 }
                }
            }
        }
        if let b = byte(pos), CQLScanner.isWordByte(b) || b == UInt8(ascii: ".") && !pathStep && isInteger == false {
            var end = pos
            while end < bytes.count && CQLScanner.isWordByte(bytes[end]) { end += 1 }
            throw QueryError(.syntax, "invalid number '\(text(start, max(end, pos + 1)))'", range: SourceRange(start, max(end, pos + 1)))
        }
        let range = SourceRange(start, pos)
        let result = bytes.withUnsafeBufferPointer { all -> Result<Value, QueryError> in
            let slice = UnsafeBufferPointer(rebasing: all[start..<pos])
            do throws(QueryError) {
                return .success(try NumberText.value(slice, isInteger: isInteger, range: range))
            } catch { return .failure(error) }
        }
        let value = try result.get()
        add(isInteger ? .integer : .decimal, from: start, value: value)
    }
}
