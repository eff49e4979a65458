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
        let bytes = Array(text.utf8)
        do {
            return try bytes.withUnsafeBufferPointer { buffer throws(QueryError) in
                var scanner = CQLScanner(buffer)
                let list = try scanner.run()
                return list.tokens.indices.map { list.token(at: $0) }
            }
        } catch { throw error.withSource(text) }
    }
}

/// The scanning state. `bytes` is the statement's UTF-8; every token boundary
/// falls on an ASCII byte, so slicing never splits a scalar.
struct CQLScanner {
    let bytes: UnsafeBufferPointer<UInt8>
    var pos = 0
    let storage: CQLTokenStorage
    /// `storage`'s buffer and capacity, read from the storage once (and
    /// again only when it grows).
    var tokens: UnsafeMutablePointer<CQLScannedToken>
    var capacity: Int
    var count = 0

    /// A scanner writing into `storage` (a new one by default, sized for
    /// the statement; a reused one must have been ``CQLTokenStorage/reset()``).
    init(_ bytes: UnsafeBufferPointer<UInt8>, storage: CQLTokenStorage? = nil) {
        self.bytes = bytes
        // Tokens average well over 4 bytes with their spacing: one allocation.
        self.storage = storage ?? CQLTokenStorage(capacity: bytes.count / 4 + 2)
        tokens = self.storage.base
        capacity = self.storage.capacity
    }

    /// The last token (`nil` before the first).
    var last: CQLScannedToken? { count > 0 ? tokens[count - 1] : nil }

    @inline(__always)
    mutating func append(_ token: CQLScannedToken) {
        if count == capacity { grow() }
        (tokens + count).initialize(to: token)
        count += 1
    }

    @inline(never)
    mutating func grow() {
        storage.grow(keeping: count, minimum: count + 1)
        tokens = storage.base
        capacity = storage.capacity
    }

    mutating func run() throws(QueryError) -> CQLTokenList {
        // The position and the bytes in locals (registers) while spaces and
        // words are read; `pos` is written back for the other scanners.
        let bytes = self.bytes
        let n = bytes.count
        var p = pos
        // A leading byte order mark (editors add one) is not part of the statement.
        if n >= 3 && bytes[0] == 0xEF && bytes[1] == 0xBB && bytes[2] == 0xBF { p = 3 }
        while true {
            while p < n && CQLScanner.isSpace(bytes[p]) { p += 1 }
            if p >= n { break }
            let b = bytes[p]
            // Words first (most tokens are), read here rather than through a call.
            if CQLScanner.isWordStart(b) {
                p = scanWord(from: p)
                continue
            }
            pos = p
            if CQLScanner.isDigit(b) {
                // A plain integer (the usual number) is read here; any other
                // goes to scanNumber, which reads it from the start again.
                if let end = scanPlainInteger(from: p) {
                    p = end
                } else {
                    try scanNumber()
                    p = pos
                }
                continue
            }
            if b == UInt8(ascii: "-") || b == UInt8(ascii: "/") {
                if try skipComment() { p = pos; continue }
            }
            try scanToken()
            p = pos
        }
        pos = p
        append(CQLScannedToken(kind: .end, word: .none, start: n, end: n))
        return CQLTokenList(bytes: bytes, tokens: UnsafeMutableBufferPointer(start: tokens, count: count), storage: storage, names: storage.names)
    }

    // MARK: Trivia

    /// Space, tab, LF, VT, FF, CR: one bit test.
    @inline(__always)
    static func isSpace(_ b: UInt8) -> Bool { b <= 0x20 && (UInt64(0x1_0000_3E00) >> UInt64(b)) & 1 != 0 }
    static func isDigit(_ b: UInt8) -> Bool { b &- 0x30 < 10 }
    @inline(__always)
    static func isWordStart(_ b: UInt8) -> Bool { (b | 0x20) &- 0x61 < 26 || b == 0x5F }

    /// `[0-9A-Z_a-z]`: one bit test in a 128-bit set (two 64-bit halves),
    /// fewer instructions per byte of a word than a chain of range checks.
    @inline(__always)
    static func isWordByte(_ b: UInt8) -> Bool {
        // Bits 0x30-0x39 ('0'-'9') of the low half; bits 0x41-0x5A ('A'-'Z'),
        // 0x5F ('_') and 0x61-0x7A ('a'-'z'), less 64, of the high half.
        let low: UInt64 = 0x03FF_0000_0000_0000
        let high: UInt64 = 0x07FF_FFFE_87FF_FFFE
        return b < 0x80 && ((b < 0x40 ? low : high) >> UInt64(b & 0x3F)) & 1 != 0
    }

    func byte(_ i: Int) -> UInt8? { i < bytes.count ? bytes[i] : nil }

    /// Skips the comment at `pos` (`--` to the end of the line, `/* */`);
    /// false when there is none (a `-` or `/` token).
    mutating func skipComment() throws(QueryError) -> Bool {
        if byte(pos) == UInt8(ascii: "-") && byte(pos + 1) == UInt8(ascii: "-") {
            while pos < bytes.count && bytes[pos] != 0x0A { pos += 1 }
            return true
        }
        guard byte(pos) == UInt8(ascii: "/") && byte(pos + 1) == UInt8(ascii: "*") else { return false }
        let start = pos
        pos += 2
        while true {
            guard pos + 1 < bytes.count else {
                throw QueryError(.syntax, "unterminated comment: no '*/' closes the '/*' here", range: SourceRange(start, start + 2))
            }
            if bytes[pos] == UInt8(ascii: "*") && bytes[pos + 1] == UInt8(ascii: "/") { pos += 2; return true }
            pos += 1
        }
    }

    // MARK: Tokens

    func text(_ start: Int, _ end: Int) -> String {
        String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<end]), as: UTF8.self)
    }

    mutating func add(_ kind: CQLToken.Kind, from start: Int, payload: UInt64 = 0) {
        append(CQLScannedToken(kind: kind, word: .none, start: start, end: pos, payload: payload))
    }

    /// Whether a `-` here would be a sign: the previous token does not end a value.
    var signAllowed: Bool {
        guard let last else { return true }
        switch last.kind {
        case .identifier, .quotedIdentifier, .integer, .decimal, .string, .placeholder,
             .rightParen, .rightBracket, .rightBrace, .dot:
            return false
        case .keyword:
            return !(last.word == .null || last.word == .true || last.word == .false)
        default:
            return true
        }
    }

    mutating func scanToken() throws(QueryError) {
        let start = pos
        let b = bytes[pos]
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

    /// The word at `start`: keyword or identifier, classified by its bytes
    /// (no String is made: the parser makes one only for the names it
    /// keeps). Returns where it ends.
    @inline(__always)
    mutating func scanWord(from start: Int) -> Int {
        let bytes = self.bytes
        var end: Int
        let word: CQLWord
        if start + 8 <= bytes.count, let base = bytes.baseAddress {
            // Eight bytes read at once (in bounds): where the word ends
            // among them, and its lowercased bytes for the classification
            // (what packedLowercase gives), without a byte loop.
            let raw = UInt64(littleEndian: UnsafeRawPointer(base + start).loadUnaligned(as: UInt64.self))
            let length = CQLScanner.nonWordBytes(raw).trailingZeroBitCount >> 3
            end = start + length
            if length < 8 {
                word = CQLWord.classify(packed: (raw | 0x2020_2020_2020_2020) & ((1 &<< UInt64(8 &* length)) &- 1))
            } else {
                while end < bytes.count && CQLScanner.isWordByte(bytes[end]) { end += 1 }
                word = end - start == 8 ? CQLWord.classify(packed: raw | 0x2020_2020_2020_2020) : .none
            }
        } else {
            end = start + 1
            while end < bytes.count && CQLScanner.isWordByte(bytes[end]) { end += 1 }
            word = CQLWord.classify(bytes, start, end)
        }
        append(CQLScannedToken(kind: word.isReserved ? .keyword : .identifier, word: word, start: start, end: end))
        return end
    }

    /// `0x80` in every byte of `x` that is not a word byte `[0-9A-Z_a-z]`,
    /// 0 in the others: ``isWordByte(_:)`` for eight bytes at once. Each
    /// range test adds a constant to the byte's low 7 bits, which sets its
    /// top bit exactly when the byte is at least the range's start, and
    /// cannot carry into the next byte; bytes from 0x80 are never word bytes.
    @inline(__always)
    static func nonWordBytes(_ x: UInt64) -> UInt64 {
        let top: UInt64 = 0x8080_8080_8080_8080
        let ones: UInt64 = 0x0101_0101_0101_0101
        let low7 = x & ~top
        let folded = low7 | 0x20 &* ones  // A-Z onto a-z; nothing else lands there
        let letter = (folded &+ (0x80 - 0x61) &* ones) & ~(folded &+ (0x7F - 0x7A) &* ones)
        let digit = (low7 &+ (0x80 - 0x30) &* ones) & ~(low7 &+ (0x7F - 0x39) &* ones)
        let underscore = ~((low7 ^ 0x5F &* ones) &+ 0x7F &* ones)
        return ~((letter | digit | underscore) & ~x) & top
    }

    /// Word bytes `a..<b` (at most 8) packed into a UInt64, byte `i` at bits
    /// `8i`, each `| 0x20`: that lowercases A-Z and maps no other word byte
    /// (digits, `_`) onto a-z, and no word byte is 0, so two packed words are
    /// equal exactly when the words are equal ignoring case.
    @inline(__always)
    static func packedLowercase(_ bytes: UnsafeBufferPointer<UInt8>, _ a: Int, _ b: Int) -> UInt64 {
        var v: UInt64 = 0
        var i = b
        while i > a {
            i -= 1
            v = v << 8 | UInt64(bytes[i] | 0x20)
        }
        return v
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
        let isEmpty = pos == start + 1
        pos += 1
        guard !isEmpty else {
            throw QueryError(.syntax, "empty backquoted name", range: SourceRange(start, pos))
        }
        add(.quotedIdentifier, from: start)
    }

    /// The usual number: a sign, at most 18 digits (which fit Int64
    /// whatever they are) and then neither a word byte nor `.` (no
    /// fraction, exponent, path step or bad suffix to look at). Its value is
    /// summed as the digits are read and its token added; returns its end,
    /// or `nil` (nothing added) for any other number.
    @inline(__always)
    mutating func scanPlainInteger(from start: Int) -> Int? {
        let bytes = self.bytes
        var p = start
        let negative = bytes[p] == UInt8(ascii: "-")
        if negative { p += 1 }
        let digitsStart = p
        var v: Int64 = 0
        while p < bytes.count && CQLScanner.isDigit(bytes[p]) {
            v = v &* 10 &+ Int64(bytes[p] &- 0x30)
            p += 1
        }
        guard p - digitsStart <= 18 && (p == bytes.count || !(CQLScanner.isWordByte(bytes[p]) || bytes[p] == UInt8(ascii: "."))) else {
            return nil
        }
        append(CQLScannedToken(kind: .integer, word: .none, start: start, end: p, payload: UInt64(bitPattern: negative ? 0 &- v : v)))
        return p
    }

    /// Digits, an optional fraction and exponent; a leading `-` when
    /// `scanToken` decided it is a sign. After a `.` (a path step such as
    /// `tags.0`) only digits are read.
    mutating func scanNumber() throws(QueryError) {
        let start = pos
        if let end = scanPlainInteger(from: start) {
            pos = end
            return
        }
        if bytes[pos] == UInt8(ascii: "-") { pos += 1 }
        while pos < bytes.count && CQLScanner.isDigit(bytes[pos]) { pos += 1 }
        var isInteger = true
        let pathStep = last?.kind == .dot
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
        let slice = UnsafeBufferPointer(rebasing: bytes[start..<pos])
        switch try NumberText.value(slice, isInteger: isInteger, range: range) {
        case .int(let i): add(.integer, from: start, payload: UInt64(bitPattern: i))
        case .double(let d): add(.decimal, from: start, payload: d.bitPattern)
        default: preconditionFailure("NumberText gives .int or .double")
        }
    }
}
