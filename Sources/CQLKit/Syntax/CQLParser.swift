/// The CQL parser: a statement's text in, a ``Query`` out.
///
/// Recursive descent over the tokens of ``CQLLexer``, implementing
/// Grammar/cql.ebnf exactly. Constant function calls are folded into typed
/// values; placeholders are numbered 0-based in order of appearance, across
/// subqueries. Every condition node and the query carry their source range.
///
/// ```swift
/// let q = try CQLParser.parse("select * from GameScore where score > ? order by score,+name desc")
/// q.condition?.predicate   // .compare("score", .greaterThan, .placeholder(index: 0, ...))
/// q.order                  // [OrderKey("score", descending: true), OrderKey("name")]
/// q.placeholderCount       // 1
/// ```
///
/// Errors say what was expected and what was found, and point at it:
/// ```swift
/// try CQLParser.parse("select * form T")
/// // 1:10: expected 'from' after the field list, found 'form'
/// ```
public enum CQLParser {
    /// Safety limits.
    public struct Options: Hashable, Sendable {
        /// Levels of parentheses, subqueries, function calls, array and object
        /// literals and `not`s; deeper input is a `.limit` error.
        public var maxDepth: Int
        /// Statement size in UTF-8 bytes; longer input is a `.limit` error.
        public var maxLength: Int
        public init(maxDepth: Int = 200, maxLength: Int = 1 << 20) {
            self.maxDepth = maxDepth
            self.maxLength = maxLength
        }
    }

    /// Parses one `select` statement (a trailing `;` is allowed).
    /// - Throws: ``QueryError`` with `source` set: `.syntax` for text that
    ///   does not follow the grammar, `.invalidValue` for bad literals
    ///   (`date('x')`, `geopoint(200, 0)`, an integer overflow), `.limit` for
    ///   too deep or too long input, `.unsupported` for `insert`/`update`/`delete`.
    public static func parse(_ text: String, options: Options = Options()) throws(QueryError) -> Query {
        do throws(QueryError) {
            let bytes = Array(text.utf8)
            guard bytes.count <= options.maxLength else {
                throw QueryError(.limit, "the statement is \(bytes.count) bytes long; the limit is \(options.maxLength) bytes",
                                 range: SourceRange(options.maxLength, options.maxLength + 1))
            }
            var scanner = CQLScanner(bytes)
            var parser = CQLParserState(tokens: try scanner.run(), bytes: bytes, maxDepth: options.maxDepth)
            var query = try parser.parseStatement()
            query.source = text
            return query
        } catch {
            throw error.withSource(text)
        }
    }
}

/// Where a `select` stopped, so the error for an unexpected token can list
/// exactly what could have come next.
struct SelectState {
    enum Last { case className, condition, limit, orderKeys, orderDirection }
    var last = Last.className
    var hasWhere = false
    var hasLimit = false
    var hasOrder = false
}

struct CQLParserState {
    let tokens: [CQLToken]
    let bytes: [UInt8]
    let maxDepth: Int
    var index = 0
    var depth = 0
    /// Placeholders seen so far: the next `?` gets this index.
    var placeholders = 0
    /// End offset of the last consumed token.
    var prevEnd = 0

    init(tokens: [CQLToken], bytes: [UInt8], maxDepth: Int) {
        self.tokens = tokens
        self.bytes = bytes
        self.maxDepth = maxDepth
    }

    // MARK: Token access

    /// The current token (the lexer always ends the list with `.end`).
    var current: CQLToken { tokens[index] }

    func peek(_ n: Int) -> CQLToken { tokens[min(index + n, tokens.count - 1)] }

    @discardableResult
    mutating func advance() -> CQLToken {
        let t = tokens[index]
        if t.kind != .end { index += 1 }
        prevEnd = t.range.end
        return t
    }

    /// The previously consumed token as messages name it: `'where'`, `'x'`.
    var previousText: String {
        guard index > 0 else { return "the start" }
        let t = tokens[index - 1]
        return t.kind == .string ? CQLToken.clip(t.text) : "'\(CQLToken.clip(t.text))'"
    }

    /// The range from `start` to the end of the last consumed token.
    func range(from start: Int) -> SourceRange { SourceRange(start, prevEnd) }

    func sourceText(_ r: SourceRange) -> String {
        let a = max(0, min(r.start, bytes.count)), b = max(a, min(r.end, bytes.count))
        return CQLToken.clip(String(decoding: bytes[a..<b], as: UTF8.self))
    }

    // MARK: Errors

    /// `expected <what>, found <current token>` at the current token.
    func fail(expected what: String) -> QueryError {
        QueryError(.syntax, "expected \(what), found \(current.quoted)", range: current.range)
    }

    /// Like ``fail(expected:)``, with a hint when the token is a reserved word
    /// where a name was expected.
    func failName(expected what: String) -> QueryError {
        var e = fail(expected: what)
        // Not for words that plausibly belong where they are (`select from T`).
        if current.kind == .keyword, !["select", "from", "where", "and", "or", "not"].contains(current.word) {
            e.message += " (write `\(current.text)` to use a reserved word as a name)"
        }
        return e
    }

    /// `1:27` for a byte offset, for messages that refer to another place.
    func position(of offset: Int) -> String {
        var line = 1, column = 1
        var i = 0
        while i < offset && i < bytes.count {
            if bytes[i] == 0x0A { line += 1; column = 1 } else if bytes[i] & 0xC0 != 0x80 { column += 1 }
            i += 1
        }
        return "\(line):\(column)"
    }

    mutating func enter(_ token: CQLToken) throws(QueryError) {
        depth += 1
        if depth > maxDepth {
            throw QueryError(.limit, "nesting deeper than \(maxDepth) levels (parentheses, subqueries, literals and 'not's)",
                             range: token.range)
        }
    }

    mutating func leave() { depth -= 1 }

    // MARK: Statements

    mutating func parseStatement() throws(QueryError) -> Query {
        let first = current
        if first.isKeyword("select") {
            let (query, state) = try parseSelect()
            if current.kind == .semicolon {
                advance()
                guard current.kind == .end else {
                    throw fail(expected: "end of input after ';' (one statement at a time)")
                }
            } else if current.kind != .end {
                throw clauseEndError(state, closing: "end of input")
            }
            return query
        }
        if first.kind == .identifier, ["insert", "update", "delete"].contains(first.word) {
            throw QueryError(.unsupported, "'\(first.word)' statements are not supported yet (DML comes later); only 'select' queries can be parsed",
                             range: first.range)
        }
        throw fail(expected: "'select' at the start of the statement")
    }

    /// `select <fields> from <Class> [where ...] [limit ...] [order by ...]`
    /// (limit and order in either order). Stops at the first token that
    /// cannot continue the statement; the caller checks what follows.
    mutating func parseSelect() throws(QueryError) -> (Query, SelectState) {
        let selectToken = advance()
        var query = try parseFieldList()
        guard current.isKeyword("from") else { throw fail(expected: "'from' after the field list") }
        advance()
        guard current.isName else { throw failName(expected: "a class name after 'from'") }
        query.className = advance().name
        var state = SelectState()
        while true {
            if current.isKeyword("where") && !state.hasWhere && !state.hasLimit && !state.hasOrder {
                advance()
                query.condition = try parseCondition()
                state.hasWhere = true
                state.last = .condition
            } else if current.isKeyword("limit") && !state.hasLimit {
                try parseLimit(into: &query)
                state.hasLimit = true
                state.last = .limit
            } else if current.isKeyword("order") && !state.hasOrder {
                let hasDirection = try parseOrder(into: &query)
                state.hasOrder = true
                state.last = hasDirection ? .orderDirection : .orderKeys
            } else {
                break
            }
        }
        query.range = range(from: selectToken.range.start)
        return (query, state)
    }

    /// The error for a token that cannot follow a `select` (at `closing`:
    /// `end of input`, or `')'` in a subquery).
    func clauseEndError(_ state: SelectState, closing: String) -> QueryError {
        let t = current
        if t.isKeyword("where") && state.hasWhere {
            return QueryError(.syntax, "'where' given twice", range: t.range)
        }
        if t.isKeyword("where") {
            return QueryError(.syntax, "'where' must come before 'limit' and 'order by'", range: t.range)
        }
        if t.isKeyword("limit") && state.hasLimit { return QueryError(.syntax, "'limit' given twice", range: t.range) }
        if t.isKeyword("order") && state.hasOrder { return QueryError(.syntax, "'order by' given twice", range: t.range) }
        var options: [String]
        let context: String
        switch state.last {
        case .className:
            options = ["'where'", "'limit'", "'order by'"]
            context = "the class name"
        case .condition:
            options = ["'and'", "'or'"]
            if !state.hasLimit { options.append("'limit'") }
            if !state.hasOrder { options.append("'order by'") }
            context = "the condition"
        case .limit:
            options = state.hasOrder ? [] : ["'order by'"]
            context = "the limit"
        case .orderKeys:
            options = ["','", "'asc'", "'desc'"]
            if !state.hasLimit { options.append("'limit'") }
            context = "the order keys"
        case .orderDirection:
            if t.kind == .comma, index > 0 {
                let d = tokens[index - 1]
                return QueryError(.syntax, "'\(d.word)' must follow the last order key: it applies to every key without '+' or '-' (write '-key' to sort one key descending)", range: d.range)
            }
            options = state.hasLimit ? [] : ["'limit'"]
            context = "'\(tokens[max(0, index - 1)].word)'"
        }
        options.append(closing)
        return fail(expected: CQLParserState.list(options) + " after " + context)
    }

    /// `a`, `a or b`, `a, b or c`.
    static func list(_ items: [String]) -> String {
        guard items.count > 1 else { return items.first ?? "" }
        return items.dropLast().joined(separator: ", ") + " or " + items[items.count - 1]
    }

    // MARK: Field list

    /// `*`, keys, `count(*)` / `count(objectId)` and `include k`, comma-separated.
    mutating func parseFieldList() throws(QueryError) -> Query {
        var keys: [SelectedKey] = []
        var includes: [FieldPath] = []
        var star = false
        var counted = false
        var first = true
        while true {
            let t = current
            if t.kind == .star {
                advance()
                star = true
            } else if t.isWord("count") && peek(1).kind == .leftParen {
                guard !counted else { throw QueryError(.syntax, "count(...) given twice", range: t.range) }
                advance()
                advance()
                if current.kind == .star || (current.kind == .identifier && current.text == "objectId") {
                    advance()
                } else {
                    throw fail(expected: "'*' or 'objectId' in count(...)")
                }
                guard current.kind == .rightParen else { throw fail(expected: "')' to close count(") }
                advance()
                counted = true
            } else if t.isKeyword("include") {
                advance()
                includes.append(try parsePath(expected: "a key to include after 'include'"))
            } else if t.isName {
                keys.append(SelectedKey(try parsePath(expected: "a key")))
            } else if first {
                throw failName(expected: "a field list after 'select' ('*', keys, count(*) or include k)")
            } else {
                throw failName(expected: "a key, '*', count(*) or include k after ','")
            }
            first = false
            guard current.kind == .comma else { break }
            advance()
        }
        if star { keys = [] }
        var count = CountMode.none
        if counted { count = (star || !keys.isEmpty) ? .withResults : .only }
        return Query(className: "", keys: keys, includes: includes, count: count)
    }

    /// A dotted key: `name`, `` `order` ``, `post.author.name`, `tags.0`.
    /// After a `.`, reserved words and non-negative integers are components too.
    mutating func parsePath(expected what: String) throws(QueryError) -> FieldPath {
        guard current.isName else { throw failName(expected: what) }
        var components = [advance().name]
        while current.kind == .dot {
            advance()
            let t = current
            if t.isName {
                components.append(advance().name)
            } else if t.kind == .keyword || (t.kind == .integer && !t.text.hasPrefix("-")) {
                components.append(advance().text)
            } else {
                throw fail(expected: "a key after '.'")
            }
        }
        return FieldPath(components)
    }

    // MARK: limit and order by

    /// `limit n` or `limit skip, n`: non-negative integers or `?`.
    mutating func parseLimit(into query: inout Query) throws(QueryError) {
        advance()
        let (a, ra) = try parseTerm(expected: "a number or '?'")
        if current.kind == .comma {
            advance()
            let (b, rb) = try parseTerm(expected: "a number or '?'")
            query.skip = try checkCount(a, range: ra, what: "skip")
            query.limit = try checkCount(b, range: rb, what: "limit")
        } else {
            query.limit = try checkCount(a, range: ra, what: "limit")
        }
    }

    func checkCount(_ t: Term, range: SourceRange, what: String) throws(QueryError) -> Term {
        switch t {
        case .placeholder: return t
        case .value(.int(let n)) where n >= 0: return t
        default:
            throw QueryError(.invalidValue, "\(what) must be a non-negative integer or '?', found \(sourceText(range))", range: range)
        }
    }

    /// `order by [+|-]key, ... [asc|desc]`: `+`/`-` force a key's direction;
    /// the trailing `asc`/`desc` (default asc) applies to every unsigned key
    /// (cql.md: `score,+name desc` == `-score,name`). Returns whether a
    /// direction word was given.
    mutating func parseOrder(into query: inout Query) throws(QueryError) -> Bool {
        advance()
        guard current.isWord("by") else { throw fail(expected: "'by' after 'order'") }
        advance()
        var keys: [(FieldPath, Bool?)] = []
        while true {
            var forced: Bool?
            if current.kind == .minus { advance(); forced = true } else if current.kind == .plus { advance(); forced = false }
            keys.append((try parsePath(expected: keys.isEmpty ? "a key to order by after \(previousText)" : "a key after \(previousText)"), forced))
            guard current.kind == .comma else { break }
            advance()
        }
        var descending = false
        var hasDirection = false
        if current.isWord("asc") || current.isWord("desc") {
            descending = advance().word == "desc"
            hasDirection = true
        }
        query.order = keys.map { OrderKey($0.0, descending: $0.1 ?? descending) }
        return hasDirection
    }
}
