import CQLKit

/// What a server's handler reads through without blocking a thread: its
/// statements are awaited, their rows read on the connection's own event
/// loop (``PostgreSQLReadConnection``). A request that reads through it
/// reads its session, its grantees (``CallerGrantees``) and its find there,
/// one stack from the first statement to the last.
///
/// A protocol of its own rather than ``SQLDatabaseReader``: that protocol's
/// calls return the rows, so the calling thread waits for them — on an
/// event loop, the very thread that must read them; elsewhere, the
/// thread hop this reader exists to avoid. It has no temporary tables and
/// no re-check by the evaluator, so ``run(_:countOnly:storedText:memo:)``
/// may answer nil: the query needs a ``SQLDatabaseReader`` and
/// ``SQLRunner/run(_:on:countOnly:source:presentTables:storedText:memo:)``.
///
/// ```swift
/// let user = try await reader.documents(try SessionRows.session(hash: h, table: "cql:sessions", dialect: reader.dialect))
/// let grantees = try await CallerGrantees.grantees(userId: "u1", on: reader)
/// let page = try await reader.run(query, countOnly: false, storedText: true, memo: nil)   // nil: run it blocking
/// ```
public protocol SQLAsyncDatabaseReader: Sendable {
    var dialect: SQLDialectName { get }
    /// The `doc` column of each row, in order (``SQLDatabaseReader/documents(_:)``).
    func documents(_ statement: SQLStatement) async throws(QueryError) -> [String]
    /// The table names present (``SQLDatabaseReader/tableNames()``).
    func tableNames() async throws(QueryError) -> Set<String>
    /// `query` as ``SQLRunner`` answers it, or nil when the database cannot
    /// answer it alone (see the protocol). Every table the query reads must
    /// exist, its relation keys resolved (`Query.resolvingRelationKeys(hasTable:)`).
    func run(_ query: Query, countOnly: Bool, storedText: Bool, memo: SQLRunner.ReadMemo?) async throws(QueryError) -> SQLRunner.Result?
}
