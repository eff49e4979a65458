import CQLKit
import Foundation
import NIOCore
import PostgresNIO

// The lanes of a PostgreSQLReadConnection: how a statement gets a
// connection, waits for one, or is coalesced with others (see the class's
// documentation and CoalescedStatement).

extension PostgreSQLReadConnection {
    /// Runs a statement as a named prepared statement (or unnamed, past
    /// ``PreparedStatementNames/capacity``) on the first idle lane, or
    /// coalesced with others in a lane's next batch, and returns its rows.
    func rows(_ sql: String, _ arguments: [Value]) async throws(QueryError) -> [PostgresRow] {
        try await rows(PreparedCall(sql, arguments), arguments)
    }

    /// ``rows(_:_:)`` of a call made already (a ``SQLRunner/ReadMemo`` keeps
    /// the call of a statement it runs again with the same arguments).
    func rows(_ call: PreparedCall, _ arguments: [Value]) async throws(QueryError) -> [PostgresRow] {
        let run = WaitingRun(call: call, arguments: arguments)
        // The request's deadline (RequestDeadline) bounds the wait: a lane
        // held by a statement PostgreSQL does not answer, or one connecting
        // again, cannot keep the caller past it.
        let deadline = RequestDeadline.current
        let result = await withCheckedContinuation { (k: CheckedContinuation<Result<[PostgresRow], QueryError>, Never>) in
            run.continuation = k
            if let deadline {
                run.timer = eventLoop.scheduleTask(deadline: deadline) {
                    run.finish(.failure(RequestDeadline.exceeded("no answer from PostgreSQL in time")))
                }
            }
            switch queue.submit(run, now: Self.now()) {
            case .run(let lane): startBatch([run], on: lane)
            case .queued(let armTimer): if armTimer { armSpillTimer() }
            }
        }
        run.timer?.cancel()
        return try result.get()
    }

    static func now() -> UInt64 { NIODeadline.now().uptimeNanoseconds }

    func startBatch(_ batch: [WaitingRun], on lane: Int) {
        // With no preference given, a nil preference: the global executor.
        Task(executorPreference: taskExecutor) { [self] in
            var batch = batch
            while true {
                await runBatch(batch, on: lanes[lane])
                let (next, armTimer) = queue.next(lane: lane, now: Self.now())
                if armTimer { armSpillTimer() }
                guard let next else { return }
                batch = next
            }
        }
    }

    /// In ``LaneQueue/stuckAfter``: if the runs waiting then are held by
    /// stuck lanes, an idle lane takes them.
    func armSpillTimer() {
        eventLoop.scheduleTask(in: .nanoseconds(Int64(LaneQueue.stuckAfter))) { [self] in
            let (start, armTimer) = queue.spill(now: Self.now())
            if let (lane, batch) = start { startBatch(batch, on: lane) }
            if armTimer { armSpillTimer() }
        }
    }

    /// Runs a batch: its runs grouped by statement (in the order they
    /// came), each group coalesced when it can be.
    func runBatch(_ batch: [WaitingRun], on connection: PostgreSQLLink) async {
        if batch.count == 1 {
            await runAlone(batch[0], on: connection)
            return
        }
        var order: [PreparedStatementNames.Key] = []
        var groups: [PreparedStatementNames.Key: [WaitingRun]] = [:]
        for run in batch {
            let key = run.call.key
            if groups[key] == nil { order.append(key) }
            groups[key, default: []].append(run)
        }
        for key in order {
            let runs = groups[key]!
            if runs.count == 1 {
                await runAlone(runs[0], on: connection)
                continue
            }
            let shared = argumentSharing.on
                ? CoalescedStatement.shared(runs.map(\.arguments)) : [Bool](repeating: false, count: runs[0].arguments.count)
            if !shared.isEmpty, !shared.contains(false) {
                // The same statement with the same arguments (readers of one
                // page at once): run once, each caller gets its rows, as if
                // each had run it at that instant.
                do throws(QueryError) {
                    let rows = try await execute(runs[0].call, on: connection)
                    queue.count(.coalesced(runs: runs.count))
                    for run in runs { run.finish(.success(rows)) }
                } catch {
                    for run in runs { run.finish(.failure(error)) }
                }
                continue
            }
            if let coalesced = coalescedStatements.coalesced(key, types: runs[0].call.types, shared: shared) {
                let call = PreparedCall(coalesced.sql, types: coalesced.types,
                                        bindings: CoalescedStatement.bindings(runs.map(\.arguments), types: runs[0].call.types, shared: shared))
                if let found = try? await execute(call, on: connection) {
                    var each = [[PostgresRow]](repeating: [], count: runs.count)
                    var complete = true
                    for row in found {
                        guard let n = row.lastData?.int, n >= 1, n <= runs.count else {
                            complete = false
                            break
                        }
                        each[n - 1].append(row)
                    }
                    if complete {
                        queue.count(.coalesced(runs: runs.count))
                        for (i, run) in runs.enumerated() { run.finish(.success(each[i])) }
                        continue
                    }
                }
                // Each alone: its own rows or its own error (an order
                // PostgreSQL cannot rank, a cast one run's value fails).
                var allAnswered = true
                for run in runs {
                    if !(await runAlone(run, on: connection)) { allAnswered = false }
                }
                queue.count(allAnswered ? .failedWhereAloneAnswered : .failed)
                continue
            }
            for run in runs { await runAlone(run, on: connection) }
        }
    }

    /// Runs one statement and hands its caller the rows or the error;
    /// whether it answered.
    @discardableResult
    func runAlone(_ run: WaitingRun, on connection: PostgreSQLLink) async -> Bool {
        do throws(QueryError) {
            run.finish(.success(try await execute(run.call, on: connection)))
            return true
        } catch {
            run.finish(.failure(error))
            return false
        }
    }

    /// One statement on a lane's connection (made again first if it was
    /// lost; watched when a statement time limit is set).
    func execute(_ call: PreparedCall, on link: PostgreSQLLink) async throws(QueryError) -> [PostgresRow] {
        let (key, bindings) = (call.key, call.bindings)
        let logger = self.logger
        let connection = try await link.connection()
        let dog = watchdogLimit.map { link.watch(connection, for: $0) }
        defer { dog?.stop() }
        do {
            guard let name = preparedNames.name(for: key) else {
                var rows: [PostgresRow] = []
                for try await row in try await connection.query(PostgresQuery(unsafeSQL: call.sql, binds: bindings), logger: logger) { rows.append(row) }
                return rows
            }
            return try await RuntimeStatement.$current.withValue(call.text(name: name)) {
                var rows: [PostgresRow] = []
                for try await row in try await connection.execute(RuntimeStatement(bindings: bindings), logger: logger) { rows.append(row) }
                return rows
            }
        } catch {
            preparedNames.forget(key)
            if let dog, dog.fired, let limit = watchdogLimit {
                throw QueryError(.data, "postgres: no answer from PostgreSQL within \(limit.nanoseconds / 1_000_000) ms (statement timeout): the connection was closed")
            }
            throw link.failure(error, on: connection)
        }
    }
}

/// A statement waiting for its rows (``PostgreSQLReadConnection/rows(_:_:)``).
final class WaitingRun: @unchecked Sendable {
    let call: PreparedCall
    let arguments: [Value]
    /// Set before the run is queued, resumed once: by the lane that ran it,
    /// or by ``timer`` at the request's deadline, whichever comes first.
    var continuation: CheckedContinuation<Result<[PostgresRow], QueryError>, Never>?
    var timer: Scheduled<Void>?
    private let lock = NSLock()

    init(call: PreparedCall, arguments: [Value]) {
        self.call = call
        self.arguments = arguments
    }

    func finish(_ result: Result<[PostgresRow], QueryError>) {
        lock.lock()
        let k = continuation
        continuation = nil
        lock.unlock()
        k?.resume(returning: result)
    }
}

/// ``PostgreSQLReadConnection``'s lanes and waiting runs, behind a lock.
///
/// Work converges on as few lanes as keep up: a run takes an idle lane only
/// when no lane is busy, or every busy one has been busy ``stuckAfter`` or
/// longer (a slow statement, or a batch of heavy ones: then more lanes run
/// in parallel); otherwise it waits for the next batch. A lane that finishes
/// while a lower one is busy and not stuck rests. A timer armed while runs
/// wait and a lane is idle makes sure a stuck lane never holds them longer
/// than ``stuckAfter``.
///
/// Why: more lanes than event loops make smaller batches and more
/// PostgreSQL backends competing for the same cores.
final class LaneQueue: @unchecked Sendable {
    /// A lane takes at most this many waiting runs as one batch.
    static let batchLimit = 256
    /// A lane busy this long (nanoseconds) is stuck: waiting runs may take another.
    static let stuckAfter: UInt64 = 20_000_000
    /// When each lane's batch started (uptime nanoseconds), nil when idle.
    private var busySince: [UInt64?]
    private var waiting: [WaitingRun] = []
    private var timerArmed = false
    private var coalescedRuns = 0, coalescedStatements = 0, failedStatements = 0, failedWhereAloneAnswered = 0
    private let lock = NSLock()

    init(lanes: Int) { busySince = Array(repeating: nil, count: lanes) }

    enum Submission {
        /// Run it now on this lane (now busy).
        case run(lane: Int)
        /// It waits; `armTimer`: the caller arms the spill timer (``spill(now:)``).
        case queued(armTimer: Bool)
    }

    func submit(_ run: WaitingRun, now: UInt64) -> Submission {
        lock.lock()
        defer { lock.unlock() }
        if let lane = idleLaneIfAllBusyAreStuck(now: now) {
            busySince[lane] = now
            return .run(lane: lane)
        }
        waiting.append(run)
        return .queued(armTimer: armTimerIfNeeded())
    }

    /// The lane's next batch (oldest first), or nil: the lane rests.
    func next(lane: Int, now: UInt64) -> (batch: [WaitingRun]?, armTimer: Bool) {
        lock.lock()
        defer { lock.unlock() }
        busySince[lane] = nil
        if waiting.isEmpty { return (nil, false) }
        // A lower lane that keeps up will take them.
        for other in 0..<lane {
            if let since = busySince[other], now &- since < Self.stuckAfter { return (nil, armTimerIfNeeded()) }
        }
        busySince[lane] = now
        return (takeBatch(), false)
    }

    /// The timer's check: the waiting runs as a batch for an idle lane when
    /// every busy lane is stuck; else whether to check again later.
    func spill(now: UInt64) -> (start: (lane: Int, batch: [WaitingRun])?, armTimer: Bool) {
        lock.lock()
        defer { lock.unlock() }
        timerArmed = false
        guard !waiting.isEmpty else { return (nil, false) }
        guard let lane = idleLaneIfAllBusyAreStuck(now: now) else { return (nil, armTimerIfNeeded()) }
        busySince[lane] = now
        return ((lane, takeBatch()), false)
    }

    /// Whether the timer must be armed (runs wait, a lane is idle, none
    /// armed); if so, it counts as armed from now.
    private func armTimerIfNeeded() -> Bool {
        guard !timerArmed, !waiting.isEmpty, busySince.contains(where: { $0 == nil }) else { return false }
        timerArmed = true
        return true
    }

    private func idleLaneIfAllBusyAreStuck(now: UInt64) -> Int? {
        var idle: Int?
        for (lane, since) in busySince.enumerated() {
            if let since {
                if now &- since < Self.stuckAfter { return nil }
            } else if idle == nil {
                idle = lane
            }
        }
        return idle
    }

    private func takeBatch() -> [WaitingRun] {
        if waiting.count <= Self.batchLimit {
            defer { waiting = [] }
            return waiting
        }
        let batch = Array(waiting.prefix(Self.batchLimit))
        waiting.removeFirst(Self.batchLimit)
        return batch
    }

    enum Outcome {
        case coalesced(runs: Int)
        /// The coalesced statement failed, and so did a run alone.
        case failed
        /// The coalesced statement failed where each run alone answered
        /// (the answers are right; the coalescing was wasted).
        case failedWhereAloneAnswered
    }

    func count(_ outcome: Outcome) {
        lock.lock()
        switch outcome {
        case .coalesced(let runs): coalescedRuns += runs; coalescedStatements += 1
        case .failed: failedStatements += 1
        case .failedWhereAloneAnswered: failedStatements += 1; failedWhereAloneAnswered += 1
        }
        lock.unlock()
    }

    /// How many runs wait for a lane now.
    var waitingCount: Int {
        lock.lock()
        defer { lock.unlock() }
        return waiting.count
    }

    var coalescing: PostgreSQLReadConnection.Coalescing {
        lock.lock()
        defer { lock.unlock() }
        return .init(runs: coalescedRuns, statements: coalescedStatements, failed: failedStatements, failedWhereAloneAnswered: failedWhereAloneAnswered)
    }
}

/// ``CoalescedStatement/coalesced(_:types:shared:)`` of the statements a
/// connection ran lately, by key: the same few statements coalesce batch
/// after batch, and rewriting a page's 2 KB of SQL each time would cost
/// for nothing. Bounded as ``PreparedStatementNames`` is.
final class CoalescedStatements: @unchecked Sendable {
    private struct Shape: Hashable {
        var key: PreparedStatementNames.Key
        var shared: [Bool]
    }

    private var made: [Shape: (sql: String, types: [PostgresDataType])?] = [:]
    private let lock = NSLock()

    func coalesced(_ key: PreparedStatementNames.Key, types: [PostgresDataType], shared: [Bool]) -> (sql: String, types: [PostgresDataType])? {
        let shape = Shape(key: key, shared: shared)
        lock.lock()
        if let known = made[shape] {
            lock.unlock()
            return known
        }
        lock.unlock()
        let statement = CoalescedStatement.coalesced(key.sql, types: types, shared: shared)
        lock.lock()
        if made.count >= PreparedStatementNames.capacity { made.removeAll() }
        made[shape] = .some(statement)
        lock.unlock()
        return statement
    }
}
