/// The parser of NSPredicate format strings (NSPredicate.md; the grammar is
/// Grammar/nspredicate.ebnf), as the LAS / Parse iOS SDKs' query predicates:
/// `[LASQuery queryWithClassName:@"GameScore" predicate:...]`.
///
/// Placeholders are bound while parsing, as `NSPredicate(format:argumentArray:)`
/// does: `%@` takes the next argument as a constant (a sub-query argument
/// `{"__type":"Query",...}` makes `k IN %@` an `$inQuery`), `%K` a key path,
/// `%d %i %u %ld %lld %f %x` a number; `$NAME` takes `variables["NAME"]`.
/// The mapping keeps the meaning exact where the SDK does not (several
/// conditions on one key all kept, `NOT` never flipped into a range, `[c]`
/// and `[d]` honoured, no expansion into an OR of ANDs).
///
/// ```swift
/// let q = try NSPredicateParser.parse(
///     format: "playerName = %@ AND playerAge > %d",
///     argumentArray: ["Dan Stemkosk", 18], className: "GameScore")
/// JSONWriter.string(try WhereJSONEmitter.emit(q, dialect: .parse))
/// // {"className":"GameScore","where":{"playerAge":{"$gt":18},"playerName":"Dan Stemkosk"}}
/// ```
public enum NSPredicateParser {
    /// How deeply parentheses and NOTs may nest.
    public static let maxDepth = 128
    /// The longest format string accepted, in UTF-8 bytes.
    public static let maxLength = 1 << 20

    /// Parses `format` into a query over `className`, binding `%`-placeholders
    /// from `argumentArray` in order (typed values in their REST form or as
    /// typed ``Value`` cases; a sub-query as `{"__type":"Query","className":C,
    /// "where":{...}}` or `{"__type":"Query","cql":"select * from C where ..."}`)
    /// and `$NAME` variables from `variables`.
    ///
    /// - Throws: a positioned ``QueryError`` for bad syntax, a construct
    ///   NSPredicate.md lists as an error, or arguments that are missing,
    ///   surplus or of the wrong type (pointing at the placeholder).
    public static func parse(
        format: String, argumentArray: [Value] = [], variables: [String: Value] = [:], className: String = ""
    ) throws(QueryError) -> Query {
        do throws(QueryError) {
            let count = format.utf8.count
            guard count <= maxLength else {
                throw QueryError(.limit, "the format string is \(count) bytes long; the limit is \(maxLength) bytes",
                                 range: SourceRange(maxLength, maxLength + 1))
            }
            let tokens = try NSPredicateLexer.tokenize(format)
            var parser = NSPredicateParserState(
                tokens: tokens, source: format,
                arguments: NSPredicateArguments(arguments: argumentArray, variables: variables))
            let condition = try parser.parsePredicate()
            if !parser.at(.end) {
                throw parser.error("expected AND, OR or the end of the predicate, found \(parser.describe(parser.current))", parser.current)
            }
            try parser.arguments.finish(at: SourceRange(count, count))
            var query = Query(className: className, condition: condition, range: SourceRange(0, count))
            query.source = format
            return query
        } catch {
            throw error.withSource(format)
        }
    }
}

/// The state of one parse: the tokens, the position, the arguments.
struct NSPredicateParserState {
    let tokens: [NSPredicateToken]
    let source: String
    var arguments: NSPredicateArguments
    var index = 0
    var depth = 0

    var current: NSPredicateToken { tokens[index] }
    func peek(_ offset: Int = 1) -> NSPredicateToken { tokens[min(index + offset, tokens.count - 1)] }
    func at(_ kind: NSPredicateToken.Kind) -> Bool { current.kind == kind }

    @discardableResult
    mutating func advance() -> NSPredicateToken {
        let t = tokens[index]
        if index < tokens.count - 1 { index += 1 }
        return t
    }

    func error(_ message: String, _ token: NSPredicateToken, kind: QueryError.Kind = .syntax) -> QueryError {
        QueryError(kind, message, range: token.range)
    }

    func describe(_ token: NSPredicateToken) -> String {
        switch token.kind {
        case .end: return "the end of the predicate"
        case .identifier where token.range.end - token.range.start != token.text.utf8.count:
            return "'#\(token.text)'"
        default:
            let t = token.text.count > 40 ? String(token.text.prefix(40)) + "…" : token.text
            return token.kind == .string ? t : "'\(t)'"
        }
    }

    mutating func enter(_ token: NSPredicateToken) throws(QueryError) {
        depth += 1
        if depth > NSPredicateParser.maxDepth {
            throw error("the predicate nests deeper than \(NSPredicateParser.maxDepth) levels", token, kind: .limit)
        }
    }

    // MARK: Logic: OR < AND < NOT (C's precedence), chains n-ary

    mutating func parsePredicate() throws(QueryError) -> Condition {
        var items = [try parseAnd()]
        while at(.or) {
            advance()
            items.append(try parseAnd())
        }
        return Condition.or(items)
    }

    mutating func parseAnd() throws(QueryError) -> Condition {
        var items = [try parseUnary()]
        while at(.and) {
            advance()
            items.append(try parseUnary())
        }
        return Condition.and(items)
    }

    mutating func parseUnary() throws(QueryError) -> Condition {
        switch current.kind {
        case .not:
            let notToken = advance()
            try enter(notToken)
            let inner = try parseUnary()
            depth -= 1
            return NSPredicateMapping.negate(inner, range: notToken.range.union(inner.range))
        case .leftParen:
            let open = advance()
            try enter(open)
            var inner = try parsePredicate()
            guard at(.rightParen) else {
                let (line, column) = SourceText.lineAndColumn(of: open.range.start, in: source)
                throw error("expected ')' to close the '(' at \(line):\(column), found \(describe(current))", current)
            }
            let close = advance()
            depth -= 1
            inner.range = open.range.union(close.range)
            return inner
        case .truePredicate:
            return Condition(.constant(true), range: advance().range)
        case .falsePredicate:
            return Condition(.constant(false), range: advance().range)
        case .quantifier:
            throw error("\(current.text.uppercased()) (aggregate quantifiers) is not supported; for an array key, "
                        + "'k == v' already matches when some element equals v, and 'v IN k' tests membership", current)
        default:
            return try parseComparison()
        }
    }

    // MARK: Comparisons

    mutating func parseComparison() throws(QueryError) -> Condition {
        let left = try parseOperand()
        try rejectArithmetic()
        if at(.not), peek().kind.isOperator {
            throw error("NOT cannot stand between the operands; write NOT (\(left.isKeyPath ? "k" : "…") \(peek().text.uppercased()) …)", current)
        }
        guard current.kind.isOperator else {
            throw error("expected an operator after \(left.description) (==, !=, <, <=, >, >=, BETWEEN, IN, CONTAINS, "
                        + "BEGINSWITH, ENDSWITH, LIKE or MATCHES), found \(describe(current))", current)
        }
        let op = advance()
        let modifiers = try parseModifiers()
        let right = try parseOperand()
        try rejectArithmetic()
        return try NSPredicateMapping.comparison(left, op, modifiers, right)
    }

    /// `[c]`, `[d]`, `[cd]` (any order, case-insensitive) after an operator.
    mutating func parseModifiers() throws(QueryError) -> NSPredicateModifiers {
        var m = NSPredicateModifiers()
        guard at(.leftBracket) else { return m }
        let open = advance()
        guard at(.identifier) else {
            throw error("expected c, d or cd inside '[ ]' after the operator, found \(describe(current))", current)
        }
        let word = advance()
        for ch in UsergridKeywords.asciiLowercased(word.text).unicodeScalars {
            switch ch {
            case "c" where !m.caseInsensitive: m.caseInsensitive = true
            case "d" where !m.diacriticInsensitive: m.diacriticInsensitive = true
            default:
                throw error("unknown option '[\(word.text)]'; write [c] (case-insensitive), [d] (diacritic-insensitive) or [cd]", word)
            }
        }
        guard at(.rightBracket) else { throw error("expected ']' after '[\(word.text)', found \(describe(current))", current) }
        m.range = open.range.union(advance().range)
        return m
    }

    func rejectArithmetic() throws(QueryError) {
        if at(.arithmetic) {
            throw error("arithmetic ('\(current.text)') is not supported in a query; compute the value first and pass it with %@", current)
        }
    }
}
