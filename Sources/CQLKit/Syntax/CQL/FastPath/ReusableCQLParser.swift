/// A CQL parser for many statements read one after another: it keeps its
/// token buffer and parsing state from one statement to the next, so a
/// statement costs no allocation for them (``CQLParser`` makes both anew for
/// each statement), and the Strings of the short names it has read, so a
/// name met again (the same classes and keys, statement after statement)
/// is not made again. What it returns and throws is exactly what
/// ``CQLParser/parseStatement(_:options:)`` and ``CQLParser/parse(_:options:)``
/// give for the same text and options.
///
/// A parser reads one statement at a time: keep one per thread (it is not
/// `Sendable`), e.g. one per batch of lines that a thread translates.
///
/// ```swift
/// let parser = ReusableCQLParser()
/// for line in ["select * from T where a = 1", "delete from T where objectId = 'x1'"] {
///     print(try parser.parseStatement(line).verb)
/// }
/// // select
/// // delete
/// ```
public final class ReusableCQLParser {
    private let state = CQLParserState(maxDepth: CQLParser.Options().maxDepth, names: CQLNameCache.make())

    public init() {}

    /// One statement, as ``CQLParser/parseStatement(_:options:)`` reads it.
    public func parseStatement(_ text: String, options: CQLParser.Options = CQLParser.Options()) throws(QueryError) -> Statement {
        try CQLParser.parseStatement(text, options: options, reusing: state)
    }

    /// One `select`, as ``CQLParser/parse(_:options:)`` reads it.
    public func parse(_ text: String, options: CQLParser.Options = CQLParser.Options()) throws(QueryError) -> Query {
        try CQLParser.query(of: try parseStatement(text, options: options), text: text)
    }
}
