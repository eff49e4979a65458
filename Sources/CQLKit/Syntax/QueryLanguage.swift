/// The query languages the library reads. NSPredicate is never detected
/// (its text reads like Usergrid): name it.
///
/// ```swift
/// QueryLanguage.detect("select * from T")            // .cql
/// QueryLanguage.detect(#"{"where":{"a":1}}"#)         // .whereJSON
/// QueryLanguage.detect("name = 'fred' order by age")  // .usergrid
/// let q = try QueryLanguage.cql.parse("select * from T where a > 1")
/// ```
public enum QueryLanguage: String, CaseIterable, Sendable {
    case cql
    case usergrid
    case whereJSON = "where"
    case nspredicate
    /// A LeanCloud REST write request (`{"method":"PUT","path":...}`), read
    /// by ``RESTReader`` into a write ``Statement``; never detected (it looks
    /// like where-JSON), always asked for with `--from rest`.
    case rest

    /// Guesses the language from the text, as `cql translate` does without
    /// `--from` (GettingStarted.md, "The other front ends"): where-JSON starts with `{` or `[`; CQL starts with
    /// `select`, `insert`, `update` or `delete` (after whitespace and comments);
    /// anything else is Usergrid. A Usergrid query that starts with `select`
    /// needs `--from usergrid`.
    public static func detect(_ text: String) -> QueryLanguage {
        // Read in place (a native String's UTF-8 is contiguous): `--lines`
        // detects every line.
        if let language = text.utf8.withContiguousStorageIfAvailable(detect) { return language }
        return Array(text.utf8).withUnsafeBufferPointer(detect)
    }

    private static func detect(_ bytes: UnsafeBufferPointer<UInt8>) -> QueryLanguage {
        var i = firstWordStart(bytes)
        guard i < bytes.count else { return .cql }
        if bytes[i] == UInt8(ascii: "{") || bytes[i] == UInt8(ascii: "[") { return .whereJSON }
        // The first word, lowercased, compared with the four CQL verbs (all
        // six letters): packed into an integer (`--lines` detects every line).
        let start = i
        while i < bytes.count, (bytes[i] | 0x20) >= 0x61, (bytes[i] | 0x20) <= 0x7A { i += 1 }
        guard i - start == 6 else { return .usergrid }
        var packed: UInt64 = 0
        for k in (start..<i).reversed() { packed = packed << 8 | UInt64(bytes[k] | 0x20) }
        switch packed {
        case 0x7463656c6573, 0x747265736e69, 0x657461647075, 0x6574656c6564:  // select, insert, update, delete
            return .cql
        default:
            return .usergrid
        }
    }

    /// Where the first word starts: after whitespace and CQL comments
    /// (`bytes.count` or past it when there is none).
    static func firstWordStart(_ bytes: UnsafeBufferPointer<UInt8>) -> Int {
        var i = 0
        while i < bytes.count {
            let b = bytes[i]
            if b == 0x20 || b == 0x09 || b == 0x0A || b == 0x0D { i += 1; continue }
            if b == UInt8(ascii: "-"), i + 1 < bytes.count, bytes[i + 1] == UInt8(ascii: "-") {
                while i < bytes.count && bytes[i] != 0x0A { i += 1 }
                continue
            }
            if b == UInt8(ascii: "/"), i + 1 < bytes.count, bytes[i + 1] == UInt8(ascii: "*") {
                i += 2
                while i + 1 < bytes.count && !(bytes[i] == UInt8(ascii: "*") && bytes[i + 1] == UInt8(ascii: "/")) { i += 1 }
                i += 2
                continue
            }
            break
        }
        return i
    }

    /// Parses `text` in this language into a ``Query``.
    ///
    /// - Parameters:
    ///   - text: the query text.
    ///   - className: the class for languages whose text does not name one
    ///     (Usergrid, a bare where-JSON condition); `""` means not given.
    ///   - literal: Usergrid only: string `=` is exact and case-sensitive.
    ///   - limit: Usergrid only: the `limit` URL parameter beside `ql`
    ///     (see ``UsergridOptions``).
    ///   - cursor: Usergrid only: the `cursor` URL parameter beside `ql`.
    ///   - arguments: NSPredicate only: the values of `%@ %K %d ...`, in
    ///     order (see ``NSPredicateParser``).
    ///   - variables: NSPredicate only: the values of the `$NAME` variables.
    ///   - limits: the size limits (text length, nesting, lists, conditions,
    ///     patterns, subqueries) the query must stay within.
    public func parse(
        _ text: String, className: String = "", literal: Bool = false, limit: Int? = nil, cursor: String? = nil,
        arguments: [Value] = [], variables: [String: Value] = [:], limits: QueryLimits = .default
    ) throws(QueryError) -> Query {
        try limits.check(text: text)
        let query: Query
        switch self {
        case .cql:
            var options = CQLParser.Options()
            options.maxLength = limits.maxQueryLength
            query = try CQLParser.parse(text, options: options)
        case .usergrid:
            let options = UsergridOptions(className: className, literal: literal, limit: limit, cursor: cursor)
            query = try UsergridParser.parse(text, options: options)
        case .whereJSON: query = try WhereJSONReader.read(text, className: className)
        case .nspredicate:
            query = try NSPredicateParser.parse(format: text, argumentArray: arguments, variables: variables, className: className)
        case .rest:
            let statement = try parseStatement(text, limits: limits)
            guard case .select(let q) = statement else {
                throw QueryError(.unsupported, "a REST \(statement.verb) request is a write, not a query", range: statement.range, source: text)
            }
            query = q
        }
        if self == .cql && limits.admitsEveryCQLStatement(ofLength: text.utf8.count) { return query }
        try limits.check(query)
        return query
    }

    /// Parses `text` in this language into a ``Statement``: CQL and REST
    /// requests may hold writes; the other languages are queries (parameters
    /// as for ``parse(_:className:literal:limit:cursor:arguments:variables:limits:)``).
    /// A write's condition is held to the same limits as a query's. A CQL
    /// statement is read with `cqlParser` when one is given (its buffers are
    /// reused: one per thread that reads many statements).
    ///
    /// ```swift
    /// try QueryLanguage.cql.parseStatement("delete from T where objectId = 'a1'")   // .delete(...)
    /// try QueryLanguage.usergrid.parseStatement("name = 'x'", className: "T")      // .select(...)
    /// ```
    public func parseStatement(
        _ text: String, className: String = "", literal: Bool = false, limit: Int? = nil, cursor: String? = nil,
        arguments: [Value] = [], variables: [String: Value] = [:], limits: QueryLimits = .default,
        reusing cqlParser: ReusableCQLParser? = nil
    ) throws(QueryError) -> Statement {
        let statement: Statement
        switch self {
        case .cql:
            try limits.check(text: text)
            var options = CQLParser.Options()
            options.maxLength = limits.maxQueryLength
            if let cqlParser {
                statement = try cqlParser.parseStatement(text, options: options)
            } else {
                statement = try CQLParser.parseStatement(text, options: options)
            }
        case .rest:
            try limits.check(text: text)
            statement = try RESTReader.read(text)
        case .usergrid, .whereJSON, .nspredicate:
            return .select(try parse(text, className: className, literal: literal, limit: limit, cursor: cursor,
                                     arguments: arguments, variables: variables, limits: limits))
        }
        if self == .cql && limits.admitsEveryCQLStatement(ofLength: text.utf8.count) { return statement }
        func check(_ className: String, _ condition: Condition?, _ range: SourceRange?) throws(QueryError) {
            guard let condition else { return }
            var q = Query(className: className, condition: condition, range: range)
            q.source = text
            try limits.check(q)
        }
        switch statement {
        case .select(let q): try limits.check(q)
        case .update(let u): try check(u.className, u.condition, u.range)
        case .delete(let d): try check(d.className, d.condition, d.range)
        case .insert: break
        }
        return statement
    }
}
