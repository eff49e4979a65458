import CQLKit
import Foundation
import Logging
import NIOCore
import PostgresNIO

/// One PostgreSQL connection that `LISTEN`s on a channel, made again (and
/// listening again) whenever it is lost: a restart, `pg_terminate_backend`,
/// the network. It reconnects as the server's other connections do
/// (`PostgreSQLLink`'s backoff: 50 ms doubling to 1 s), and every
/// ``heartbeat`` seconds it asks `SELECT 1`, so that a connection that died
/// without a word (a silent network) is noticed and replaced too.
///
/// Notifications sent while no connection listens are lost (PostgreSQL
/// queues them only for listening sessions): each `onListening` call after
/// the first says that such a gap may have been.
///
/// ```swift
/// let listener = try PostgreSQLListener(url: "postgres://localhost/app", channel: "cql_livequery")
/// let task = Task {
///     await listener.run(onListening: { gap in print(gap ? "listening again" : "listening") },
///                        onNotification: { payload in print(payload) })
/// }
/// // ... later
/// task.cancel()
/// ```
public final class PostgreSQLListener: @unchecked Sendable {
    /// The channel (an identifier PostgreSQL lower-cases: letters, digits, `_`).
    public let channel: String
    /// Seconds between the `SELECT 1`s that prove the connection alive.
    public var heartbeat: Double = 5
    let link: PostgreSQLLink
    let logger: Logger
    /// The connection that listens now (what ``strings(_:)`` reads on).
    private let lock = NSLock()
    private var listening: PostgresConnection?

    /// Connects at once (blocking: call it off the event loops); a failure
    /// is thrown, as a database that cannot be opened. `applicationName`
    /// names its sessions in `pg_stat_activity`.
    public init(url: String, channel: String, applicationName: String = "cql-listen",
                logger: Logger = Logger(label: "cql.postgres")) throws(QueryError) {
        guard !channel.isEmpty, channel.allSatisfy({ $0.isASCII && ($0.isLowercase || $0.isNumber || $0 == "_") }) else {
            throw QueryError(.data, "a LISTEN channel is lower-case letters, digits and '_': '\(channel)'")
        }
        guard applicationName.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-" || $0 == "_") }) else {
            throw QueryError(.data, "an application name is letters, digits, '-' and '_': '\(applicationName)'")
        }
        self.channel = channel
        self.logger = logger
        link = try PostgreSQLLink(url: url, on: PostgresConnection.defaultEventLoopGroup.any(), id: 100, logger: logger)
        try link.addSetting("SET application_name = '\(applicationName)'")
    }

    /// Listens until the task is cancelled. `onListening(gap)` is called
    /// each time `LISTEN` is in effect on a connection, `gap` true after the
    /// first (notifications may have been missed in between);
    /// `onNotification` gets each payload in the order PostgreSQL delivers
    /// them (commit order), and may read on the listening connection
    /// (``strings(_:)``) before the next is delivered; what it throws
    /// ends the connection (it is made again).
    public func run(onListening: @escaping @Sendable (Bool) async -> Void,
                    onNotification: @escaping @Sendable (String) async throws -> Void) async {
        var listened = false
        while !Task.isCancelled {
            let connection: PostgresConnection
            do {
                connection = try await link.connection()
            } catch {
                try? await Task.sleep(nanoseconds: 100_000_000)
                continue
            }
            do {
                try await connection.listen(on: channel) { notifications in
                    lock.withLock { listening = connection }
                    await onListening(listened)
                    listened = true
                    try await withThrowingTaskGroup(of: Void.self) { group in
                        group.addTask { [self] in try await beat(connection) }
                        group.addTask {
                            for try await n in notifications { try await onNotification(n.payload) }
                        }
                        // Either ends only when the connection does (or on cancellation).
                        _ = try await group.next()
                        group.cancelAll()
                    }
                }
            } catch {
                if !Task.isCancelled {
                    _ = link.failure(error, on: connection)
                    try? await Task.sleep(nanoseconds: 100_000_000)
                }
            }
            lock.withLock { listening = nil }
            if Task.isCancelled { break }
            // Whether the stream ended or a statement failed, this connection
            // listens no more: the next one is made (and listens) afresh.
            if !connection.isClosed { link.lose(connection) }
            logger.warning("postgres: the LISTEN connection on '\(channel)' was lost; listening again")
        }
        await link.close()
    }

    /// `SELECT 1` every ``heartbeat`` seconds, bounded by a watchdog: throws
    /// (ending the listening) when the connection does not answer.
    private func beat(_ connection: PostgresConnection) async throws {
        let nanoseconds = UInt64(max(0.05, heartbeat) * 1e9)
        while true {
            try await Task.sleep(nanoseconds: nanoseconds)
            let dog = link.watch(connection, for: .seconds(3))
            defer { dog.stop() }
            for try await _ in try await connection.query("SELECT 1", logger: logger) {}
        }
    }

    /// The first column of `statement`'s rows, as text, read on the
    /// listening connection (from an `onNotification` handler: in order
    /// with the notifications). Arguments are bound, never in the SQL text.
    public func strings(_ statement: SQLStatement) async throws -> [String] {
        guard let connection = lock.withLock({ listening }) else {
            throw QueryError(.data, "postgres: \(DatabaseFailureText.lost) (the listening connection)")
        }
        let result = try await connection.query(statement.sql, PostgreSQLDatabase.binds(statement.arguments)).get()
        return result.rows.compactMap { $0.makeRandomAccess()[data: 0].string }
    }

    /// Whether `error` means the connection is gone (the listener then
    /// connects again).
    public static func meansLost(_ error: any Error) -> Bool { PostgreSQLLink.meansLost(error) }
}
