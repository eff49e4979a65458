/// The parser of Usergrid `ql` (UsergridQL.md; the grammar is
/// Grammar/usergrid.ebnf).
///
/// ```
/// [select <fields>] [direct <names> | [where] <condition>] [order by <key> [asc|desc], ...]
/// ```
/// It keeps Usergrid's language and meaning and fixes its parser's defects:
/// trailing input, a missing token, number overflow and `%` are positioned
/// errors; escapes are decoded; keys and literals keep their case.
///
/// Mapping (UsergridQL.md): string literals are trimmed; string `=` →
/// ``Predicate/text(_:_:_:)`` with ``TextMatch/equalsIgnoringCase``
/// (``TextMatch/wildcard`` when the text has a `*`), string `<` `<=` `>` `>=`
/// → the case-insensitive ranges (``TextMatch/lessThanIgnoringCase``, ...),
/// or plain comparisons with ``UsergridOptions/literal``; `contains 'w'` →
/// ``TextMatch/word``, `contains 'w*'` → ``TextMatch/wordPrefix``;
/// `within D of LAT, LON` → ``Predicate/near(_:point:min:max:)`` with a
/// maximum of D meters; numbers, booleans and UUIDs →
/// ``Predicate/compare(_:_:_:)``. Keys and literals keep their case:
/// Usergrid's lowercasing of the whole query is a defect we do not copy, its
/// case-insensitive matching is in the AST instead. Without `order by`
/// results come newest first (`created` descending) or, with a `within`,
/// nearest first; the page is 10 unless the options say otherwise.
///
/// ```swift
/// let q = try UsergridParser.parse("select * where color = 'blue' and weight > 2 order by name desc")
/// q.condition   // and[text(color, equalsIgnoringCase, "blue"), compare(weight, >, 2)]
/// q.order       // [OrderKey("name", descending: true)]
/// q.limit       // .value(.int(10))
/// ```
public enum UsergridParser {
    /// How deeply parentheses and `not`s may nest.
    static let maxDepth = 128

    /// Parses `text` with `options` (class name, literal mode, limit, cursor).
    /// The request's meaning is applied (``UsergridOptions``,
    /// `UsergridMeaning`): no `limit` is Usergrid's page of 10; no
    /// `order by` is newest first (`created` descending), or nearest first
    /// with a `within`, as is `order by` the `within` field.
    public static func parse(_ text: String, options: UsergridOptions = .init()) throws(QueryError) -> Query {
        do throws(QueryError) {
            var (query, orderRanges) = try parseWritten(text, literal: options.literal)
            try options.apply(to: &query, orderRanges: orderRanges)
            return query
        } catch {
            throw error.withSource(text)
        }
    }

    /// The query as written, before the request's meaning: no class, limit
    /// or skip, and only the `order by` keys the text has (with where each
    /// key is). ``UsergridQuery/fromString(_:)`` adds these to a builder.
    static func parseWritten(_ text: String, literal: Bool) throws(QueryError) -> (Query, [SourceRange]) {
        do throws(QueryError) {
            let tokens = try UsergridLexer.tokenize(text)
            var parser = UsergridParserState(tokens: tokens, literal: literal, source: text)
            var query = try parser.parseQuery()
            query.range = SourceRange(0, text.utf8.count)
            // Later stages (emitters) point their errors into this text.
            query.source = text
            return (query, parser.orderRanges)
        } catch {
            throw error.withSource(text)
        }
    }
}

/// The state of one parse: the tokens and the position in them.
struct UsergridParserState {
    let tokens: [UsergridToken]
    let literal: Bool
    /// The query text, for line and column numbers inside messages.
    let source: String
    var index = 0
    var depth = 0
    /// Where each `order by` key is, for errors found once the whole query is known.
    var orderRanges: [SourceRange] = []

    init(tokens: [UsergridToken], literal: Bool, source: String) {
        self.tokens = tokens
        self.literal = literal
        self.source = source
    }

    var current: UsergridToken { tokens[index] }

    func peek(_ offset: Int = 1) -> UsergridToken { tokens[min(index + offset, tokens.count - 1)] }

    func at(_ kind: UsergridToken.Kind) -> Bool { current.kind == kind }

    @discardableResult
    mutating func advance() -> UsergridToken {
        let t = tokens[index]
        if index < tokens.count - 1 { index += 1 }
        return t
    }

    /// Whether `token` is the identifier `word` (ASCII case-insensitive).
    static func isWord(_ token: UsergridToken, _ word: String) -> Bool {
        token.kind == .identifier && token.text.utf8.count == word.utf8.count
            && UsergridKeywords.asciiLowercased(token.text) == word
    }

    /// `order by`: Usergrid's token is `'order by'`, so `order` alone is a
    /// property name; we allow any whitespace between the words.
    var atOrderBy: Bool { Self.isWord(current, "order") && Self.isWord(peek(), "by") }

    /// `direct` starts the direct clause unless an operator follows (then it
    /// is a property named `direct`).
    var atDirect: Bool { Self.isWord(current, "direct") && !peek().kind.isOperator }

    /// Whether a condition can start here. A token followed by an operator
    /// counts too, so that `desc = 1` or `5 = a` get the comparison's own
    /// error message.
    var atConditionStart: Bool {
        switch current.kind {
        case .not, .leftParen: return true
        case .identifier: return !atOrderBy
        case .end: return false
        default: return peek().kind.isOperator
        }
    }

    func error(_ message: String, _ token: UsergridToken, kind: QueryError.Kind = .syntax) -> QueryError {
        QueryError(kind, message, range: token.range)
    }

    /// How a token is named in messages.
    static func describe(_ token: UsergridToken) -> String {
        switch token.kind {
        case .end: return "the end of the query"
        case .string where token.text.count <= 40:
            return token.text
        default:
            return "'\(token.text.count > 40 ? String(token.text.prefix(40)) + "…" : token.text)'"
        }
    }

    // MARK: Query

    mutating func parseQuery() throws(QueryError) -> Query {
        var query = Query(className: "")
        if at(.select) {
            let select = advance()
            query.keys = try parseSelectExpression(after: select)
        }
        if atDirect {
            query.direct = try parseDirect()
        } else if at(.where) {
            advance()
            guard atConditionStart else {
                throw error("expected a condition after 'where', found \(Self.describe(current))", current)
            }
            query.condition = try parseOr()
        } else if atConditionStart {
            query.condition = try parseOr()
        }
        if atOrderBy { query.order = try parseOrder() }
        if !at(.end) { throw trailingError(query) }
        return query
    }

    // MARK: Conditions (or < and < not < comparison)

    mutating func parseOr() throws(QueryError) -> Condition {
        var items = [try parseAnd()]
        while at(.or) {
            advance()
            items.append(try parseAnd())
        }
        return Condition.or(items)
    }

    mutating func parseAnd() throws(QueryError) -> Condition {
        var items = [try parseNot()]
        while at(.and) {
            advance()
            items.append(try parseNot())
        }
        return Condition.and(items)
    }

    mutating func parseNot() throws(QueryError) -> Condition {
        guard at(.not) else { return try parsePrimary() }
        let notToken = advance()
        try enter(notToken)
        let inner = try parseNot()
        depth -= 1
        return Condition.not(inner, range: notToken.range.union(inner.range))
    }

    mutating func enter(_ token: UsergridToken) throws(QueryError) {
        depth += 1
        if depth > UsergridParser.maxDepth {
            throw error("conditions nest deeper than \(UsergridParser.maxDepth) levels", token, kind: .limit)
        }
    }

    mutating func parsePrimary() throws(QueryError) -> Condition {
        if at(.leftParen) {
            let open = advance()
            try enter(open)
            guard atConditionStart else {
                throw error("expected a condition after '(', found \(Self.describe(current))", current)
            }
            var inner = try parseOr()
            guard at(.rightParen) else {
                let (line, column) = SourceText.lineAndColumn(of: open.range.start, in: source)
                throw error(
                    "expected ')' to close the '(' at \(line):\(column), found \(Self.describe(current))", current)
            }
            let close = advance()
            depth -= 1
            inner.range = open.range.union(close.range)
            return inner
        }
        return try parseComparison()
    }
}
