/// One token of a CQL statement, as ``CQLLexer/tokenize(_:)`` returns it.
///
/// `text` is the exact source text of the token (quotes and escapes
/// included); `range` is its UTF-8 byte range in the statement.
///
/// ```swift
/// for t in try CQLLexer.tokenize("select * from T where a = 'x'") {
///     print(t.kind, t.text, t.range)
/// }
/// // keyword select 0..<6
/// // star * 7..<8
/// // keyword from 9..<13
/// // identifier T 14..<15
/// // keyword where 16..<21
/// // identifier a 22..<23
/// // equal = 24..<25
/// // string 'x' 26..<29
/// // end  29..<29
/// ```
public struct CQLToken: Hashable, Sendable, CustomStringConvertible {
    /// What a token is; ``CQLToken/text`` holds its source text.
    public enum Kind: String, Hashable, Sendable, CaseIterable {
        /// A reserved word (``CQLToken/reservedWords``), matched case-insensitively.
        /// Other words with a meaning in some position (`count`, `exists`,
        /// `near`, `asc`, `km`, function names ...) are identifiers, so they stay
        /// usable as keys.
        case keyword
        /// A bare name: `[A-Za-z_][A-Za-z0-9_]*`.
        case identifier
        /// A backquoted name (\`order\`): one key component, never a keyword.
        case quotedIdentifier
        /// `'...'` or `"..."`.
        case string
        /// An integer that fits `Int64` (a `-` directly before it, where a value
        /// is expected, is part of it).
        case integer
        /// A number with a fraction or an exponent.
        case decimal
        /// `?`
        case placeholder
        case star, comma, dot, semicolon, colon
        case leftParen, rightParen, leftBracket, rightBracket, leftBrace, rightBrace
        case plus, minus
        /// `=`
        case equal
        /// `!=` or `<>`
        case notEqual
        case less, lessOrEqual, greater, greaterOrEqual
        /// The end of the statement (always the last token, empty text).
        case end
    }

    public var kind: Kind
    public var range: SourceRange
    public var text: String
    /// Lowercased text of keywords and identifiers (for case-insensitive matching).
    let word: String
    /// The decoded content: `.string` for strings and backquoted names, the
    /// number for numbers.
    let value: Value?

    init(_ kind: Kind, _ range: SourceRange, _ text: String, word: String = "", value: Value? = nil) {
        self.kind = kind
        self.range = range
        self.text = text
        self.word = word
        self.value = value
    }

    public var description: String { "\(kind.rawValue) \(text) \(range)" }

    /// Words that cannot be used as bare keys or class names (backquote them:
    /// \`order\`). Matched case-insensitively.
    public static let reservedWords: Set<String> = [
        "select", "from", "where", "and", "or", "not", "in", "like", "regexp", "is",
        "limit", "order", "null", "true", "false", "include",
    ]

    /// Whether this token is the keyword `word` (lowercase).
    func isKeyword(_ word: String) -> Bool { kind == .keyword && self.word == word }

    /// Whether this token is the bare identifier `word` (lowercase), used for
    /// contextual words such as `count`, `exists`, `near`, `desc`.
    func isWord(_ word: String) -> Bool { kind == .identifier && self.word == word }

    /// Whether the token can name a key or a class.
    var isName: Bool { kind == .identifier || kind == .quotedIdentifier }

    /// The name a key-component token stands for (backquotes removed).
    var name: String { kind == .quotedIdentifier ? (value?.stringValue ?? text) : text }

    /// How error messages refer to the token: `'form'`, `keyword 'where'`,
    /// `string 'x'`, `1.5`, `end of input`.
    var quoted: String {
        switch kind {
        case .end: return "end of input"
        case .keyword: return "keyword '\(CQLToken.clip(text))'"
        case .string: return "string \(CQLToken.clip(text))"
        case .integer, .decimal: return CQLToken.clip(text)
        default: return "'\(CQLToken.clip(text))'"
        }
    }

    /// Long token texts are shortened in messages.
    static func clip(_ s: String) -> String {
        let scalars = s.unicodeScalars
        guard scalars.count > 40 else { return s }
        var out = String.UnicodeScalarView()
        out.append(contentsOf: scalars.prefix(37))
        return String(out) + "..."
    }
}
