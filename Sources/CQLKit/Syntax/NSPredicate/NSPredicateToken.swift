/// One token of an NSPredicate format string (NSPredicate.md).
///
/// Word operators and their symbols share a kind (`AND` and `&&` are both
/// ``Kind/and``; `=` and `==` are both ``Kind/equal``). Keywords are
/// case-insensitive; `#name` is always an ``Kind/identifier``.
///
/// ```swift
/// let tokens = try NSPredicateLexer.tokenize("name ==[c] %@ && age > 3")
/// tokens.map(\.kind)
/// // [.identifier, .equal, .leftBracket, .identifier, .rightBracket, .placeholder,
/// //  .and, .identifier, .greater, .integer, .end]
/// ```
public struct NSPredicateToken: Hashable, Sendable {
    public enum Kind: String, Hashable, Sendable, CaseIterable {
        /// `name`, `#size` (the `#` escapes a reserved word; text is without it).
        case identifier
        /// `'text'` or `"text"` (value: the decoded string).
        case string
        /// `42`, `-7`, `0x1F`, `0o17`, `0b101` (value: ``Value/int(_:)``).
        case integer
        /// `1.5`, `1e3` (value: ``Value/double(_:)``).
        case number
        /// `%@`, `%K`, `%d`, ... (text: the whole specifier).
        case placeholder
        /// `$NAME` (text: the name without `$`).
        case variable
        /// `@count`, `@avg`, ... (text: with the `@`).
        case collectionOperator
        case and, or, not
        case equal, notEqual, less, lessEqual, greater, greaterEqual
        case `in`, between, contains, beginsWith, endsWith, like, matches
        case `true`, `false`, null, `self`, truePredicate, falsePredicate, cast
        /// `ANY`, `SOME`, `ALL`, `NONE`.
        case quantifier
        /// Reserved words this front end rejects: `SUBQUERY`, `FUNCTION`, `FETCH`,
        /// `FIRST`, `LAST`, `SIZE`, `ANYKEY`, `CASEINSENSITIVE`, `CI`.
        case reserved
        /// `+ - * / **`: arithmetic, which has no query meaning.
        case arithmetic
        case leftParen, rightParen, leftBrace, rightBrace, leftBracket, rightBracket, comma, dot
        /// After the last token; its range is empty, at the end of the text.
        case end
    }

    public var kind: Kind
    /// Byte offsets of the token in the format string.
    public var range: SourceRange
    /// The token's text as written (for identifiers without `#`, for
    /// variables without `$`).
    public var text: String
    /// The decoded literal of strings and numbers.
    public var value: Value?

    public init(kind: Kind, range: SourceRange, text: String, value: Value? = nil) {
        self.kind = kind
        self.range = range
        self.text = text
        self.value = value
    }
}

extension NSPredicateToken.Kind {
    /// The comparison of `= != < <= > >=` kinds.
    var comparison: ComparisonOperator? {
        switch self {
        case .equal: return .equal
        case .notEqual: return .notEqual
        case .less: return .lessThan
        case .lessEqual: return .lessThanOrEqual
        case .greater: return .greaterThan
        case .greaterEqual: return .greaterThanOrEqual
        default: return nil
        }
    }

    /// Whether this kind is a predicate operator (what may follow the left
    /// expression of a comparison).
    var isOperator: Bool {
        switch self {
        case .equal, .notEqual, .less, .lessEqual, .greater, .greaterEqual,
            .in, .between, .contains, .beginsWith, .endsWith, .like, .matches:
            return true
        default: return false
        }
    }
}

/// The reserved words (NSPredicate.md), compared ASCII case-insensitively.
enum NSPredicateKeywords {
    static let words: [String: NSPredicateToken.Kind] = [
        "and": .and, "or": .or, "not": .not, "in": .in, "between": .between, "contains": .contains,
        "beginswith": .beginsWith, "endswith": .endsWith, "like": .like, "matches": .matches,
        "true": .true, "yes": .true, "false": .false, "no": .false, "null": .null, "nil": .null,
        "self": .self, "truepredicate": .truePredicate, "falsepredicate": .falsePredicate, "cast": .cast,
        "any": .quantifier, "some": .quantifier, "all": .quantifier, "none": .quantifier,
        "subquery": .reserved, "function": .reserved, "fetch": .reserved, "first": .reserved,
        "last": .reserved, "size": .reserved, "anykey": .reserved, "caseinsensitive": .reserved, "ci": .reserved,
    ]

    static func kind(of word: String) -> NSPredicateToken.Kind? { words[UsergridKeywords.asciiLowercased(word)] }

    /// Whether `word` is reserved (a key of that name is written `#word`).
    static func isReserved(_ word: String) -> Bool { kind(of: word) != nil }
}
