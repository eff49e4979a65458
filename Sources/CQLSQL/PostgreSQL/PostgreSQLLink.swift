import CQLKit
import Foundation
import Logging
import NIOCore
import PostgresNIO

/// One PostgreSQL connection that is made again when it is lost: what
/// ``PostgreSQLDatabase`` (the blocking path: a server's writer and
/// readers, the `cql` command) and each lane of a
/// ``PostgreSQLReadConnection`` (a server's event-loop reads) run their
/// statements on.
///
/// A connection is lost when PostgreSQL closes it (a restart, fast or
/// immediate, a crash, `pg_terminate_backend`), when the network fails, or
/// when a statement outlives its watchdog (``watch(_:for:)``: PostgreSQL
/// does not answer at all). The next user then connects again, and runs the
/// connection's settings (``settings``: `statement_timeout`,
/// `plan_cache_mode`) on it first. While PostgreSQL cannot be reached, at
/// most one attempt is made per backoff period — 50 ms after the first
/// failure, doubling up to 1 s — and a user between attempts fails at once
/// with "PostgreSQL is unavailable" (``DatabaseFailure/unavailable``): a
/// server answers 503 at once rather than piling requests on a dead
/// database, and is connected again within a second of PostgreSQL's
/// return, with no one's intervention. A connection attempt is bounded
/// (``connectTimeout``), so a port that swallows packets cannot hang it.
///
/// Not shared: one user at a time (a blocking database's one caller, a
/// lane's one batch); the lock only makes the watchdog and the closing
/// safe.
final class PostgreSQLLink: @unchecked Sendable {
    private(set) var configuration: PostgresConnection.Configuration
    let eventLoop: any EventLoop
    let id: Int
    let logger: Logger
    /// Statements run on every new connection before anything else
    /// (``addSetting(_:)``).
    private(set) var settings: [String] = []

    private let lock = NSLock()
    private var current: PostgresConnection?
    /// Connection attempts that failed in a row, and when the next may be made.
    private var failures = 0
    private var retryAt = NIODeadline.uptimeNanoseconds(0)
    private var lastFailure = ""
    private var closed = false
    private var connecting = false
    /// Connections made, the first one included: a user that began on one
    /// (a transaction) can tell it was replaced.
    private(set) var generation = 0

    /// The first retry after a failed attempt, and the longest wait between attempts.
    static let firstBackoff: Int64 = 50_000_000, longestBackoff: Int64 = 1_000_000_000
    /// The longest a connection attempt (TCP, start-up, authentication) may take.
    static let connectTimeout = TimeAmount.seconds(3)

    /// Connects at once (blocking: call it off the event loops); a failure
    /// is thrown ("cannot connect"), as a database that cannot be opened.
    init(url: String, on eventLoop: any EventLoop, id: Int, logger: Logger) throws(QueryError) {
        var configuration = try PostgreSQLDatabase.configuration(url: url)
        configuration.options.connectTimeout = Self.connectTimeout
        self.configuration = configuration
        self.eventLoop = eventLoop
        self.id = id
        self.logger = logger
        do {
            current = try PostgresConnection.connect(on: eventLoop, configuration: configuration, id: id, logger: logger).wait()
            generation = 1
        } catch {
            throw QueryError(.data, "\(url): cannot connect: \(PostgreSQLDatabase.message(error))")
        }
    }

    /// Bounds a connection attempt by a statement time limit (at most
    /// ``connectTimeout``, at least half a second): a request that finds its
    /// connection lost is answered within about its own limit.
    func limitConnecting(to limit: TimeAmount) {
        configuration.options.connectTimeout = max(.milliseconds(500), min(Self.connectTimeout, limit))
    }

    /// Runs `sql` on the connection now and on every connection made later
    /// (at set-up, before the connection is used).
    func addSetting(_ sql: String) throws(QueryError) {
        settings.append(sql)
        let c = try connection()
        do {
            _ = try c.query(PostgresQuery(unsafeSQL: sql), logger: logger).wait()
        } catch {
            throw failure(error, on: c)
        }
    }

    /// The connection, made again first when it was lost (blocking).
    /// `reconnecting` false: a lost connection fails instead (a transaction
    /// begun on it cannot go on on another). `deadline`: the request's; an
    /// attempt to connect ends by it.
    func connection(reconnecting: Bool = true, before deadline: NIODeadline? = nil) throws(QueryError) -> PostgresConnection {
        switch take(reconnecting: reconnecting) {
        case .connected(let c): return c
        case .failed(let e): throw e
        case .attempt:
            do {
                return connected(try makeConnection(before: deadline).wait())
            } catch {
                throw attemptFailed(error)
            }
        }
    }

    /// ``connection(reconnecting:before:)`` without blocking a thread (a lane's batch).
    func connection() async throws(QueryError) -> PostgresConnection {
        switch take(reconnecting: true) {
        case .connected(let c): return c
        case .failed(let e): throw e
        case .attempt:
            do {
                return connected(try await makeConnection(before: nil).get())
            } catch {
                throw attemptFailed(error)
            }
        }
    }

    /// A new connection with ``settings`` run on it, or a failure within
    /// the connect timeout (or by `deadline`), whatever PostgreSQL does: a
    /// host that takes the TCP connection and never answers the start-up
    /// cannot hold the caller (postgres-nio's own timeout covers only
    /// part of the start-up). A connection that comes too late is closed.
    private func makeConnection(before deadline: NIODeadline?) -> EventLoopFuture<PostgresConnection> {
        let loop = eventLoop, logger = self.logger, settings = self.settings
        let limit = deadline.map { max(.milliseconds(1), min(configuration.options.connectTimeout, $0 - .now())) } ?? configuration.options.connectTimeout
        let promise = loop.makePromise(of: PostgresConnection.self)
        let attempt = PostgresConnection.connect(on: loop, configuration: configuration, id: id, logger: logger).flatMap { c in
            settings.reduce(loop.makeSucceededVoidFuture()) { done, sql in
                done.flatMap { c.query(PostgresQuery(unsafeSQL: sql), logger: logger).map { _ in } }
            }.map { c }.flatMapErrorThrowing { error in
                Self.discard(c)
                throw error
            }
        }
        // Both callbacks run on `loop`: the flag needs no lock.
        let outcome = AttemptOutcome()
        let timer = loop.scheduleTask(in: limit) {
            guard !outcome.settled else { return }
            outcome.settled = true
            promise.fail(ConnectTimedOut(milliseconds: limit.nanoseconds / 1_000_000))
        }
        attempt.whenComplete { result in
            timer.cancel()
            guard !outcome.settled else {
                if case .success(let c) = result { Self.discard(c) }
                return
            }
            outcome.settled = true
            promise.completeWith(result)
        }
        return promise.futureResult
    }

    private final class AttemptOutcome: @unchecked Sendable {
        var settled = false
    }

    struct ConnectTimedOut: Error, CustomStringConvertible {
        var milliseconds: Int64
        var description: String { "no answer within \(milliseconds) ms while connecting" }
    }

    private enum Taken {
        case connected(PostgresConnection)
        case attempt
        case failed(QueryError)
    }

    private func take(reconnecting: Bool) -> Taken {
        lock.lock()
        defer { lock.unlock() }
        if let c = current {
            if !c.isClosed { return .connected(c) }
            current = nil
            Self.discard(c)
        }
        if closed { return .failed(QueryError(.data, "postgres: \(DatabaseFailureText.unavailable): the connection is closed")) }
        if !reconnecting {
            return .failed(QueryError(.data, "postgres: \(DatabaseFailureText.lost) (during a transaction): the work was not committed"))
        }
        if connecting {
            return .failed(QueryError(.data, "postgres: \(DatabaseFailureText.unavailable) (connecting again)"))
        }
        let now = NIODeadline.now()
        if now < retryAt {
            let wait = Double((retryAt - now).nanoseconds) / 1e9
            return .failed(QueryError(.data, "postgres: \(DatabaseFailureText.unavailable) (\(lastFailure)); "
                + "the server connects again by itself, next attempt in \(String(format: "%.2f", wait)) s"))
        }
        connecting = true
        return .attempt
    }

    private func connected(_ c: PostgresConnection) -> PostgresConnection {
        lock.lock()
        defer { lock.unlock() }
        connecting = false
        if closed {
            Self.discard(c)
            return c
        }
        logger.notice("postgres: connection \(id) made again (after \(failures) failed attempts)")
        current = c
        failures = 0
        retryAt = .uptimeNanoseconds(0)
        generation += 1
        return c
    }

    private func attemptFailed(_ error: any Error) -> QueryError {
        lock.lock()
        defer { lock.unlock() }
        connecting = false
        failures += 1
        let backoff = min(Self.longestBackoff, Self.firstBackoff << Int64(min(failures - 1, 20)))
        retryAt = .now() + .nanoseconds(backoff)
        lastFailure = "cannot connect: " + PostgreSQLDatabase.message(error)
        return QueryError(.data, "postgres: \(DatabaseFailureText.unavailable) (\(lastFailure)); the server connects again by itself")
    }

    /// The error a statement on `connection` failed with, as this library
    /// words it; when it means the connection is gone (closed, reset, the
    /// backend terminated or shut down), the connection is dropped first, so
    /// that the next user makes a new one, and the error says it was lost
    /// (``DatabaseFailure/connectionLost``).
    func failure(_ error: any Error, on connection: PostgresConnection) -> QueryError {
        if let e = error as? QueryError { return e }
        guard Self.meansLost(error) || connection.isClosed else { return PostgreSQLDatabase.queryError(error) }
        lock.lock()
        let wasCurrent = current === connection
        lock.unlock()
        if wasCurrent {
            logger.warning("postgres: connection \(id) lost: \(PostgreSQLDatabase.message(error))")
        }
        lose(connection)
        return QueryError(.data, "postgres: \(DatabaseFailureText.lost) (\(PostgreSQLDatabase.message(error))): the work was not committed")
    }

    static func meansLost(_ error: any Error) -> Bool {
        if let e = error as? PSQLError {
            switch e.code {
            case .serverClosedConnection, .clientClosedConnection, .connectionError, .uncleanShutdown, .messageDecodingFailure,
                 .unexpectedBackendMessage:
                return true
            default:
                if let state = e.serverInfo?[.sqlState] { return state.hasPrefix("08") || state.hasPrefix("57P") }
                return false
            }
        }
        // The EventLoopFuture API throws the legacy error type.
        if let e = error as? PostgresError {
            switch e {
            case .server(let m): return m.fields[.sqlState].map { $0.hasPrefix("08") || $0.hasPrefix("57P") } ?? false
            case .connectionClosed: return true
            default: return false
            }
        }
        if error is ChannelError || error is IOError { return true }
        return false
    }

    /// Drops `connection` (when it is still the current one) and closes it.
    func lose(_ connection: PostgresConnection) {
        lock.lock()
        if current === connection { current = nil }
        lock.unlock()
        Self.discard(connection)
    }

    /// Closes the connection if the work begun now has not ended
    /// (``Watchdog/stop()``) within `limit`: its statements then fail, and
    /// the connection is made again next time. What bounds a statement
    /// that PostgreSQL never answers (its host stopped, the network
    /// dropping packets), where `statement_timeout` cannot help.
    ///
    /// `release`: frees the waiting caller (fails the promise it waits on).
    /// postgres-nio never answers a statement written to a connection in
    /// the instant it closes (the write to the closed channel is dropped),
    /// so closing alone cannot end that wait.
    func watch(_ connection: PostgresConnection, for limit: TimeAmount, release: (@Sendable () -> Void)? = nil) -> Watchdog {
        let dog = Watchdog()
        dog.task = connection.eventLoop.scheduleTask(in: limit) { [weak self, weak dog] in
            dog?.fired = true
            self?.logger.warning("postgres: connection \(connection.id) gave no answer within \(limit.nanoseconds / 1_000_000) ms: closed")
            self?.lose(connection)
            release?()
        }
        return dog
    }

    /// What a released waiter fails with (see ``watch(_:for:release:)``).
    struct NoAnswer: Error, CustomStringConvertible {
        var description: String { "no answer from PostgreSQL in time" }
    }

    final class Watchdog: @unchecked Sendable {
        var task: Scheduled<Void>?
        /// Whether it closed the connection (read after the work ended).
        var fired = false
        func stop() { task?.cancel() }
    }

    /// Closes the connection for good (no attempt is made after).
    func close() {
        let c = closing()
        let _: Void? = try? c?.close().wait()
    }

    func close() async {
        let c = closing()
        let _: Void? = try? await c?.close().get()
    }

    private func closing() -> PostgresConnection? {
        lock.lock()
        defer { lock.unlock() }
        closed = true
        let c = current
        current = nil
        return c
    }

    /// Closes a connection without waiting (a lost one, one made too late),
    /// holding it until closed (postgres-nio requires a connection closed
    /// before it is let go of).
    static func discard(_ c: PostgresConnection) {
        let closed: EventLoopFuture<Void> = c.close()
        closed.whenComplete { _ in withExtendedLifetime(c) {} }
    }

    /// Closes the connection now, as a lost one is (tests: a connection
    /// that died without the server noticing).
    func dropForTesting() {
        lock.lock()
        let c = current
        lock.unlock()
        if let c { lose(c) }
    }
}
