import CQLEval
import CQLKit
import Foundation
import Logging
import NIOCore
import PostgresNIO

/// PostgreSQL connections on one event loop, read from `async` code
/// without blocking a thread: a server's handler awaits its statements on
/// the connections' event loop (``SQLRunner/run(_:on:countOnly:source:storedText:memo:)``).
///
/// It runs the statements ``PostgreSQLDatabase`` runs, with the same
/// arguments and types, as named prepared statements (`PreparedStatementNames`).
/// It never creates temporary tables, so its connections keep no session
/// state but their prepared statements, their `statement_timeout` and
/// their `plan_cache_mode` (each statement planned once: see
/// ``init(url:on:lanes:taskExecutor:statementTimeoutMilliseconds:)``).
///
/// **Lanes and coalescing.** Each connection is a lane that runs one batch
/// of statements at a time. A statement that finds a lane idle runs at
/// once; one that finds every lane busy waits, and the next lane to finish
/// takes everything waiting as its next batch. In a batch, the runs of one
/// statement with different arguments (concurrent gets by id, Valine pages
/// of different URLs) become one `CoalescedStatement`: PostgreSQL starts
/// its executor once and the protocol crosses once for all of them. Each
/// caller gets exactly its own rows; when the coalesced statement fails,
/// each run is run again alone, so each caller gets its own error, or its
/// rows. Nothing waits that would not have waited anyway: statements only
/// coalesce while every lane is busy. A slow statement (up to the
/// statement time limit) holds one lane; the others go on.
///
/// ```swift
/// let c = try PostgreSQLReadConnection(url: url, on: loop, lanes: 2, statementTimeoutMilliseconds: 10_000)
/// let r = try await SQLRunner.run(query, on: c)   // nil: run it with SQLRunner.run(_:on:) instead
/// ```
public final class PostgreSQLReadConnection: SQLAsyncDatabaseReader {
    /// Each lane's connection, made again when lost (``PostgreSQLLink``):
    /// a batch that finds its lane's connection gone connects again first,
    /// or fails at once while PostgreSQL cannot be reached.
    let lanes: [PostgreSQLLink]
    let preparedNames = PreparedStatementNames()
    let coalescedStatements = CoalescedStatements()
    let logger = Logger(label: "cql.postgres")
    /// Where a lane's batches run (the event loop's own executor in a
    /// server, so rows are read on the loop that receives them).
    let taskExecutor: (any TaskExecutor)?
    let queue: LaneQueue
    /// Whether a batch shares arguments (``ArgumentSharing``).
    let argumentSharing = ArgumentSharing()
    /// How long a statement may go unanswered before its lane's connection
    /// is closed (``PostgreSQLLink/watch(_:for:)``); nil: no limit.
    let watchdogLimit: TimeAmount?

    /// The event loop the connections' reads and writes run on.
    public var eventLoop: any EventLoop { lanes[0].eventLoop }

    /// How many connections (lanes) statements run on at once.
    public var laneCount: Int { lanes.count }

    init(_ lanes: [PostgreSQLLink], taskExecutor: (any TaskExecutor)?, watchdogLimit: TimeAmount?) {
        self.lanes = lanes
        self.taskExecutor = taskExecutor
        self.watchdogLimit = watchdogLimit
        queue = LaneQueue(lanes: lanes.count)
    }

    /// Connects `lanes` connections on `eventLoop` and sets their statement
    /// time limit (0: none). It blocks until connected: call it off the
    /// event loops. `taskExecutor`: where batches run (nil: the global
    /// executor).
    public convenience init(url: String, on eventLoop: any EventLoop = PostgresConnection.defaultEventLoopGroup.any(), lanes: Int = 1,
                            taskExecutor: (any TaskExecutor)? = nil, statementTimeoutMilliseconds: Int) throws(QueryError) {
        var made: [PostgreSQLLink] = []
        do throws(QueryError) {
            for i in 0..<max(1, lanes) {
                let link = try PostgreSQLLink(url: url, on: eventLoop, id: 2 + i, logger: Logger(label: "cql.postgres"))
                made.append(link)
                if statementTimeoutMilliseconds > 0 { link.limitConnecting(to: .milliseconds(Int64(statementTimeoutMilliseconds))) }
                try link.addSetting("SET statement_timeout = \(max(0, statementTimeoutMilliseconds))")
                // Each prepared statement is planned once, not on every run: a
                // page's `LIMIT $2` makes PostgreSQL's generic plan look costlier
                // (it assumes a tenth of the rows) than the custom plans it
                // compares it with, so in `auto` mode a page is planned afresh on every request.
                try link.addSetting("SET plan_cache_mode = force_generic_plan")
            }
        } catch {
            for m in made { m.close() }
            throw error
        }
        let limit: TimeAmount? = statementTimeoutMilliseconds > 0
            ? .milliseconds(Int64(statementTimeoutMilliseconds) + PostgreSQLDatabase.watchdogGrace) : nil
        self.init(made, taskExecutor: taskExecutor, watchdogLimit: limit)
    }

    public func close() async {
        for c in lanes { await c.close() }
    }

    /// ``close()``, blocking until closed (off the event loops).
    public func closeNow() {
        for c in lanes { c.close() }
    }

    /// Closes every lane's connection as if PostgreSQL had dropped them (tests).
    public func dropConnectionsForTesting() {
        for c in lanes { c.dropForTesting() }
    }

    /// What coalescing did so far (``Coalescing``).
    public var coalescing: Coalescing { queue.coalescing }

    public struct Coalescing: Sendable, Equatable {
        /// Runs answered by coalesced statements, and those statements.
        public var runs: Int, statements: Int
        /// Coalesced statements that failed (their runs then ran alone), and
        /// of those, the ones where every run alone answered.
        public var failed: Int, failedWhereAloneAnswered: Int
    }

    public var dialect: SQLDialectName { .postgres }

    public func documents(_ statement: SQLStatement) async throws(QueryError) -> [String] {
        var texts: [String] = []
        for row in try await rows("SELECT q.\"doc\" FROM (\(statement.sql)) AS q", statement.arguments) {
            guard let d = row.firstData?.string else { throw QueryError(.data, "postgres: expected text") }
            texts.append(d)
        }
        return texts
    }

    /// ``SQLRunner/run(_:on:countOnly:source:storedText:memo:)`` on this connection.
    public func run(_ query: Query, countOnly: Bool, storedText: Bool, memo: SQLRunner.ReadMemo?) async throws(QueryError) -> SQLRunner.Result? {
        try await SQLRunner.run(query, on: self, countOnly: countOnly, storedText: storedText, memo: memo)
    }

    func integer(_ statement: SQLStatement) async throws(QueryError) -> Int {
        Self.integer(try await rows(statement.sql, statement.arguments))
    }

    /// The first column of the first row as an integer (`count(*)`), 0 when none.
    static func integer(_ rows: [PostgresRow]) -> Int {
        rows.first?.firstData?.int ?? 0
    }

    /// The tables of the current schema (this connection makes no
    /// temporary ones): those ``SQLRunner/run(_:on:countOnly:source:storedText:memo:)`` may read.
    public func tableNames() async throws(QueryError) -> Set<String> {
        var names = Set<String>()
        for row in try await rows("SELECT c.relname::text FROM pg_class c WHERE c.relkind = 'r' AND c.relnamespace = current_schema()::regnamespace", []) {
            if let s = row.makeRandomAccess()[data: 0].string { names.insert(s) }
        }
        return names
    }

    func preflight(_ question: SQLRunner.PreflightQuestion) async throws(QueryError) -> Preflight {
        guard let statement = try PostgreSQLDatabase.preflightStatement(question) else { return Preflight(arrayFreeKeys: [], requiresRecheck: false) }
        guard let row = try await rows(statement.sql, statement.arguments).first
        else { throw QueryError(.data, "postgres: the preflight statement returned no row") }
        let answer = statement.answer(row)
        remember(answer, for: question)
        return answer
    }

    // MARK: Guessed preflights
    //
    // A server asks the same few questions again and again, and the answers
    // (which indexes exist, whether an indexed key holds an array, whether a
    // table is marked) change only when the schema or such data does. So the
    // SQL is generated from the answer this connection last got, and the
    // preflight's columns ride along in the same statement, evaluated in the
    // same snapshot as the rows: when they say what was guessed, the rows are
    // the answer (one round trip instead of two); when not, the statement is
    // generated again from what they say. Nothing is ever answered from an
    // unchecked guess.

    /// Answers kept, at most (a client sending ever new query shapes cannot
    /// grow the server's memory: past it, the oldest are dropped all at once).
    static let guessCapacity = 256
    private let guesses = LockedGuesses()

    func guess(for question: SQLRunner.PreflightQuestion) -> Preflight? { guesses.get(question) }

    /// How many guessed preflights the statement's own columns confirmed,
    /// and how many they corrected (the statement then ran again).
    public var guessOutcomes: (confirmed: Int, corrected: Int) { guesses.outcomes }

    func count(confirmed: Bool) { guesses.count(confirmed: confirmed) }

    func remember(_ answer: Preflight, for question: SQLRunner.PreflightQuestion) { guesses.set(answer, for: question) }

    /// `statement` with the preflight's columns joined (``rowsWithPreflight(_:_:)``),
    /// and how to read them (nil: the question asks nothing).
    ///
    /// `aggregated`: the documents come as one row holding them all, in
    /// order, as one `text[]` (``Carried/aggregated``), with the preflight's
    /// columns once. Only for a statement whose `LIMIT` bounds its rows (a
    /// server's find: at most 1,000), so the array stays small.
    ///
    /// Why: each row crosses the protocol as a message of its own, and
    /// postgres-nio's decoding of a row (its state machine, its row and cell
    /// values) costs more of a page's server CPU than anything of the
    /// server's own. One
    /// row a page, whatever its length, also always carries the preflight's
    /// answer, so an empty page no longer needs a second statement.
    static func carrying(_ statement: SQLStatement, select: String, _ question: SQLRunner.PreflightQuestion, aggregated: Bool = false)
        throws(QueryError) -> Carried
    {
        // A plain aggregate over a sorted subquery with nothing else at its
        // level (no join) takes the rows in the subquery's order
        // (PostgreSQL's manual, "Aggregate Functions"); the differential
        // suites check every order.
        let rows = aggregated ? "(SELECT array_agg(\(select)) FROM (\(statement.sql)) AS q)" : nil
        guard let preflight = try PostgreSQLDatabase.preflightStatement(question, firstParameter: statement.arguments.count + 1) else {
            let sql = rows.map { "SELECT \($0)" } ?? "SELECT \(select) FROM (\(statement.sql)) AS q"
            return Carried(SQLStatement(sql: sql, arguments: statement.arguments), preflight: nil, aggregated: aggregated)
        }
        // The preflight's columns in a one-row subquery joined to the rows:
        // in the select list they were evaluated for every row (their
        // to_regclass calls and probes), in a coalesced page once per run
        // of each row's page.
        let columns = preflight.columns.joined(separator: ", ")
        let sql = rows.map { "SELECT \($0), \"cql_p\".* FROM (SELECT \(columns)) AS \"cql_p\"" }
            ?? "SELECT \(select), \"cql_p\".* FROM (\(statement.sql)) AS q CROSS JOIN (SELECT \(columns)) AS \"cql_p\""
        return Carried(SQLStatement(sql: sql, arguments: statement.arguments + preflight.arguments), preflight: preflight, aggregated: aggregated)
    }

    /// A statement with the preflight's columns joined: its call (bindings
    /// made, key hashed) and how to read the columns.
    struct Carried: Sendable {
        var call: PreparedCall
        var arguments: [Value]
        var preflight: PostgreSQLDatabase.PreflightStatement?
        /// Whether its one row holds the documents as an array
        /// (``PostgresRow/aggregatedTexts``), not a row each.
        var aggregated: Bool

        init(_ statement: SQLStatement, preflight: PostgreSQLDatabase.PreflightStatement?, aggregated: Bool = false) {
            call = PreparedCall(statement.sql, statement.arguments)
            arguments = statement.arguments
            self.preflight = preflight
            self.aggregated = aggregated
        }
    }

    /// The rows of a statement from ``carrying(_:select:_:)``, with the
    /// preflight's answer read in the same statement (nil when there is no
    /// row to carry it).
    func rowsWithPreflight(_ carried: Carried, _ question: SQLRunner.PreflightQuestion)
        async throws(QueryError) -> (rows: [PostgresRow], answer: Preflight?)
    {
        let found = try await rows(carried.call, carried.arguments)
        guard let preflight = carried.preflight else { return (found, Preflight(arrayFreeKeys: [], requiresRecheck: false)) }
        guard let first = found.first else { return (found, nil) }
        let answer = preflight.answer(first, from: 1)
        remember(answer, for: question)
        return (found, answer)
    }
}

/// Whether a batch's runs of one statement with the same arguments run once
/// and the arguments all its runs share stay scalar in the coalesced
/// statement (`on`, the default); off, every argument goes in as an array
/// and identical runs coalesce like any others. Tests turn it off before a
/// reader is used, so that a query run three times at once (the
/// differential suites) exercises that rewriting too.
final class ArgumentSharing: @unchecked Sendable {
    var on = true
}

/// ``PostgreSQLReadConnection``'s last preflight answers, behind a lock.
private final class LockedGuesses: @unchecked Sendable {
    private var answers: [SQLRunner.PreflightQuestion: Preflight] = [:]
    private var confirmed = 0, corrected = 0
    private let lock = NSLock()

    var outcomes: (confirmed: Int, corrected: Int) {
        lock.lock()
        defer { lock.unlock() }
        return (confirmed, corrected)
    }

    func count(confirmed isConfirmed: Bool) {
        lock.lock()
        if isConfirmed { confirmed += 1 } else { corrected += 1 }
        lock.unlock()
    }

    func get(_ q: SQLRunner.PreflightQuestion) -> Preflight? {
        lock.lock()
        defer { lock.unlock() }
        return answers[q]
    }

    func set(_ a: Preflight, for q: SQLRunner.PreflightQuestion) {
        lock.lock()
        defer { lock.unlock() }
        if answers[q] == a { return }
        if answers.count >= PostgreSQLReadConnection.guessCapacity { answers.removeAll() }
        answers[q] = a
    }
}

extension SQLRunner {
    /// ``run(_:on:countOnly:source:presentTables:storedText:memo:)`` on a connection read
    /// asynchronously: the same phases (`begin(_:countOnly:source:)`,
    /// the preflight, `pushdown(_:_:dialect:residualMatch:indexedKeys:)`,
    /// `shaped(_:_:objects:count:store:source:)`) with the same statements,
    /// for the queries the database answers alone.
    ///
    /// The preflight's answer is first guessed from the connection's last
    /// one and checked inside the statement that reads the rows (see
    /// ``PostgreSQLReadConnection``): a right guess saves a round trip, a
    /// wrong one costs the statement again.
    ///
    /// Returns nil when the query needs more than that — the evaluator
    /// re-checking rows, `include`d objects, an order PostgreSQL cannot
    /// rank — and the caller then runs it with the synchronous `run`, which
    /// answers every query. The caller makes sure every table the query
    /// reads exists (``tablesRead(by:)``): this path creates no stand-ins,
    /// and asks no catalog, so the caller resolves the query's relation keys
    /// too (`Query.resolvingRelationKeys(hasTable:)`).
    ///
    /// `storedText`: when nothing reshapes the objects (no `keys`), return
    /// the stored documents' text (``Result/storedText``), not objects: a
    /// server that writes them out from their bytes builds none.
    ///
    /// `memo`: what earlier runs of this very query worked out (``ReadMemo``);
    /// a caller that runs the same query again passes the same memo.
    public static func run(_ query: Query, on db: PostgreSQLReadConnection, countOnly: Bool = false, source: String? = nil,
                           storedText: Bool = false, memo: ReadMemo? = nil) async throws(QueryError) -> Result?
    {
        let begun = try begin(query, countOnly: countOnly, source: source, dialect: .postgres, recheckConcernsOnlyDateColumns: true, memo: memo)
        let q = begun.query, question = begun.question
        if !q.includes.isEmpty { return nil }
        var known: Preflight?
        if let guess = db.guess(for: question) {
            let generated = try generate(q, guess, question, memo)
            let translation = generated.translation
            if let carried = generated.carried {
                let found: (rows: [PostgresRow], answer: Preflight?)
                do {
                    found = try await db.rowsWithPreflight(carried, question)
                } catch where isOrderFailure(error) {
                    return nil
                }
                if let answer = found.answer { db.count(confirmed: answer == guess) }
                if found.answer == guess {
                    if q.count == .only {
                        return Result(objects: [], count: PostgreSQLReadConnection.integer(found.rows), translation: translation)
                    }
                    return try await finish(q, translation, rows: found.rows, aggregated: carried.aggregated, on: db, source: source,
                                            storedText: storedText)
                }
                // No row to check the guess by, or a wrong guess: the
                // preflight's own answer, if the statement carried it.
                known = found.answer
            }
        }
        let preflight: Preflight
        if let known { preflight = known } else { preflight = try await db.preflight(question) }
        let translation = try pushdown(q, preflight, dialect: .postgres)
        guard translation.isExact else { return nil }
        if q.count == .only, let c = translation.count {
            return Result(objects: [], count: try await db.integer(c), translation: translation)
        }
        let found: [PostgresRow]
        do {
            found = try await db.rows("SELECT q.\"doc\" FROM (\(translation.select.sql)) AS q", translation.select.arguments)
        } catch where isOrderFailure(error) {
            return nil
        }
        return try await finish(q, translation, rows: found, aggregated: false, on: db, source: source, storedText: storedText)
    }

    /// The SQL for `q` under the guessed `preflight`, from the memo when it
    /// holds that answer's; `carried` is nil when the translation is not
    /// exact (or has no statement for what is asked).
    private static func generate(_ q: Query, _ preflight: Preflight, _ question: PreflightQuestion, _ memo: ReadMemo?)
        throws(QueryError) -> ReadMemo.Generated
    {
        if let known = memo?.generated(for: preflight) { return known }
        let translation = try pushdown(q, preflight, dialect: .postgres)
        var generated = ReadMemo.Generated(preflight: preflight, translation: translation)
        if translation.isExact, let statement = q.count == .only ? translation.count : translation.select {
            if q.count == .only {
                generated.carried = try PostgreSQLReadConnection.carrying(statement, select: "q.*", question)
            } else {
                // A bounded page comes as one row (see carrying(_:select:_:aggregated:)).
                var bounded = false
                if case .value(.int(let n))? = q.limit, n >= 0, n <= maximumAggregatedRows { bounded = true }
                generated.carried = try PostgreSQLReadConnection.carrying(statement, select: "q.\"doc\"", question, aggregated: bounded)
            }
        }
        memo?.setGenerated(generated)
        return generated
    }

    /// The largest `LIMIT` whose rows come as one array (a server's largest page).
    static let maximumAggregatedRows: Int64 = 1000

    /// The objects of rows whose first column is the document (`aggregated`:
    /// of the one row whose first column holds them all), shaped, with the
    /// count when asked for.
    private static func finish(_ q: Query, _ translation: SQLTranslation, rows: [PostgresRow], aggregated: Bool, on db: PostgreSQLReadConnection,
                               source: String?, storedText: Bool) async throws(QueryError) -> Result {
        var texts: [String] = []
        if aggregated {
            for row in rows {
                guard let all = row.aggregatedTexts else { throw QueryError(.data, "postgres: expected an array of text") }
                texts.append(contentsOf: all)
            }
        } else {
            texts.reserveCapacity(rows.count)
            for row in rows {
                guard let d = row.firstData?.string else { throw QueryError(.data, "postgres: expected text") }
                texts.append(d)
            }
        }
        var count: Int?
        if q.count != .none, let c = translation.count { count = try await db.integer(c) }
        if storedText && SQLRunner.leavesObjectsAsStored(q) {
            return Result(objects: [], count: count, translation: translation, storedText: q.count == .only ? [] : texts)
        }
        var objects: [[String: Value]] = []
        objects.reserveCapacity(texts.count)
        for d in texts { objects.append(try DataFiles.object(json: d)) }
        return try shaped(q, translation, objects: objects, count: count, store: DocumentStore(), source: source)
    }
}
