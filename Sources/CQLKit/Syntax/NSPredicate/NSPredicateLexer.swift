/// The lexer of NSPredicate format strings (NSPredicate.md,
/// Grammar/nspredicate.ebnf).
///
/// It works on UTF-8 bytes and is strict: a character that starts no token
/// is a positioned error, with a hint for what people bring from other
/// languages (`?` placeholders, SQL's `%` wildcards, `'a' + 'b'`).
///
/// ```swift
/// let tokens = try NSPredicateLexer.tokenize("tags.@count == 2 OR name BEGINSWITH[cd] 'é'")
/// tokens.map(\.kind)
/// // [.identifier, .dot, .collectionOperator, .equal, .integer, .or,
/// //  .identifier, .beginsWith, .leftBracket, .identifier, .rightBracket, .string, .end]
/// ```
public enum NSPredicateLexer {
    /// The tokens of `text`, ending with one ``NSPredicateToken/Kind/end`` token.
    public static func tokenize(_ text: String) throws(QueryError) -> [NSPredicateToken] {
        var scanner = NSPredicateScanner(bytes: Array(text.utf8))
        do throws(QueryError) {
            return try scanner.run()
        } catch {
            throw error.withSource(text)
        }
    }

    static func isDigit(_ b: UInt8) -> Bool { b >= 0x30 && b <= 0x39 }
    static func isLetter(_ b: UInt8) -> Bool { (b | 0x20) >= 0x61 && (b | 0x20) <= 0x7A }
    /// Identifiers are C identifiers; bytes of non-ASCII characters count as letters.
    static func isIdentifierStart(_ b: UInt8) -> Bool { isLetter(b) || b == UInt8(ascii: "_") || b >= 0x80 }
    static func isIdentifierByte(_ b: UInt8) -> Bool { isIdentifierStart(b) || isDigit(b) }

    /// Whether `word` can be written as a bare key path step.
    static func isPlainIdentifier(_ word: String) -> Bool {
        let b = Array(word.utf8)
        guard let first = b.first, isIdentifierStart(first) else { return false }
        return b.allSatisfy(isIdentifierByte)
    }

    /// The printf conversions `%d %i %u %ld %lld %f %x ...` that take numbers:
    /// whether the specifier takes an integer (`true`) or any number (`false`).
    static func numericConversion(_ spec: String) -> Bool? {
        var s = Substring(spec.dropFirst())
        for prefix in ["ll", "l", "q", "h"] where s.hasPrefix(prefix) {
            s = s.dropFirst(prefix.count)
            break
        }
        switch s {
        case "d", "i", "u", "x", "X", "o": return true
        case "f", "e", "g", "F", "E", "G": return false
        default: return nil
        }
    }
}

/// The scanning state of one ``NSPredicateLexer/tokenize(_:)`` call.
struct NSPredicateScanner {
    let bytes: [UInt8]
    var pos = 0
    var tokens: [NSPredicateToken] = []

    init(bytes: [UInt8]) { self.bytes = bytes }

    func byte(at i: Int) -> UInt8? { i < bytes.count ? bytes[i] : nil }
    func text(_ start: Int, _ end: Int) -> String { String(decoding: bytes[start..<end], as: UTF8.self) }
    func error(_ message: String, _ start: Int, _ end: Int, kind: QueryError.Kind = .syntax) -> QueryError {
        QueryError(kind, message, range: SourceRange(start, min(end, bytes.count)))
    }

    mutating func add(_ kind: NSPredicateToken.Kind, _ start: Int, _ end: Int, text: String? = nil, value: Value? = nil) {
        tokens.append(NSPredicateToken(kind: kind, range: SourceRange(start, end), text: text ?? self.text(start, end), value: value))
        pos = end
    }

    mutating func run() throws(QueryError) -> [NSPredicateToken] {
        while pos < bytes.count {
            let b = bytes[pos]
            let next = byte(at: pos + 1)
            switch b {
            case 0x20, 0x09, 0x0A, 0x0D, 0x0C: pos += 1
            case UInt8(ascii: "'"), UInt8(ascii: "\""): try scanString(quote: b)
            case UInt8(ascii: "("): add(.leftParen, pos, pos + 1)
            case UInt8(ascii: ")"): add(.rightParen, pos, pos + 1)
            case UInt8(ascii: "{"): add(.leftBrace, pos, pos + 1)
            case UInt8(ascii: "}"): add(.rightBrace, pos, pos + 1)
            case UInt8(ascii: "["): add(.leftBracket, pos, pos + 1)
            case UInt8(ascii: "]"): add(.rightBracket, pos, pos + 1)
            case UInt8(ascii: ","): add(.comma, pos, pos + 1)
            case UInt8(ascii: "."):
                if let n = next, NSPredicateLexer.isDigit(n), !(tokens.last.map(Self.endsOperand) ?? false) {
                    throw error("a number cannot start with '.'; write 0\(text(pos, pos + 2))", pos, pos + 1)
                }
                add(.dot, pos, pos + 1)
            case UInt8(ascii: "="):
                switch next {
                case UInt8(ascii: "="): add(.equal, pos, pos + 2)
                case UInt8(ascii: "<"): add(.lessEqual, pos, pos + 2)
                case UInt8(ascii: ">"): add(.greaterEqual, pos, pos + 2)
                default: add(.equal, pos, pos + 1)
                }
            case UInt8(ascii: "<"):
                switch next {
                case UInt8(ascii: "="): add(.lessEqual, pos, pos + 2)
                case UInt8(ascii: ">"): add(.notEqual, pos, pos + 2)
                default: add(.less, pos, pos + 1)
                }
            case UInt8(ascii: ">"):
                if next == UInt8(ascii: "=") { add(.greaterEqual, pos, pos + 2) } else { add(.greater, pos, pos + 1) }
            case UInt8(ascii: "!"):
                if next == UInt8(ascii: "=") { add(.notEqual, pos, pos + 2) } else { add(.not, pos, pos + 1) }
            case UInt8(ascii: "&"):
                guard next == UInt8(ascii: "&") else { throw error("unexpected '&'; write '&&' or AND", pos, pos + 1) }
                add(.and, pos, pos + 2)
            case UInt8(ascii: "|"):
                guard next == UInt8(ascii: "|") else { throw error("unexpected '|'; write '||' or OR", pos, pos + 1) }
                add(.or, pos, pos + 2)
            case UInt8(ascii: "%"): try scanPlaceholder()
            case UInt8(ascii: "$"): try scanVariable()
            case UInt8(ascii: "@"): try scanCollectionOperator()
            case UInt8(ascii: "#"): try scanEscapedIdentifier()
            case UInt8(ascii: "+"), UInt8(ascii: "*"), UInt8(ascii: "/"):
                let end = b == UInt8(ascii: "*") && next == UInt8(ascii: "*") ? pos + 2 : pos + 1
                add(.arithmetic, pos, end)
            case UInt8(ascii: "-"):
                if let n = next, NSPredicateLexer.isDigit(n) { try scanNumber() } else { add(.arithmetic, pos, pos + 1) }
            case UInt8(ascii: "?"):
                throw error("NSPredicate has no '?' placeholder; write %@ for a value or %K for a key path", pos, pos + 1)
            default:
                if NSPredicateLexer.isDigit(b) {
                    try scanNumber()
                } else if NSPredicateLexer.isIdentifierStart(b) {
                    scanWord()
                } else {
                    let hex = String(b, radix: 16, uppercase: true)
                    let shown = b < 0x20 || b == 0x7F ? "U+" + String(repeating: "0", count: 4 - hex.count) + hex
                        : text(pos, min(bytes.count, pos + NSPredicateScanner.scalarLength(b)))
                    throw error("unexpected character '\(shown)'", pos, pos + 1)
                }
            }
        }
        tokens.append(NSPredicateToken(kind: .end, range: SourceRange(bytes.count, bytes.count), text: ""))
        return tokens
    }

    /// Tokens after which a `.` is a key path step, not a number's start.
    static func endsOperand(_ t: NSPredicateToken) -> Bool {
        t.kind == .identifier || t.kind == .rightParen || t.kind == .placeholder || t.kind == .variable
    }

    mutating func scanWord() {
        let start = pos
        var end = pos
        while end < bytes.count && NSPredicateLexer.isIdentifierByte(bytes[end]) { end += 1 }
        let word = text(start, end)
        // After a '.', a word is a key path step even when it is reserved
        // (`a.size`): only the first step can be confused with an operator.
        if tokens.last?.kind != .dot, let kind = NSPredicateKeywords.kind(of: word) {
            add(kind, start, end)
        } else {
            add(.identifier, start, end)
        }
    }

    mutating func scanEscapedIdentifier() throws(QueryError) {
        let start = pos
        var end = pos + 1
        guard let b = byte(at: end), NSPredicateLexer.isIdentifierStart(b) else {
            throw error("'#' must be followed by a name (it escapes a reserved word: #size)", start, start + 1)
        }
        while end < bytes.count && NSPredicateLexer.isIdentifierByte(bytes[end]) { end += 1 }
        add(.identifier, start, end, text: text(start + 1, end))
    }

    mutating func scanVariable() throws(QueryError) {
        let start = pos
        var end = pos + 1
        guard let b = byte(at: end), NSPredicateLexer.isIdentifierStart(b) else {
            throw error("'$' must be followed by a variable name ($NAME)", start, start + 1)
        }
        while end < bytes.count && NSPredicateLexer.isIdentifierByte(bytes[end]) { end += 1 }
        add(.variable, start, end, text: text(start + 1, end))
    }

    mutating func scanCollectionOperator() throws(QueryError) {
        let start = pos
        var end = pos + 1
        while end < bytes.count && NSPredicateLexer.isIdentifierByte(bytes[end]) { end += 1 }
        guard end > start + 1 else { throw error("'@' must start a collection operator such as @count", start, start + 1) }
        add(.collectionOperator, start, end)
    }

    mutating func scanPlaceholder() throws(QueryError) {
        let start = pos
        guard let b = byte(at: pos + 1) else {
            throw error("'%' at the end of the format; write %@, %K or %d", start, start + 1)
        }
        switch b {
        case UInt8(ascii: "@"), UInt8(ascii: "K"):
            add(.placeholder, start, start + 2)
        case UInt8(ascii: "%"):
            throw error("'%%' is a literal '%', which cannot stand outside a string; inside quotes '%' needs no escape", start, start + 2)
        default:
            var end = pos + 1
            while end < bytes.count && NSPredicateLexer.isLetter(bytes[end]) && end - start < 5 {
                end += 1
                if NSPredicateLexer.numericConversion(text(start, end)) != nil { break }
            }
            let spec = text(start, end)
            guard NSPredicateLexer.numericConversion(spec) != nil else {
                let shown = end > start + 1 ? spec : text(start, min(bytes.count, start + 2))
                throw error("unknown format specifier '\(shown)'; write %@ for a value, %K for a key path, or %d / %f for a number",
                            start, max(end, start + 2))
            }
            add(.placeholder, start, end)
        }
    }
}
