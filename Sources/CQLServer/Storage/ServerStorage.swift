import CQLEval
import CQLKit
import CQLSQL
import Foundation
import NIOCore
import NIOPosix

/// The server's database: SQLite (a file) or PostgreSQL, behind one
/// interface, with readers that run at once and writes one at a time.
///
/// Every call goes through the library paths `cql run` and `cql exec` use —
/// CQLSQL's `SQLRunner.run(_:on:countOnly:source:presentTables:storedText:memo:)` and
/// `SQLWriteRunner.apply(_:on:now:newObjectId:strict:readBack:images:before:then:beforeCommit:)` — so the
/// server has no meaning of its own: the differential suites that prove
/// `run` and `exec` equal to the evaluator prove the server too.
///
/// On PostgreSQL, a request's reads — its session, its grantees, the
/// catalog and every find the database answers alone — are awaited from
/// the handler's task on connections of its event loop (`EventLoopReaders`,
/// CQLSQL's `SQLAsyncDatabaseReader`: the same phases as `cql run`), so
/// the request reads on one stack. Every other database call blocks (GRDB
/// and the synchronous postgres-nio use of CQLSQL), so it runs on a thread
/// pool of its own, never on the event loops that serve HTTP:
/// - **SQLite**: the file in WAL mode; ``readerCount`` connections read at
///   once while one connection writes (`BEGIN IMMEDIATE`: writes are
///   serialized, also against other processes, waiting up to 10 s).
/// - **PostgreSQL**: a pool of ``readerCount`` connections plus one writer;
///   writes also take a transaction-level advisory lock (see
///   `PostgreSQLDatabase.inWriteTransaction`).
///
/// Each request is atomic: a write is one transaction. A statement that runs
/// longer than ``requestTimeout`` is stopped (SQLite: a deadline its
/// progress handler checks; PostgreSQL: `statement_timeout`) and the
/// request fails with code 124.
public final class ServerStorage: @unchecked Sendable {
    /// Where the data lives.
    public enum Location: Sendable, Equatable {
        case sqlite(path: String)
        case postgres(url: String)
    }

    public let location: Location
    public let readerCount: Int
    public let requestTimeout: Double
    /// The readers' threads, one per reader connection.
    let threads: NIOThreadPool
    /// The writer's thread: a write waiting for the write lock waits here,
    /// holding none of the readers' threads.
    let writeThreads: NIOThreadPool
    let readers: ConnectionPool
    /// Scans run on at most one fewer than the readers (``ReadKind``).
    let scanPermits: AsyncPermits
    let writer: Connection
    let writeLock = NSLock()
    /// PostgreSQL: the connections handlers read through without a thread
    /// of their own (``EventLoopReaders``; see ``find(_:countOnly:)``).
    let eventLoopReaders: EventLoopReaders?
    /// The tables known to exist (a query naming another gets temporary
    /// stand-ins, dropped after it: see ``read(_:)``).
    let knownTables = LockedValue<Set<String>>([])
    /// How many reads took a reader connection: a PostgreSQL request's
    /// reads take none unless its find needs the blocking path (tests).
    let blockingReads = LockedValue(0)
    /// The unique indexes known to exist (``UniqueIndex``; see
    /// ``prepareUniqueKeys(on:location:)``).
    let uniqueIndexed = LockedValue<Set<String>>([])

    /// Opens the database (creating the SQLite file if needed) and starts the
    /// threads.
    public init(_ location: Location, readers readerCount: Int = 4, requestTimeout: Double = 10) throws(QueryError) {
        self.location = location
        self.readerCount = max(1, readerCount)
        self.requestTimeout = requestTimeout
        var pool: [Connection] = []
        for _ in 0..<self.readerCount {
            let reader = try Connection(location, timeout: requestTimeout)
            // Readers never write: they keep what the schema says while no
            // other connection commits (``SQLiteDatabase/keepsSchemaAnswers``).
            reader.sqlite?.keepsSchemaAnswers = true
            pool.append(reader)
        }
        readers = ConnectionPool(pool)
        writer = try Connection(location, timeout: requestTimeout)
        // Before the threads and event-loop connections: a refusal leaves nothing running.
        try Self.checkSystemSpellings(try writer.db.tableNames())
        let indexed = try Self.prepareUniqueKeys(on: writer.db, location: location)
        if case .postgres(let url) = location {
            eventLoopReaders = try EventLoopReaders(url: url, count: self.readerCount, executors: .singleton,
                                                    statementTimeoutMilliseconds: Int((requestTimeout * 1000).rounded(.up)))
        } else {
            eventLoopReaders = nil
        }
        threads = NIOThreadPool(numberOfThreads: self.readerCount)
        threads.start()
        writeThreads = NIOThreadPool(numberOfThreads: 1)
        writeThreads.start()
        scanPermits = AsyncPermits(max(1, self.readerCount - 1))
        knownTables.value = try writer.db.tableNames()
        uniqueIndexed.value = indexed
        // Set-up statements first: the request time limit is for requests.
        try prepareSessions()
        try prepareStateTables()
        for c in pool + [writer] { try c.limitStatements() }
    }

    /// Stops the threads (after the server stopped taking requests).
    public func shutdown() async {
        await eventLoopReaders?.close()
        try? await threads.shutdownGracefully()
        try? await writeThreads.shutdownGracefully()
    }

    /// Runs `body` with a reader connection, on the storage's threads; a
    /// `.scan` first waits (without a thread) for one of the scan permits
    /// (``ReadKind``), all within the request's deadline.
    public func read<T: Sendable>(_ kind: ReadKind = .point, _ body: @escaping @Sendable (any SQLDatabaseReader) throws(QueryError) -> T) async throws -> T {
        let deadline = currentDeadline()
        if kind == .scan {
            guard await scanPermits.acquire(before: deadline) else { throw APIError.timeout(requestTimeout) }
        }
        defer { if kind == .scan { scanPermits.release() } }
        blockingReads.update { $0 += 1 }
        return try await threads.runIfActive { [self] () throws -> T in
            try checkTime(deadline)
            guard let connection = readers.checkOut(before: deadline) else { throw APIError.timeout(requestTimeout) }
            defer { readers.checkIn(connection) }
            return try connection.timed(until: deadline) { db throws(QueryError) in try body(db) }
        }
    }

    /// `body` with the event-loop reader of the current loop
    /// (``EventLoopReaders``), held to the request's time limit as the
    /// blocking path is (``Connection/timed(until:_:)``): past it, code 124;
    /// a lane whose connection turns out lost connects again and `body`
    /// runs once more, while the request has time for it. `kind`: where it
    /// may run (``LanePlacement``).
    func withoutBlocking<T>(_ readers: EventLoopReaders, _ kind: ReadKind,
                            _ body: (any SQLAsyncDatabaseReader) async throws(QueryError) -> T) async throws -> T {
        var again = true
        let deadline = currentDeadline()
        while true {
            do {
                return try await readers.withConnection(kind) { connection in try await body(connection) }
            } catch let error as QueryError where error.message.contains("statement timeout") {
                throw APIError.timeout(requestTimeout)
            } catch let error as QueryError
                where again && error.databaseFailure == .connectionLost && deadline - .now() > Self.amount(min(1, requestTimeout / 2))
            {
                again = false
            }
        }
    }

    /// A read of the request's own (not a find): `awaited` on the event-loop
    /// reader when there is one, so the request stays on one stack, else
    /// `blocking` on a reader connection.
    func read<T: Sendable>(awaited: (any SQLAsyncDatabaseReader) async throws(QueryError) -> T,
                           blocking: @escaping @Sendable (any SQLDatabaseReader) throws(QueryError) -> T) async throws -> T {
        if let eventLoopReaders { return try await withoutBlocking(eventLoopReaders, .point, awaited) }
        return try await read(.point, blocking)
    }

    /// The documents `statement` reads (a server table's row, a unique
    /// key's object), read as ``read(awaited:blocking:)`` reads.
    func documents(_ statement: SQLStatement) async throws -> [String] {
        try await read(awaited: { db throws(QueryError) in try await db.documents(statement) },
                       blocking: { db throws(QueryError) in try db.documents(statement) })
    }

    /// The table names present, read as ``read(awaited:blocking:)`` reads.
    func tableNames() async throws -> Set<String> {
        try await read(awaited: { db throws(QueryError) in try await db.tableNames() },
                       blocking: { db throws(QueryError) in try db.tableNames() })
    }

    /// `*`, the user and its roles (CQLSQL's `CallerGrantees`): on
    /// PostgreSQL through the event-loop reader, as the request's find.
    public func grantees(userId: String) async throws -> [String] {
        try await read(awaited: { db throws(QueryError) in try await CallerGrantees.grantees(userId: userId, on: db) },
                       blocking: { db throws(QueryError) in try CallerGrantees.grantees(userId: userId, on: db) })
    }

    /// Every class's stored settings (CQLSQL's `ClassSettingsTable`), read
    /// as ``read(awaited:blocking:)`` reads.
    func classSettings() async throws -> [String] {
        guard try await tableNames().contains(ClassSettingsTable.name) else { return [] }
        return try await documents(ClassSettingsTable.all(dialect: dialect))
    }

    /// The SQL dialect of the database.
    var dialect: SQLDialectName {
        switch location {
        case .sqlite: return .sqlite
        case .postgres: return .postgres
        }
    }

    /// A query, answered as `cql run` answers it. Classes the database lacks
    /// read as empty (as `eval` reads a missing file).
    ///
    /// `storedText`: the objects may come as their stored text
    /// (`SQLRunner.Result.storedText`) when nothing reshapes them.
    ///
    /// `memo`: what earlier runs of this very query worked out (PostgreSQL:
    /// `SQLRunner.ReadMemo`).
    public func find(_ query: Query, countOnly: Bool = false, storedText: Bool = false, memo: SQLRunner.ReadMemo? = nil) async throws
        -> SQLRunner.Result
    {
        // A relation key compared with a Pointer reads its join table (EvaluationSemantics, "Relation keys"):
        // resolved here, where the tables are known; such a query keeps no memo, as its meaning moves with the tables.
        // A join table this process does not know is asked for again: another process may have made it.
        let known = knownTables.value
        var unknown = Set<String>()
        var resolved = query.resolvingRelationKeys { name in
            if known.contains(name) { return true }
            unknown.insert(name)
            return false
        }
        if !unknown.isEmpty, try await missingTables(unknown) != unknown {
            resolved = query.resolvingRelationKeys(hasTable: knownTables.value.contains)
        }
        let query = resolved ?? query, memo = resolved == nil ? memo : nil
        let tables = memo?.tablesRead(by: query) ?? SQLRunner.tablesRead(by: query)
        let kind = ReadKind.of(query)
        if let eventLoopReaders, tables.isSubset(of: knownTables.value) {
            if kind == .scan {
                guard await scanPermits.acquire(before: currentDeadline()) else { throw APIError.timeout(requestTimeout) }
            }
            defer { if kind == .scan { scanPermits.release() } }
            // PostgreSQL, every table there: read from this task, without
            // blocking a thread; nil when the query needs the full path below.
            if let answer = try await withoutBlocking(eventLoopReaders, kind, { db throws(QueryError) in
                try await db.run(query, countOnly: countOnly, storedText: storedText, memo: memo)
            }) {
                return answer
            }
        }
        let missing = try await missingTables(tables)
        if !missing.isEmpty { try Self.checkLetterCase(missing, present: knownTables.value) }
        // Known present: the runner need not ask the catalog again.
        let present: Set<String>? = missing.isEmpty ? tables : nil
        return try await read(kind) { db throws(QueryError) in
            defer { if !missing.isEmpty { try? db.dropTemporaryTables() } }
            let run = { () throws(QueryError) in
                try SQLRunner.run(query, on: db, countOnly: countOnly, presentTables: present, storedText: storedText, memo: memo)
            }
            return try db.inReadSnapshot(run)
        }
    }

    /// Applies a write in one transaction, as `cql exec` does.
    /// - Parameters:
    ///   - statement: the bound write.
    ///   - now: the instant written as createdAt / updatedAt.
    ///   - readBack: an update done by its SQL reads its object back in the
    ///     same transaction, so that the result's changes hold it.
    ///   - objectId: the objectId an insert gives its object (else a random
    ///     one); a taken one fails the write.
    ///   - before: runs first in the same transaction (see
    ///     `SQLWriteRunner.apply(_:on:now:newObjectId:strict:readBack:images:before:then:beforeCommit:)`).
    ///
    ///   - then: a second write in the same transaction, given the first's
    ///     result (`SQLWriteRunner.apply(_:on:now:newObjectId:strict:readBack:images:before:then:beforeCommit:)`):
    ///     a create's relation ops, committed with the object or not at all.
    ///
    ///   - images: every change carries its object before and after
    ///     (`SQLWriteRunner.apply(_:on:now:newObjectId:strict:readBack:images:before:then:beforeCommit:)`):
    ///     asked only when a hook or observer will see them.
    ///   - beforeCommit: given the result, runs last inside the transaction,
    ///     before COMMIT (LiveQuery's `NOTIFY` of the changes:
    ///     ``LiveQueryNotifications``).
    ///   - committed: called with the result right after the commit, on the
    ///     writer's thread and under its lock, so calls come in commit order
    ///     (the committed-change point: ``WritePipeline``).
    ///
    /// `_User`'s username, email and phone number, `_Role`'s name and
    /// `_File`'s key stay unique (`keepingKeysUnique(_:before:_:)`): a
    /// write that takes a used one fails with LeanCloud's code (202, 203,
    /// 214, 137).
    public func write(_ statement: Statement, now: DateValue, readBack: Bool = false, objectId: String? = nil, images: Bool = false,
                      before: @escaping @Sendable (any SQLWriteSession) throws(QueryError) -> Void = { _ in },
                      then: Statement? = nil, beforeCommit: (@Sendable (WriteResult, any SQLWriteSession) throws(QueryError) -> Void)? = nil,
                      committed: (@Sendable (WriteResult) -> Void)? = nil) async throws -> WriteResult {
        // A class new to this process: checked inside the write's
        // transaction, which writes take one at a time (no two creates of
        // `note` and `Note` both pass).
        let named = Self.tablesNamed(by: statement)
        let checksNames = !named.isSubset(of: knownTables.value)
        let first = before
        let before: @Sendable (any SQLWriteSession) throws(QueryError) -> Void = { session throws(QueryError) in
            if checksNames { try Self.checkLetterCase(named, present: try session.tableNames()) }
            try first(session)
        }
        let statement = try Self.normalisingUniqueKeys(statement)
        let result = try await keepingKeysUnique(statement, before: before) { before in
            try await onWriter { db throws(QueryError) in
                // Not looked up first: a given id could not be drawn again, a random one is 96 bits (the primary key refuses a taken one).
                let result = try SQLWriteRunner.apply(statement, on: db, now: now, newObjectId: { objectId ?? StatementExecutor.randomObjectId() },
                                                      checksNewObjectIds: false,
                                                      readBack: readBack, images: images, before: before, then: { _ in then },
                                                      beforeCommit: { result, session throws(QueryError) in try beforeCommit?(result, session) })
                committed?(result)
                return result
            }
        }
        if !result.changedClasses.isSubset(of: knownTables.value) {
            knownTables.value.formUnion(result.changedClasses)
        }
        return result
    }

    /// The names of the class tables (not the `_Join:` tables, nor the
    /// server's own such as `cql:sessions`: no class name holds a ':').
    public func classNames() async throws -> [String] {
        let names = try await tableNames()
        return names.filter { !$0.contains(":") }.sorted()
    }

    /// Which of `tables` the database lacks (asking it again on a miss: another
    /// process may have made them).
    func missingTables(_ tables: Set<String>) async throws -> Set<String> {
        let known = knownTables.value
        if tables.isSubset(of: known) { return [] }
        let present = try await tableNames()
        knownTables.value = present
        return tables.subtracting(present)
    }
}

/// One database connection, with the server's time limit on its statements.
final class Connection: @unchecked Sendable {
    let db: any SQLDatabaseWriter
    let sqlite: SQLiteDatabase?
    let postgres: PostgreSQLDatabase?
    let timeout: Double

    init(_ location: ServerStorage.Location, timeout: Double) throws(QueryError) {
        self.timeout = timeout
        switch location {
        case .sqlite(let path):
            let s = try SQLiteDatabase(path: path, shared: true)
            db = s
            sqlite = s
            postgres = nil
        case .postgres(let url):
            let p = try PostgreSQLDatabase(url: url)
            db = p
            postgres = p
            sqlite = nil
        }
    }

    /// Starts limiting statements (after the storage's own set-up queries).
    func limitStatements() throws(QueryError) {
        try postgres?.setStatementTimeout(milliseconds: Int((timeout * 1000).rounded(.up)))
    }

    /// Runs `body`; once it has taken ``timeout``, its statements fail
    /// (SQLite: a deadline checked by a progress handler; PostgreSQL:
    /// `statement_timeout`, per statement) and the call fails with code 124.
    ///
    /// PostgreSQL: when the connection turns out lost before anything was
    /// committed (a restart, a terminated backend: ``DatabaseFailure/connectionLost``),
    /// `body` runs once more, on a new connection — a read, or a write whose
    /// transaction PostgreSQL rolled back with the connection. (A write
    /// whose COMMIT was under way is not run again: its outcome is unknown.)
    ///
    /// `deadline`: the request's (``RequestDeadline``), which the statements
    /// are held to; nil: ``timeout`` from now.
    func timed<T>(until deadline: NIODeadline? = nil, _ body: (any SQLDatabaseWriter) throws(QueryError) -> T) throws -> T {
        let deadline = deadline ?? .now() + ServerStorage.amount(timeout)
        sqlite?.setDeadline(after: max(0, Double((deadline - .now()).nanoseconds) / 1e9))
        defer { sqlite?.clearDeadline() }
        postgres?.deadline = deadline
        defer { postgres?.deadline = nil }
        var again = sqlite == nil
        while true {
            do {
                return try body(db)
            } catch {
                if error.message.hasSuffix("interrupted") || error.message.contains("statement timeout") { throw APIError.timeout(timeout) }
                // Once more only while the request has time for it.
                if again, error.databaseFailure == .connectionLost, deadline - .now() > ServerStorage.amount(min(1, timeout / 2)) {
                    again = false
                    continue
                }
                throw error
            }
        }
    }
}

/// Reader connections, each used by one request at a time.
final class ConnectionPool: @unchecked Sendable {
    private var idle: [Connection]
    private let condition = NSCondition()

    init(_ connections: [Connection]) { idle = connections }

    /// An idle connection, waiting for one when all are busy (the storage's
    /// threads are one more than its readers, so a wait is short); nil when
    /// none was free by `deadline`.
    func checkOut(before deadline: NIODeadline) -> Connection? {
        condition.lock()
        defer { condition.unlock() }
        while idle.isEmpty {
            let left = Double((deadline - .now()).nanoseconds) / 1e9
            if left <= 0 || !condition.wait(until: Date(timeIntervalSinceNow: left)) { if idle.isEmpty { return nil } }
        }
        return idle.removeLast()
    }

    func checkIn(_ c: Connection) {
        condition.lock()
        idle.append(c)
        condition.signal()
        condition.unlock()
    }
}

/// A value shared between threads, behind a lock.
final class LockedValue<T>: @unchecked Sendable {
    private var stored: T
    private let lock = NSLock()
    init(_ value: T) { stored = value }
    var value: T {
        get { lock.lock(); defer { lock.unlock() }; return stored }
        set { lock.lock(); stored = newValue; lock.unlock() }
    }

    /// Changes the value under the lock and returns what `body` returns.
    func update<R>(_ body: (inout T) -> R) -> R {
        lock.lock()
        defer { lock.unlock() }
        return body(&stored)
    }
}
