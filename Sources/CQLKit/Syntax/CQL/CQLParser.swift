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
    ///   too deep or too long input, `.unsupported` for a write statement
    ///   (`insert`/`update`/`delete`: read those with ``parseStatement(_:options:)``).
    public static func parse(_ text: String, options: Options = Options()) throws(QueryError) -> Query {
        try query(of: try parseStatement(text, options: options), text: text)
    }

    /// The query of a `select` statement; a write is an `.unsupported` error.
    static func query(of statement: Statement, text: String) throws(QueryError) -> Query {
        guard case .select(let query) = statement else {
            throw QueryError(.unsupported, "'\(statement.verb)' is a write statement, not a query; only 'select' can be run as a query",
                             range: statement.range.map { SourceRange($0.start, $0.start + statement.verb.utf8.count) }, source: text)
        }
        return query
    }

    /// Parses one statement: a `select` query or a write (`insert`, `update`,
    /// `delete`), with the same errors as ``parse(_:options:)`` plus the
    /// positioned errors of writes (column/value counts, a key given twice,
    /// a built-in key, no `objectId =` condition, an unknown op, a bad op argument).
    ///
    /// ```swift
    /// try CQLParser.parseStatement("insert into GameScore(name, score) values ('dennis', 1200)")
    /// // .insert(InsertStatement(className: "GameScore", columns: [name, score], rows: [['dennis', 1200]]))
    /// try CQLParser.parseStatement("delete from T where name = 'x'")
    /// // 1:26: delete needs an 'objectId = ...' condition joined by 'and' at the top level of 'where': ...
    /// ```
    public static func parseStatement(_ text: String, options: Options = Options()) throws(QueryError) -> Statement {
        try parseStatement(text, options: options, reusing: nil)
    }

    /// One statement, read with `state` (a ``ReusableCQLParser``'s) or a new state.
    static func parseStatement(_ text: String, options: Options, reusing state: CQLParserState?) throws(QueryError) -> Statement {
        do {
            let count = text.utf8.count
            guard count <= options.maxLength else {
                throw QueryError(.limit, "the statement is \(count) bytes long; the limit is \(options.maxLength) bytes",
                                 range: SourceRange(options.maxLength, options.maxLength + 1))
            }
            guard let state else { return try CQLParserState(maxDepth: options.maxDepth, expectedLength: count).parseStatement(text) }
            state.maxDepth = options.maxDepth
            return try state.parseStatement(text)
        } catch let error as QueryError {
            throw error.withSource(text)
        } catch {
            // The parser throws only QueryErrors (untyped internally, see CQLParserState).
            throw QueryError(.syntax, "internal error: \(error)", source: text)
        }
    }
}

/// The words the grammar gives a meaning: the reserved ones (keywords) and
/// the contextual ones (identifiers that mean something in one position).
/// Tokens are classified once, so the parser compares bytes, not strings.
enum CQLWord: String, CaseIterable {
    case none = ""
    case select, from, `where`, and, or, not, `in`, like, regexp, `is`, limit, order, null, `true`, `false`, include
    case count, exists, all, size, related, to, near, within, min, max, km, miles, radians, by, asc, desc
    case insert, update, delete

    /// The word spelled by bytes `a..<b` of `bytes`, ignoring case (`.none`
    /// for any other word): a `switch` over the packed words
    /// (``CQLScanner/packedLowercase(_:_:_:)``), which compiles to a few
    /// integer compares, not a String built and hashed per token.
    /// `CQLLexerTests.testWordClassification` checks it against `allCases`.
    static func classify(_ bytes: UnsafeBufferPointer<UInt8>, _ a: Int, _ b: Int) -> CQLWord {
        guard b - a >= 1 && b - a <= 8 else { return .none }
        return classify(packed: CQLScanner.packedLowercase(bytes, a, b))
    }

    /// The word whose bytes (1 to 8 of them) pack to `packed`
    /// (``CQLScanner/packedLowercase(_:_:_:)``); the scanner packs a word's
    /// bytes as it reads them.
    @inline(__always)
    static func classify(packed: UInt64) -> CQLWord {
        switch packed {
        case 0x6D6B: return .km  // km
        case 0x6E69: return .`in`  // in
        case 0x6F74: return .to  // to
        case 0x726F: return .or  // or
        case 0x7369: return .`is`  // is
        case 0x7962: return .by  // by
        case 0x637361: return .asc  // asc
        case 0x646E61: return .and  // and
        case 0x6C6C61: return .all  // all
        case 0x6E696D: return .min  // min
        case 0x746F6E: return .not  // not
        case 0x78616D: return .max  // max
        case 0x63736564: return .desc  // desc
        case 0x656B696C: return .like  // like
        case 0x65757274: return .`true`  // true
        case 0x657A6973: return .size  // size
        case 0x6C6C756E: return .null  // null
        case 0x6D6F7266: return .from  // from
        case 0x7261656E: return .near  // near
        case 0x6572656877: return .`where`  // where
        case 0x65736C6166: return .`false`  // false
        case 0x726564726F: return .order  // order
        case 0x73656C696D: return .miles  // miles
        case 0x74696D696C: return .limit  // limit
        case 0x746E756F63: return .count  // count
        case 0x657461647075: return .update  // update
        case 0x6574656C6564: return .delete  // delete
        case 0x6E6968746977: return .within  // within
        case 0x707865676572: return .regexp  // regexp
        case 0x737473697865: return .exists  // exists
        case 0x7463656C6573: return .select  // select
        case 0x747265736E69: return .insert  // insert
        case 0x646574616C6572: return .related  // related
        case 0x6564756C636E69: return .include  // include
        case 0x736E6169646172: return .radians  // radians
        default: return .none
        }
    }

    /// Whether the word is one of ``CQLToken/reservedWords`` (a keyword, not a name).
    var isReserved: Bool {
        switch self {
        case .select, .from, .where, .and, .or, .not, .in, .like, .regexp, .is, .limit, .order, .null, .true, .false, .include:
            return true
        default:
            return false
        }
    }
}

/// Where a `select` stopped, so the error for an unexpected token can list
/// exactly what could have come next. (The select's query is built beside
/// it, in the caller's local, through `inout`.)
struct SelectState {
    enum Last { case className, condition, limit, orderKeys, orderDirection }
    var last = Last.className
    var hasWhere = false
    var hasLimit = false
    var hasOrder = false
}


/// The parsing state, reset for each statement: a ``ReusableCQLParser``
/// keeps one (with its token buffer and name cache) from statement to
/// statement. Recursive functions keep their frames small, so the
/// nesting limit holds on 512 KiB thread stacks:
/// - a class, so methods do not copy the state;
/// - tokens are plain data (``CQLScannedToken``) read in place; Strings and
///   values are made only for what the tree keeps (``CQLTokenList``);
/// - error messages are built in separate cold functions returning `any Error`;
/// - methods use untyped `throws` (every error is a ``QueryError``; `parse`
///   restores the type): a typed `QueryError` is returned through a
///   72-byte buffer that each call site reserves in its frame, which made one
///   nesting level cost kilobytes; an untyped error is one register.
final class CQLParserState {
    /// The token buffer, kept from statement to statement by a reused parser.
    let storage: CQLTokenStorage
    var maxDepth: Int
    // The statement being read (set by `parseStatement(_:)`).
    var list: CQLTokenList
    var tokens: UnsafeMutableBufferPointer<CQLScannedToken>
    var bytes: UnsafeBufferPointer<UInt8>
    var index = 0
    var depth = 0
    /// Placeholders seen so far: the next `?` gets this index.
    var placeholders = 0
    /// End offset of the last consumed token.
    var prevEnd = 0

    /// A state for statements of about `expectedLength` bytes (one-off) or
    /// any number of statements (``ReusableCQLParser``).
    init(maxDepth: Int, expectedLength: Int = 64, names: CQLNameCache? = nil) {
        storage = CQLTokenStorage(capacity: expectedLength / 4 + 2, names: names)
        self.maxDepth = maxDepth
        tokens = UnsafeMutableBufferPointer(start: storage.base, count: 0)
        bytes = UnsafeBufferPointer(start: nil, count: 0)
        list = CQLTokenList(bytes: bytes, tokens: tokens, storage: storage, names: names)
    }

    /// Scans and parses one statement (the length limit is the caller's).
    /// The bytes are read in place (a native String's UTF-8 is contiguous);
    /// a copy only for the rare String that is not.
    func parseStatement(_ text: String) throws -> Statement {
        if let statement = try text.utf8.withContiguousStorageIfAvailable({ bytes throws in try parseStatement(text, bytes) }) {
            return statement
        }
        return try Array(text.utf8).withUnsafeBufferPointer { bytes throws in try parseStatement(text, bytes) }
    }

    private func parseStatement(_ text: String, _ bytes: UnsafeBufferPointer<UInt8>) throws -> Statement {
        storage.reset()
        var scanner = CQLScanner(bytes, storage: storage)
        list = try scanner.run()
        tokens = list.tokens
        self.bytes = bytes
        index = 0
        depth = 0
        placeholders = 0
        prevEnd = 0
        return try parseStatement(source: text)
    }

    // MARK: Token access

    /// The current token, made whole (for messages and the few places that need it).
    var current: CQLToken { list.token(at: index) }
    @inline(__always)
    var kind: CQLToken.Kind { tokens[index].kind }
    @inline(__always)
    func kind(at offset: Int) -> CQLToken.Kind { tokens[min(index + offset, tokens.count - 1)].kind }
    @inline(__always)
    var start: Int { tokens[index].start }
    /// What the current keyword or identifier spells.
    @inline(__always)
    var word: CQLWord { tokens[index].word }
    var currentRange: SourceRange { SourceRange(tokens[index].start, tokens[index].end) }

    /// Whether the token at `offset` is the reserved word `w`.
    @inline(__always)
    func isKeyword(_ w: CQLWord, at offset: Int = 0) -> Bool {
        let t = tokens[min(index + offset, tokens.count - 1)]
        return t.kind == .keyword && t.word == w
    }

    /// Whether the token at `offset` is the contextual word `w` (a bare identifier).
    @inline(__always)
    func isWord(_ w: CQLWord, at offset: Int = 0) -> Bool {
        let t = tokens[min(index + offset, tokens.count - 1)]
        return t.kind == .identifier && t.word == w
    }

    @inline(__always)
    func isName(at offset: Int = 0) -> Bool {
        let k = kind(at: offset)
        return k == .identifier || k == .quotedIdentifier
    }

    /// Consumes the current token and returns the key component it names.
    func advanceName() -> String {
        let name = list.name(at: index)
        skip()
        return name
    }

    /// Consumes the current token and returns its source text.
    func advanceText() -> String {
        let text = list.text(at: index)
        skip()
        return text
    }

    /// Consumes the current token.
    @inline(__always)
    func skip() {
        prevEnd = tokens[index].end
        if tokens[index].kind != .end { index += 1 }
    }

    /// Consumes and returns the current token (for the few places that need it whole).
    @discardableResult
    func advance() -> CQLToken {
        let t = current
        skip()
        return t
    }

    /// The range from `start` to the end of the last consumed token.
    func range(from start: Int) -> SourceRange { SourceRange(start, prevEnd) }

    func enter() throws {
        depth += 1
        if depth > maxDepth { throw tooDeep() }
    }

    func leave() { depth -= 1 }

    // MARK: Errors (cold: kept out of the recursive frames)

    /// The previously consumed token as messages name it: `'where'`, `'x'`.
    @inline(never)
    var previousText: String {
        guard index > 0 else { return "the start" }
        let t = list.token(at: index - 1)
        return t.kind == .string ? CQLToken.clip(t.text) : "'\(CQLToken.clip(t.text))'"
    }

    @inline(never)
    func sourceText(_ r: SourceRange) -> String {
        let a = max(0, min(r.start, bytes.count)), b = max(a, min(r.end, bytes.count))
        return CQLToken.clip(list.text(a, b))
    }

    /// `expected <what>, found <current token>` at the current token.
    @inline(never)
    func fail(expected what: String) -> any Error { expectedError(what) }

    @inline(never)
    func expectedError(_ what: String) -> QueryError {
        QueryError(.syntax, "expected \(what), found \(current.quoted)", range: current.range)
    }

    /// `expected <what> after <previous token>, found <current token>`.
    @inline(never)
    func failAfterPrevious(expected what: String) -> any Error {
        fail(expected: "\(what) after \(previousText)")
    }

    /// Like ``fail(expected:)``, with a hint when the token is a reserved word
    /// where a name was expected.
    @inline(never)
    func failName(expected what: String) -> any Error {
        var e = expectedError(what)
        // Not for words that plausibly belong where they are (`select from T`).
        if kind == .keyword, ![CQLWord.select, .from, .where, .and, .or, .not].contains(word) {
            e.message += " (write `\(current.text)` to use a reserved word as a name)"
        }
        return e
    }

    /// A `.syntax` error at `r`.
    @inline(never)
    func syntax(_ message: String, at r: SourceRange) -> any Error { QueryError(.syntax, message, range: r) }

    /// A `.syntax` error at the current token.
    @inline(never)
    func syntaxHere(_ message: String) -> any Error { QueryError(.syntax, message, range: current.range) }

    /// `1:27` for a byte offset, for messages that refer to another place.
    @inline(never)
    func position(of offset: Int) -> String {
        var line = 1, column = 1
        var i = 0
        while i < offset && i < bytes.count {
            if bytes[i] == 0x0A { line += 1; column = 1 } else if bytes[i] & 0xC0 != 0x80 { column += 1 }
            i += 1
        }
        return "\(line):\(column)"
    }

    /// `expected ',' or ')' to close the list opened at 1:5` / `... in the list`.
    @inline(never)
    func unclosed(_ close: String, _ what: String, openedAt open: Int) -> any Error {
        if kind == .end { return fail(expected: "\(close) to close the \(what) opened at \(position(of: open))") }
        return fail(expected: "\(close) in the \(what)")
    }

    @inline(never)
    func tooDeep() -> any Error {
        QueryError(.limit, "nesting deeper than \(maxDepth) levels (parentheses, subqueries, literals and 'not's)", range: current.range)
    }

    // MARK: Statements

    /// The statement at the first token; `source` (its text) is given to it.
    private func parseStatement(source: String) throws -> Statement {
        let statement: Statement
        if isKeyword(.select) {
            // The query is a local of this frame, filled through `inout` (the
            // recursive frames pass its address) and consumed into the
            // statement: no copy (a retain per field) and no destroy after.
            var query = Query.empty
            var state = SelectState()
            try parseSelect(into: &query, &state)
            if kind != .semicolon && kind != .end { throw clauseEndError(state, closing: "end of input") }
            query.source = source
            statement = .select(query)
        } else if isWord(.insert) {
            var s = try parseInsert()
            s.source = source
            statement = .insert(s)
        } else if isWord(.update) {
            var s = try parseUpdate()
            s.source = source
            statement = .update(s)
        } else if isWord(.delete) {
            var s = try parseDelete()
            s.source = source
            statement = .delete(s)
        } else {
            throw fail(expected: "'select', 'insert', 'update' or 'delete' at the start of the statement")
        }
        if kind == .semicolon {
            skip()
            guard kind == .end else { throw fail(expected: "end of input after ';' (one statement at a time)") }
        } else if kind != .end {
            switch statement {
            case .insert: throw fail(expected: "',' and another row, or end of input after the values")
            case .update, .delete: throw fail(expected: "'and', 'or' or end of input after the condition")
            case .select: break
            }
        }
        return statement
    }
}
