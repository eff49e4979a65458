/// The lexer of Usergrid `ql` (UsergridQL.md, Grammar/usergrid.ebnf).
///
/// It works on UTF-8 bytes and is strict: every character that cannot start a
/// token is a positioned error, with a hint for the constructs people bring
/// from other languages (`!=`, `"..."`, `[...]`, `%`, `?`).
///
/// ```swift
/// let tokens = try UsergridLexer.tokenize("a >= 1.5 && b lt 'x'")
/// tokens.map(\.kind)
/// // [.identifier, .greaterEqual, .number, .and, .identifier, .less, .string, .end]
/// ```
public enum UsergridLexer {
    /// The tokens of `text`, ending with one ``UsergridToken/Kind/end`` token.
    public static func tokenize(_ text: String) throws(QueryError) -> [UsergridToken] {
        var scanner = UsergridScanner(bytes: Array(text.utf8))
        do throws(QueryError) {
            return try scanner.run()
        } catch {
            throw error.withSource(text)
        }
    }

    static func isLetter(_ b: UInt8) -> Bool { (b | 0x20) >= UInt8(ascii: "a") && (b | 0x20) <= UInt8(ascii: "z") }
    static func isDigit(_ b: UInt8) -> Bool { b >= UInt8(ascii: "0") && b <= UInt8(ascii: "9") }
    static func isHexDigit(_ b: UInt8) -> Bool {
        isDigit(b) || ((b | 0x20) >= UInt8(ascii: "a") && (b | 0x20) <= UInt8(ascii: "f"))
    }
    static func isIdentifierStart(_ b: UInt8) -> Bool { isLetter(b) || b == UInt8(ascii: "_") }
    static func isIdentifierByte(_ b: UInt8) -> Bool {
        isIdentifierStart(b) || isDigit(b) || b == UInt8(ascii: ".") || b == UInt8(ascii: "-")
    }

    /// 36 when an 8-4-4-4-12 hex UUID starts at `i`, else 0.
    static func uuidLength(_ bytes: [UInt8], at i: Int) -> Int {
        guard i + 36 <= bytes.count else { return 0 }
        for k in 0..<36 {
            let b = bytes[i + k]
            if k == 8 || k == 13 || k == 18 || k == 23 {
                if b != UInt8(ascii: "-") { return 0 }
            } else if !isHexDigit(b) {
                return 0
            }
        }
        return 36
    }
}

/// The scanning state of one ``UsergridLexer/tokenize(_:)`` call.
struct UsergridScanner {
    let bytes: [UInt8]
    var pos = 0
    var tokens: [UsergridToken] = []

    init(bytes: [UInt8]) { self.bytes = bytes }

    func byte(at i: Int) -> UInt8? { i < bytes.count ? bytes[i] : nil }

    func text(_ start: Int, _ end: Int) -> String { String(decoding: bytes[start..<end], as: UTF8.self) }

    func error(_ message: String, _ start: Int, _ end: Int, kind: QueryError.Kind = .syntax) -> QueryError {
        QueryError(kind, message, range: SourceRange(start, end))
    }

    mutating func add(_ kind: UsergridToken.Kind, _ start: Int, _ end: Int, value: Value? = nil) {
        tokens.append(UsergridToken(kind: kind, range: SourceRange(start, end), text: text(start, end), value: value))
        pos = end
    }

    mutating func run() throws(QueryError) -> [UsergridToken] {
        while pos < bytes.count {
            let b = bytes[pos]
            switch b {
            case 0x20, 0x09, 0x0A, 0x0D, 0x0C:
                pos += 1
            case UInt8(ascii: "'"):
                try scanString()
            case UInt8(ascii: "("): add(.leftParen, pos, pos + 1)
            case UInt8(ascii: ")"): add(.rightParen, pos, pos + 1)
            case UInt8(ascii: ","): add(.comma, pos, pos + 1)
            case UInt8(ascii: "*"): add(.star, pos, pos + 1)
            case UInt8(ascii: "{"): add(.leftBrace, pos, pos + 1)
            case UInt8(ascii: "}"): add(.rightBrace, pos, pos + 1)
            case UInt8(ascii: ":"): add(.colon, pos, pos + 1)
            case UInt8(ascii: "="), UInt8(ascii: "<"), UInt8(ascii: ">"), UInt8(ascii: "!"),
                UInt8(ascii: "&"), UInt8(ascii: "|"):
                try scanOperator(b)
            default:
                if UsergridLexer.isHexDigit(b), UsergridLexer.uuidLength(bytes, at: pos) == 36,
                    !(byte(at: pos + 36).map(UsergridLexer.isIdentifierByte) ?? false)
                {
                    add(.uuid, pos, pos + 36, value: .string(text(pos, pos + 36)))
                } else if UsergridLexer.isIdentifierStart(b) {
                    scanWord()
                } else if startsNumber(at: pos) {
                    try scanNumber()
                } else {
                    throw unexpectedCharacter(b)
                }
            }
        }
        tokens.append(UsergridToken(kind: .end, range: SourceRange(bytes.count, bytes.count), text: ""))
        return tokens
    }

    func startsNumber(at i: Int) -> Bool {
        guard let b = byte(at: i) else { return false }
        if UsergridLexer.isDigit(b) { return true }
        if b == UInt8(ascii: ".") { return byte(at: i + 1).map(UsergridLexer.isDigit) ?? false }
        if b == UInt8(ascii: "-") {
            guard let c = byte(at: i + 1) else { return false }
            return UsergridLexer.isDigit(c) || (c == UInt8(ascii: ".") && (byte(at: i + 2).map(UsergridLexer.isDigit) ?? false))
        }
        return false
    }

    mutating func scanWord() {
        let start = pos
        var end = pos
        while end < bytes.count && UsergridLexer.isIdentifierByte(bytes[end]) { end += 1 }
        let word = text(start, end)
        if let kind = UsergridKeywords.kind(of: word) {
            let value: Value? = kind == .boolean ? .bool(UsergridKeywords.asciiLowercased(word) == "true") : nil
            add(kind, start, end, value: value)
        } else {
            add(.identifier, start, end)
        }
    }

    mutating func scanOperator(_ b: UInt8) throws(QueryError) {
        let next = byte(at: pos + 1)
        switch (b, next) {
        case (UInt8(ascii: "<"), UInt8(ascii: "=")): add(.lessEqual, pos, pos + 2)
        case (UInt8(ascii: ">"), UInt8(ascii: "=")): add(.greaterEqual, pos, pos + 2)
        case (UInt8(ascii: "&"), UInt8(ascii: "&")): add(.and, pos, pos + 2)
        case (UInt8(ascii: "|"), UInt8(ascii: "|")): add(.or, pos, pos + 2)
        case (UInt8(ascii: "!"), UInt8(ascii: "=")), (UInt8(ascii: "<"), UInt8(ascii: ">")):
            throw error("Usergrid has no '\(text(pos, pos + 2))'; write `not k = v`", pos, pos + 2)
        case (UInt8(ascii: "="), UInt8(ascii: "=")):
            throw error("'==' is not a Usergrid operator; write '=' (or 'eq')", pos, pos + 2)
        case (UInt8(ascii: "="), _): add(.equal, pos, pos + 1)
        case (UInt8(ascii: "<"), _): add(.less, pos, pos + 1)
        case (UInt8(ascii: ">"), _): add(.greater, pos, pos + 1)
        case (UInt8(ascii: "!"), _):
            throw error("unexpected '!'; Usergrid writes negation as 'not'", pos, pos + 1)
        case (UInt8(ascii: "&"), _):
            throw error("unexpected '&'; write 'and' or '&&'", pos, pos + 1)
        default:
            throw error("unexpected '|'; write 'or' or '||'", pos, pos + 1)
        }
    }

    /// The error for a byte that starts no token, with a hint where one helps.
    func unexpectedCharacter(_ b: UInt8) -> QueryError {
        let length = UsergridScanner.scalarLength(b)
        let end = min(bytes.count, pos + length)
        switch b {
        case UInt8(ascii: "\""):
            return error("double-quoted strings are not allowed in Usergrid; use single quotes ('...')", pos, end)
        case UInt8(ascii: "["), UInt8(ascii: "]"):
            return error("Usergrid has no lists; write each comparison and join them with 'or'", pos, end)
        case UInt8(ascii: "%"):
            return error(
                "'%' is not valid in a Usergrid query (there is no modulo or LIKE; use '*' inside a string as the wildcard)",
                pos, end)
        case UInt8(ascii: "?"):
            return error("Usergrid has no '?' placeholders; write the value itself", pos, end)
        case UInt8(ascii: "-"):
            return error("unexpected '-'; a negative number is written '-5' with no space", pos, end)
        case UInt8(ascii: "."):
            return error("unexpected '.'; a property name cannot start with '.'", pos, end)
        default:
            let s = text(pos, end)
            let shown = b < 0x20 || b == 0x7F ? "U+" + hex(Int(b), width: 4) : s
            return error("unexpected character '\(shown)'", pos, end)
        }
    }

    static func scalarLength(_ lead: UInt8) -> Int {
        if lead < 0x80 { return 1 }
        if lead >= 0xF0 { return 4 }
        if lead >= 0xE0 { return 3 }
        if lead >= 0xC0 { return 2 }
        return 1
    }

    func hex(_ v: Int, width: Int) -> String {
        let digits = String(v, radix: 16, uppercase: true)
        return String(repeating: "0", count: max(0, width - digits.count)) + digits
    }
}
