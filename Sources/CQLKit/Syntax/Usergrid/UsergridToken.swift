/// One token of a Usergrid `ql` query.
///
/// Word operators and their symbols share a kind (`lt` and `<` are both
/// ``Kind/less``; `and` and `&&` are both ``Kind/and``). Words that are
/// keywords only in some positions (`order`, `by`, `direct`, `in`, `null`,
/// `from`, `limit`) stay ``Kind/identifier``; the parser decides from context,
/// as Usergrid's grammar does for `order` (its token is `'order by'`).
///
/// ```swift
/// let tokens = try UsergridLexer.tokenize("name = 'Fido'")
/// tokens.map(\.kind)   // [.identifier, .equal, .string, .end]
/// tokens[2].value      // .string("Fido")
/// ```
public struct UsergridToken: Hashable, Sendable {
    /// What a token is; literals carry their decoded ``UsergridToken/value``.
    public enum Kind: String, Hashable, Sendable, CaseIterable {
        /// `name`, `address.city`, `first-name`: `[A-Za-z_][A-Za-z0-9_.-]*`.
        case identifier
        /// `'text'` (value: the decoded ``Value/string(_:)``).
        case string
        /// `42`, `-7` (value: ``Value/int(_:)``).
        case integer
        /// `1.5`, `.5`, `5.`, `1e10` (value: ``Value/double(_:)``).
        case number
        /// `c6ee8a1c-3ef4-11e2-8861-02e81adcf3d0` (value: the text as a string).
        case uuid
        /// `true` / `false` (value: ``Value/bool(_:)``).
        case boolean
        case select, `where`, not, and, or, contains, within, of, asc, desc
        /// `=` / `eq`
        case equal
        /// `<` / `lt`
        case less
        /// `<=` / `lte`
        case lessEqual
        /// `>` / `gt`
        case greater
        /// `>=` / `gte`
        case greaterEqual
        case leftParen, rightParen, comma, star, leftBrace, rightBrace, colon
        /// After the last token; its range is empty, at the end of the text.
        case end
    }

    public var kind: Kind
    /// Byte offsets of the token in the query text.
    public var range: SourceRange
    /// The token's text as written.
    public var text: String
    /// The decoded literal for strings, numbers, UUIDs and booleans.
    public var value: Value?

    public init(kind: Kind, range: SourceRange, text: String, value: Value? = nil) {
        self.kind = kind
        self.range = range
        self.text = text
        self.value = value
    }
}

extension UsergridToken.Kind {
    /// Comparison operators (`=` `<` `<=` `>` `>=` and their words).
    var comparison: ComparisonOperator? {
        switch self {
        case .equal: return .equal
        case .less: return .lessThan
        case .lessEqual: return .lessThanOrEqual
        case .greater: return .greaterThan
        case .greaterEqual: return .greaterThanOrEqual
        default: return nil
        }
    }

    /// Whether this kind may follow a property in a condition.
    var isOperator: Bool { comparison != nil || self == .contains || self == .within }
}

/// The reserved words of `ql`. They are keywords in every position (as in
/// Usergrid's ANTLR lexer), compared case-insensitively, so none of them can
/// name a property.
enum UsergridKeywords {
    static let reserved: [String: UsergridToken.Kind] = [
        "select": .select, "where": .where, "not": .not, "and": .and, "or": .or,
        "contains": .contains, "within": .within, "of": .of, "asc": .asc, "desc": .desc,
        "eq": .equal, "lt": .less, "lte": .lessEqual, "gt": .greater, "gte": .greaterEqual,
        "true": .boolean, "false": .boolean,
    ]

    /// The reserved kind of `word` (ASCII case-insensitive), if it is one.
    static func kind(of word: String) -> UsergridToken.Kind? {
        reserved[asciiLowercased(word)]
    }

    static func asciiLowercased(_ s: String) -> String {
        var bytes = Array(s.utf8)
        for i in bytes.indices where bytes[i] >= 0x41 && bytes[i] <= 0x5A { bytes[i] += 0x20 }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Whether `text` is a property name `ql` can spell: the identifier
    /// pattern, no empty path step, and not a reserved word.
    static func isWritableProperty(_ text: String) -> Bool {
        let bytes = Array(text.utf8)
        guard let first = bytes.first, UsergridLexer.isIdentifierStart(first) else { return false }
        var previousDot = false
        for b in bytes {
            guard UsergridLexer.isIdentifierByte(b) else { return false }
            if b == UInt8(ascii: ".") && previousDot { return false }
            previousDot = b == UInt8(ascii: ".")
        }
        return !previousDot && kind(of: text) == nil
    }

    /// Whether `text` is a UUID in its 8-4-4-4-12 hex form.
    static func isUUID(_ text: String) -> Bool {
        let bytes = Array(text.utf8)
        return bytes.count == 36 && UsergridLexer.uuidLength(bytes, at: 0) == 36
    }
}
