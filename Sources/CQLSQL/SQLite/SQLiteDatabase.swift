import CQLEval
import CQLKit
import Foundation
import GRDB
import GRDBSQLite

/// A SQLite database in the layout the generator targets (SQLBackends.md): one
/// table per class, `"<Class>"("objectId" TEXT PRIMARY KEY, "doc" TEXT,
/// "createdAt" INTEGER, "updatedAt" INTEGER)` holding the whole object as
/// JSON and its two date columns (`SQLStoredColumns`, indexed), and
/// `"_Join:<key>:<Owner>"("owningId", "relatedId")` for relations; rowid is
/// the load order. A database made before the date columns gets them on
/// open.
///
/// Every connection gets the evaluator's own functions: `cql_regexp(pattern,
/// options, value)` (the evaluator's regex engine: PCRE2, or without trait
/// `PCRE2` the pure-Swift one, with its refusals), `cql_select(doc, paths, docs)`, `cql_match(doc, where)` (any predicate, as
/// MongoDB where-JSON), `cql_sort_value(doc, steps, descending)`,
/// `cql_sort_key(doc, keys)` and the collations `cql_order`, `cql_order_keys`, so the SQL the generator writes is exact by
/// construction.
///
/// ```swift
/// let db = try SQLiteDatabase(path: "scores.db")
/// try db.load(path: "Corpus/data", indexes: ["score"])
/// let r = try SQLRunner.run(query, on: db)
/// ```
public final class SQLiteDatabase: SQLDatabaseWriter, @unchecked Sendable {
    public let dialect = SQLDialectName.sqlite
    let queue: DatabaseQueue
    let deadline: Deadline
    /// The SQL texts of the statements this connection keeps compiled
    /// (``cachedStatement(_:_:)``).
    private(set) var compiledSQL = Set<String>()
    /// Whether `cql run` tests the conjuncts no index serves with one
    /// `cql_match(doc, ?)` per row (`SQLContext.residualMatch`; on by
    /// default). Off: the SQL `translate --to sql` writes, leaf by leaf —
    /// what the differential tests also compare with the evaluator.
    public var residualMatch = true
    /// Whether the preflight's answers and the indexed keys
    /// (``preflight(_:keys:tables:documentIndex:)``, ``indexedKeys(_:)``)
    /// are kept while no other connection has committed (SQLite's
    /// `PRAGMA data_version` is unchanged). Only for a connection that
    /// itself never writes or changes the schema — a server's readers: its
    /// own changes do not move `data_version`.
    ///
    /// Why: a server asks them on every request, three statements (an
    /// index's name in the catalog, a probe of it for an array, the mark),
    /// for answers that change only when the schema or the data does.
    public var keepsSchemaAnswers = false
    var keptAnswers = KeptSchemaAnswers()

    /// Opens (creating if needed) the database file at `path`; `nil`: in memory.
    ///
    /// - Parameter path: the database file, or `nil` for a database in memory.
    /// - Parameter shared: for a file several connections use at once (`cql
    ///   serve` opens one writer and several readers): the journal is
    ///   write-ahead (WAL: readers go on while one writer writes, and a
    ///   committed write survives a crash).
    ///
    /// A connection to a file that finds it locked waits up to
    /// ``lockWait`` seconds (and not past its deadline) instead of failing
    /// at once (SQLiteDatabase+Busy).
    public init(path: String?, shared: Bool = false) throws(QueryError) {
        var config = Configuration()
        // inReadSnapshot holds one read transaction across the accesses of a
        // query (and always ends it): GRDB would otherwise stop the process.
        config.allowsUnsafeTransactions = true
        let deadline = Deadline()
        self.deadline = deadline
        if shared && path != nil { config.journalMode = .wal }
        // A file another connection or process may lock: wait for it
        // (bounded, and by the deadline: SQLiteDatabase+Busy).
        if let path, path != ":memory:" { config.busyMode = .callback(SQLiteDatabase.busyHandler(path: path, deadline: deadline)) }
        config.prepareDatabase { db in
            SQLiteDatabase.registerFunctions(db)
            SQLiteDatabase.installProgressHandler(db, deadline)
        }
        if let path { SQLiteDatabase.createOwnerOnly(path) }
        do {
            queue = try path.map { try DatabaseQueue(path: $0, configuration: config) } ?? DatabaseQueue(configuration: config)
        } catch {
            throw QueryError(.data, "\(path ?? ":memory:"): cannot open the database: \(SQLiteDatabase.message(error))")
        }
        do {
            try SQLiteDatabase.migrate(queue)
        } catch {
            throw QueryError(.data, "\(path ?? ":memory:"): cannot add the date columns: \(SQLiteDatabase.message(error))")
        }
    }

    /// Creates the database file, empty, readable and writable by its owner
    /// only (0600) when it does not exist: SQLite gives its WAL, shared
    /// memory and journal files the mode of the database file, so none of
    /// them is readable by others whatever the umask (the file holds
    /// password hashes and session hashes). An existing file keeps its mode.
    static func createOwnerOnly(_ path: String) {
        guard path != ":memory:", !path.hasPrefix("file:") else { return }
        // O_EXCL: a file made meanwhile by another process is left as it is.
        let fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        if fd >= 0 { close(fd) }
    }

    /// When the statements of this connection must stop: checked by SQLite
    /// every 10,000 virtual-machine steps (a progress handler), so every
    /// statement run until ``clearDeadline()`` — not only the one running
    /// when time is up — fails with SQLite's "interrupted" error once it has
    /// passed. A server's per-request time limit.
    public func setDeadline(after seconds: Double) {
        deadline.nanoseconds = DispatchTime.now().uptimeNanoseconds &+ UInt64(max(0, seconds) * 1e9)
    }

    public func clearDeadline() { deadline.nanoseconds = 0 }

    /// The instant (`DispatchTime` nanoseconds; 0: none) the progress handler
    /// compares with. Set and read on the thread that uses the connection.
    final class Deadline: @unchecked Sendable {
        var nanoseconds: UInt64 = 0
    }

    static func installProgressHandler(_ db: Database, _ deadline: Deadline) {
        sqlite3_progress_handler(db.sqliteConnection, 10_000, { context in
            let d = Unmanaged<Deadline>.fromOpaque(context!).takeUnretainedValue()
            return d.nanoseconds != 0 && DispatchTime.now().uptimeNanoseconds > d.nanoseconds ? 1 : 0
        }, Unmanaged.passUnretained(deadline).toOpaque())
    }

    static func registerFunctions(_ db: Database) {
        db.add(function: DatabaseFunction("cql_regexp", argumentCount: 3, pure: true) { args in
            guard let pattern = String.fromDatabaseValue(args[0]), let options = String.fromDatabaseValue(args[1]) else { return false }
            let subject: String
            switch args[2].storage {
            case .blob(let data): subject = String(decoding: data, as: UTF8.self)
            case .string(let s): subject = s
            default: return false
            }
            do {
                return try EvaluatorFunctions.regexMatches(pattern: pattern, options: options, subject: subject)
            } catch {
                throw (error as? QueryError).map(functionError) ?? DatabaseError(message: "\(error)")
            }
        })
        registerMatch(db)
        db.add(function: DatabaseFunction("cql_select", argumentCount: 3, pure: true) { args in
            guard let doc = String.fromDatabaseValue(args[0]), let paths = String.fromDatabaseValue(args[1]),
                let documents = String.fromDatabaseValue(args[2])
            else { return false }
            let object = try DataFiles.object(json: doc)
            do throws(QueryError) {
                return try EvaluatorFunctions.selectMatches(object: object, paths: paths, documents: documents)
            } catch {
                throw functionError(error)
            }
        })
        db.add(function: DatabaseFunction("cql_sort_value", argumentCount: 3, pure: true) { args in
            guard let doc = String.fromDatabaseValue(args[0]), let steps = String.fromDatabaseValue(args[1]),
                case .array(let items) = try JSONReader.parse(steps)
            else { return nil }
            let object = try DataFiles.object(json: doc)
            let path = FieldPath(items.compactMap(\.stringValue))
            return EvaluatorFunctions.sortValue(of: object, path: path, descending: Int64.fromDatabaseValue(args[2]) == 1)
        })
        db.add(function: DatabaseFunction("cql_sort_key", argumentCount: 2, pure: true) { args in
            guard let doc = String.fromDatabaseValue(args[0]), let spec = String.fromDatabaseValue(args[1]),
                case .array(let items) = try JSONReader.parse(spec)
            else { return nil }
            var keys: [(path: FieldPath, descending: Bool)] = []
            for case .array(let k) in items {
                keys.append((FieldPath(k.dropFirst().compactMap(\.stringValue)), k.first == .bool(true)))
            }
            let object = try DataFiles.object(json: doc)
            do throws(QueryError) {
                return try EvaluatorFunctions.sortKey(of: object, keys: keys)
            } catch {
                throw functionError(error)
            }
        })
        db.add(collation: DatabaseCollation("cql_order_keys") { a, b in
            switch EvaluatorFunctions.compareSortKeys(a, b) {
            case ..<0: return .orderedAscending
            case 0: return .orderedSame
            default: return .orderedDescending
            }
        })
        db.add(collation: DatabaseCollation("cql_order") { a, b in
            switch EvaluatorFunctions.compareSortValues(a, b) {
            case ..<0: return .orderedAscending
            case 0: return .orderedSame
            default: return .orderedDescending
            }
        })
    }

    /// How an evaluator function's error leaves SQLite: as the statement's
    /// message, its kind in front after a marker, so that ``queryError(_:)``
    /// gives back the evaluator's own error ("regex too expensive" is a
    /// `.pattern` error in `cql run` as in `cql eval`, not a `.data` one).
    static func functionError(_ error: QueryError) -> DatabaseError {
        DatabaseError(message: functionErrorMarker + error.kind.rawValue + ":" + error.message)
    }

    static let functionErrorMarker = "cql-function-error:"

    /// A database error as a ``QueryError``: an evaluator function's own
    /// error as it was thrown, anything else `.data` ("sqlite: ...").
    static func queryError(_ error: any Error) -> QueryError {
        if let e = error as? QueryError { return e }
        let text = message(error)
        if let marker = text.range(of: functionErrorMarker) {
            let rest = text[marker.upperBound...]
            if let colon = rest.firstIndex(of: ":"), let kind = QueryError.Kind(rawValue: String(rest[..<colon])) {
                return QueryError(kind, String(rest[rest.index(after: colon)...]))
            }
        }
        return QueryError(.data, "sqlite: \(text)")
    }

    static func message(_ error: any Error) -> String {
        if let e = error as? DatabaseError { return e.message ?? "\(e)" }
        if let e = error as? QueryError { return e.message }
        return "\(error)"
    }

    static func arguments(_ values: [Value]) -> StatementArguments {
        StatementArguments(values.map { v -> (any DatabaseValueConvertible)? in
            switch v {
            case .null: return nil
            case .bool(let b): return b
            case .int(let i): return i
            case .double(let d): return d
            case .string(let s): return s
            default: return JSONWriter.string(v)
            }
        })
    }

    func read<T>(_ body: (Database) throws -> T) throws(QueryError) -> T {
        do {
            return try queue.inDatabase(body)
        } catch {
            throw SQLiteDatabase.queryError(error)
        }
    }

    /// Runs `body` in one read transaction: every statement it runs sees the
    /// same snapshot (WAL lets the writer go on meanwhile), so a server's
    /// page and count, and the index probe that shaped their SQL
    /// (``arrayFreeKeys(_:among:)``), agree with each other.
    public func inReadSnapshot<T>(_ body: () throws(QueryError) -> T) throws(QueryError) -> T {
        try read { db in try cachedStatement(db, "BEGIN DEFERRED").execute() }
        let value: T
        do {
            // The snapshot starts here: the kept answers are checked against it once.
            if keepsSchemaAnswers { try checkKeptAnswers() }
            keptAnswers.checkedInSnapshot = keepsSchemaAnswers
            defer { keptAnswers.checkedInSnapshot = false }
            value = try body()
        } catch {
            try? read { db in try db.execute(sql: "ROLLBACK") }
            throw error
        }
        try read { db in try cachedStatement(db, "COMMIT").execute() }
        return value
    }

    /// The preflight's answer: ``arrayFreeKeys(_:among:)`` and
    /// ``requiresRecheck(tables:)``, kept when ``keepsSchemaAnswers``.
    public func preflight(_ className: String, keys: Set<String>, tables: Set<String>, documentIndex: Bool) throws(QueryError) -> Preflight {
        let key = KeptSchemaAnswers.Question(className: className, keys: keys, tables: tables)
        if keepsSchemaAnswers {
            if !keptAnswers.checkedInSnapshot { try checkKeptAnswers() }
            if let kept = keptAnswers.preflights[key] { return kept }
        }
        let answer = Preflight(arrayFreeKeys: try arrayFreeKeys(className, among: keys), requiresRecheck: try requiresRecheck(tables: tables))
        if keepsSchemaAnswers { keptAnswers.keep(answer, for: key) }
        return answer
    }

    /// Drops the kept answers when another connection has committed since
    /// they were found (`PRAGMA data_version`, read in the current
    /// transaction's snapshot when there is one).
    func checkKeptAnswers() throws(QueryError) {
        let version = try read { db in try Int64.fetchOne(try cachedStatement(db, "PRAGMA data_version")) }
        if version != keptAnswers.version || version == nil {
            keptAnswers = KeptSchemaAnswers()
            keptAnswers.version = version
        }
    }

    /// What `PRAGMA user_version` marks (bits): data holding a string with
    /// NUL, which SQLite's JSON functions cut short, or an array at
    /// createdAt/updatedAt, which the date columns cannot hold
    /// (``SQLStoredColumns/holdsArray(_:)``). A marked database is
    /// re-checked row by row (see ``SQLRunner``).
    struct Mark: OptionSet {
        let rawValue: Int
        static let nul = Mark(rawValue: 1)
        static let dateArrays = Mark(rawValue: 2)
    }

    /// One mark for the whole database (`PRAGMA user_version`): `tables`
    /// does not narrow it.
    public func requiresRecheck(tables: Set<String>?) throws(QueryError) -> Bool {
        try read { db in try Int.fetchOne(try cachedStatement(db, "PRAGMA user_version")) ?? 0 } != 0
    }

    static func mark(_ db: Database, _ mark: Mark) throws {
        let old = try Int.fetchOne(db, sql: "PRAGMA user_version") ?? 0
        if old | mark.rawValue != old { try db.execute(sql: "PRAGMA user_version = \(old | mark.rawValue)") }
    }

    /// Marks the database for an object about to be written as `json`.
    static func mark(_ db: Database, _ json: String, _ object: [String: Value]) throws {
        if json.contains("\\u0000") { try mark(db, .nul) }
        if SQLStoredColumns.holdsArray(object) { try mark(db, .dateArrays) }
    }

    public func documents(_ statement: SQLStatement) throws(QueryError) -> [String] {
        try read { db in
            try String.fetchAll(try cachedStatement(db, "SELECT \"doc\" FROM (\(statement.sql))"), arguments: SQLiteDatabase.arguments(statement.arguments))
        }
    }

    /// Each row's text where SQLite holds it (GRDB's statement row reads
    /// the column without a copy).
    public func forEachDocument(
        _ statement: SQLStatement, _ body: (UnsafeBufferPointer<UInt8>) throws(QueryError) -> Void
    ) throws(QueryError) {
        try read { db in
            let rows = try Row.fetchCursor(
                try cachedStatement(db, "SELECT \"doc\" FROM (\(statement.sql))"), arguments: SQLiteDatabase.arguments(statement.arguments))
            while let row = try rows.next() {
                try row.withUnsafeData(atIndex: 0) { data in
                    guard let data else { throw QueryError(.data, "sqlite: a row without its document") }
                    try data.withUnsafeBytes { raw in try body(raw.bindMemory(to: UInt8.self)) }
                }
            }
        }
    }

    public func integer(_ statement: SQLStatement) throws(QueryError) -> Int {
        try read { db in
            try Int.fetchOne(try cachedStatement(db, statement.sql), arguments: SQLiteDatabase.arguments(statement.arguments)) ?? 0
        }
    }

    /// Most statements compiled and kept per connection.
    static let compiledStatementCapacity = 256

    /// `sql` compiled once for this connection and kept (GRDB's statement
    /// cache): a server repeats a few query shapes with new arguments, and
    /// compiling (SQLite's parser, GRDB's authorizer) cost more than running
    /// a get by id. SQLite recompiles a kept statement itself when the schema
    /// changes (a temporary stand-in made or dropped). Bounded: once
    /// ``compiledStatementCapacity`` texts are kept, the cache is emptied
    /// (GRDB empties it with its schema cache), so ever new query shapes
    /// cannot grow the memory. Called inside ``read(_:)`` (the queue runs
    /// one block at a time, which guards `compiledSQL`).
    func cachedStatement(_ db: Database, _ sql: String) throws -> GRDB.Statement {
        if !compiledSQL.contains(sql) {
            if compiledSQL.count >= Self.compiledStatementCapacity {
                db.clearSchemaCache()
                compiledSQL.removeAll(keepingCapacity: true)
            }
            compiledSQL.insert(sql)
        }
        return try db.cachedStatement(sql: sql)
    }

    public func plan(_ statement: SQLStatement) throws(QueryError) -> [String] {
        try read { db in
            let rows = try Row.fetchAll(db, sql: "EXPLAIN QUERY PLAN " + statement.sql, arguments: SQLiteDatabase.arguments(statement.arguments))
            var depth: [Int: Int] = [:]
            return rows.map { row in
                let id: Int = row["id"], parent: Int = row["parent"]
                let d = (depth[parent] ?? -1) + 1
                depth[id] = d
                return String(repeating: "  ", count: d) + (row["detail"] as String)
            }
        }
    }

    public func tableNames() throws(QueryError) -> Set<String> {
        try read { db in
            Set(try String.fetchAll(db, sql: "SELECT name FROM sqlite_master WHERE type = 'table' AND \(SQLiteDatabase.notInternal) UNION SELECT name FROM sqlite_temp_master WHERE type = 'table'"))
        }
    }

    /// The keys among `keys` that hold no array in any row of `className`,
    /// as far as an index proves it cheaply: a key with its `--index` type
    /// index (`"<Class>:<key>:type"`) is probed for one `'array'` entry (a
    /// seek, not a scan); keys without one are left out (nothing assumed).
    public func arrayFreeKeys(_ className: String, among keys: Set<String>) throws(QueryError) -> Set<String> {
        if keys.isEmpty { return [] }
        let table = try SQLiteDialect().quote(className)
        return try read { db in
            var free = Set<String>()
            for key in keys.sorted() {
                guard let type = SQLiteDialect.indexedExpressions(forKey: key)?[1],
                      try Bool.fetchOne(try cachedStatement(db, "SELECT 1 FROM sqlite_master WHERE type = 'index' AND tbl_name = ? AND name = ?"),
                                        arguments: [className, "\(className):\(key):type"]) != nil
                else { continue }
                if try Bool.fetchOne(try cachedStatement(db, "SELECT 1 FROM \(table) WHERE \(type) = 'array' LIMIT 1")) == nil { free.insert(key) }
            }
            return free
        }
    }

    public func joinRows(_ table: String) throws(QueryError) -> [[String: Value]] {
        let name = try SQLiteDialect().quote(table)
        return try read { db in
            try Row.fetchAll(db, sql: "SELECT \"owningId\", \"relatedId\" FROM \(name) ORDER BY rowid").map { row in
                var o: [String: Value] = [:]
                if let s: String = row["owningId"] { o["owningId"] = .string(s) }
                if let s: String = row["relatedId"] { o["relatedId"] = .string(s) }
                return o
            }
        }
    }

    /// Drops the temporary stand-ins ``createTemporaryTables(classes:joins:)``
    /// made. A connection that lives on (a server's) must not keep one: a
    /// temporary table hides the real table of the same name once a write
    /// creates it.
    public func dropTemporaryTables() throws(QueryError) {
        try read { db in
            for temp in try String.fetchAll(db, sql: "SELECT name FROM sqlite_temp_master WHERE type = 'table'") {
                try db.execute(sql: "DROP TABLE temp.\(try SQLiteDialect().quote(temp))")
            }
        }
    }

    public func createTemporaryTables(classes: [String], joins: [String]) throws(QueryError) {
        let d = SQLiteDialect()
        var statements: [String] = []
        for c in classes { statements.append(SQLiteDatabase.classTable(try d.quote(c), temporary: true)) }
        for j in joins { statements.append("CREATE TEMP TABLE IF NOT EXISTS \(try d.quote(j)) (\"owningId\" TEXT, \"relatedId\" TEXT)") }
        try read { db in for s in statements { try db.execute(sql: s) } }
    }
}

/// The answers a reader connection keeps (``SQLiteDatabase/keepsSchemaAnswers``),
/// found while `PRAGMA data_version` was ``version``.
struct KeptSchemaAnswers {
    struct Question: Hashable {
        var className: String
        var keys: Set<String>
        var tables: Set<String>
    }

    /// At most this many of each (a client sending ever new query shapes
    /// cannot grow the memory: past it, all are dropped at once).
    static let capacity = 256
    var version: Int64?
    var preflights: [Question: Preflight] = [:]
    var indexedKeys: [String: Set<String>] = [:]
    /// Whether ``version`` was checked in the current read snapshot.
    var checkedInSnapshot = false

    mutating func keep(_ answer: Preflight, for question: Question) {
        if preflights.count >= Self.capacity { preflights.removeAll() }
        preflights[question] = answer
    }

    mutating func keep(_ keys: Set<String>, for className: String) {
        if indexedKeys.count >= Self.capacity { indexedKeys.removeAll() }
        indexedKeys[className] = keys
    }
}
