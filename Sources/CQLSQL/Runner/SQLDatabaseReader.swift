import CQLKit

/// What the runner reads through (``SQLRunner``): statements that read, the
/// catalog, and the preflight's questions; ``SQLDatabaseWriter`` adds what
/// changes the database. ``SQLiteDatabase`` implements both over GRDB and
/// ``PostgreSQLDatabase`` both over postgres-nio, each blocking its thread
/// while the database works; a server's handlers read PostgreSQL without
/// blocking through ``SQLAsyncDatabaseReader`` instead (see <doc:ReadersAndWriters>).
///
/// The temporary stand-ins of missing tables are a reader's: they live on
/// its own connection only and change nothing another connection sees.
public protocol SQLDatabaseReader {
    var dialect: SQLDialectName { get }
    /// Whether the generated SQL sends the conjuncts no index serves to
    /// `cql_match` (SQLite's connection registers it:
    /// `SQLContext.residualMatch`). Default: false.
    var residualMatch: Bool { get }
    /// Runs `body` so that every statement it runs sees one snapshot
    /// (SQLite: one read transaction). Default: `body` as it is (PostgreSQL's
    /// reads are each one statement).
    func inReadSnapshot<T>(_ body: () throws(QueryError) -> T) throws(QueryError) -> T
    /// Empty stand-ins for missing tables (temporary: the database itself is
    /// not changed), so that queries naming them find no rows, as `eval` does.
    func createTemporaryTables(classes: [String], joins: [String]) throws(QueryError)
    /// Drops the temporary stand-ins of missing tables a query made on this
    /// connection. Default: none to drop.
    func dropTemporaryTables() throws(QueryError)
    /// Whether the stored data defeats the generated SQL, so every row must
    /// be re-checked (SQLite's JSON functions cut strings at a NUL).
    /// `tables`: the tables the query reads (a database that marks tables
    /// one by one asks only about them); `nil`: any table.
    func requiresRecheck(tables: Set<String>?) throws(QueryError) -> Bool
    /// The `doc` column of each row, in order.
    func documents(_ statement: SQLStatement) throws(QueryError) -> [String]
    /// The `doc` column of each row, in order, as UTF-8 bytes valid only
    /// during the call to `body`: what `cql run` copies out, without a
    /// `String` made or kept per row.
    func forEachDocument(_ statement: SQLStatement, _ body: (UnsafeBufferPointer<UInt8>) throws(QueryError) -> Void) throws(QueryError)
    /// The first column of the first row as an integer (`count(*)`).
    func integer(_ statement: SQLStatement) throws(QueryError) -> Int
    /// The database's plan for a statement, one line per step.
    func plan(_ statement: SQLStatement) throws(QueryError) -> [String]
    /// The table names present.
    func tableNames() throws(QueryError) -> Set<String>
    /// The one-step keys among `keys` the database proves hold no array in
    /// any row of `className` (an index probe; see
    /// `SQLContext.arrayFreeKeys`). Proving nothing is always correct.
    func arrayFreeKeys(_ className: String, among keys: Set<String>) throws(QueryError) -> Set<String>
    /// Both questions a query asks before its SQL is generated —
    /// ``arrayFreeKeys(_:among:)`` for its class and
    /// ``requiresRecheck(tables:)`` for the tables it reads — in one round
    /// trip where the database allows (a server asks them on every request).
    /// `documentIndex`: also ask whether the class has the index on its
    /// whole document (``Preflight/documentIndexed``).
    func preflight(_ className: String, keys: Set<String>, tables: Set<String>, documentIndex: Bool) throws(QueryError) -> Preflight
    /// Whether ``requiresRecheck(tables:)`` concerns only queries that read
    /// the createdAt/updatedAt columns (PostgreSQL: its only mark is an
    /// array at a date key, which those columns cannot hold), so a query
    /// naming neither key need not ask it.
    var recheckConcernsOnlyDateColumns: Bool { get }
    /// The one-step keys of `className` that have an index (`cql load
    /// --index`), whose tests the generated SQL keeps for the planner
    /// (`SQLContext.indexedKeys`). Finding none is always correct.
    func indexedKeys(_ className: String) throws(QueryError) -> Set<String>
    /// Every row of a join table as `{"owningId":..,"relatedId":..}`.
    func joinRows(_ table: String) throws(QueryError) -> [[String: Value]]
}

/// What ``SQLDatabaseReader/preflight(_:keys:tables:documentIndex:)`` found.
public struct Preflight: Sendable, Equatable {
    public var arrayFreeKeys: Set<String>
    public var requiresRecheck: Bool
    /// Whether the class may have the index on its whole document
    /// (`SQLContext.documentIndexed`): `true` unless the database said no.
    public var documentIndexed = true
    /// Whether the database said the class has that index
    /// (`SQLContext.publicGrantByContainment`): `false` unless it did.
    public var documentIndexConfirmed = false
    /// The one-step keys the database showed have no index of their own
    /// (`SQLContext.unindexedKeys`): empty unless it looked.
    public var unindexedKeys: Set<String> = []
}

extension SQLDatabaseReader {
    public var residualMatch: Bool { false }
    public func inReadSnapshot<T>(_ body: () throws(QueryError) -> T) throws(QueryError) -> T { try body() }
    public func dropTemporaryTables() throws(QueryError) {}

    public var recheckConcernsOnlyDateColumns: Bool { false }

    /// Asks the two questions one after the other (the document index is
    /// PostgreSQL's question).
    public func preflight(_ className: String, keys: Set<String>, tables: Set<String>, documentIndex: Bool) throws(QueryError) -> Preflight {
        Preflight(arrayFreeKeys: try arrayFreeKeys(className, among: keys), requiresRecheck: try requiresRecheck(tables: tables))
    }

    func preflight(_ question: SQLRunner.PreflightQuestion) throws(QueryError) -> Preflight {
        try preflight(question.className, keys: question.keys, tables: question.tables, documentIndex: question.documentIndex)
    }

    public func preflight(_ className: String, keys: Set<String>, tables: Set<String>) throws(QueryError) -> Preflight {
        try preflight(className, keys: keys, tables: tables, documentIndex: false)
    }

    public func indexedKeys(_ className: String) throws(QueryError) -> Set<String> { [] }

    /// Through ``documents(_:)``.
    public func forEachDocument(
        _ statement: SQLStatement, _ body: (UnsafeBufferPointer<UInt8>) throws(QueryError) -> Void
    ) throws(QueryError) {
        for var d in try documents(statement) {
            var failure: QueryError?
            d.withUTF8 { bytes in
                do throws(QueryError) { try body(bytes) } catch { failure = error }
            }
            if let failure { throw failure }
        }
    }

    /// The generator's SQL for `query` on this database: SQLite's connection
    /// registers `cql_match`, so the conjuncts no index serves go to it
    /// (``SQLContext/residualMatch``).
    func pushdown(_ query: Query, _ preflight: Preflight) throws(QueryError) -> SQLTranslation {
        try pushdown(query, preflight, indexedKeys: try pushdownIndexedKeys(query.className))
    }

    /// The pushdown given the indexed keys ``pushdownIndexedKeys(_:)`` found.
    func pushdown(_ query: Query, _ preflight: Preflight, indexedKeys: Set<String>) throws(QueryError) -> SQLTranslation {
        try SQLRunner.pushdown(query, preflight, dialect: dialect, residualMatch: residualMatch, indexedKeys: indexedKeys)
    }

    /// The indexed keys the pushdown keeps as SQL: SQLite's with
    /// `residualMatch`, none elsewhere.
    func pushdownIndexedKeys(_ className: String) throws(QueryError) -> Set<String> {
        residualMatch ? try indexedKeys(className) : []
    }

    /// Whether any table of the database defeats the generated SQL.
    public func requiresRecheck() throws(QueryError) -> Bool { try requiresRecheck(tables: nil) }
}
