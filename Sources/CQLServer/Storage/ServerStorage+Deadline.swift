import CQLKit
import CQLSQL
import Foundation
import NIOCore

/// One deadline per request (``RequestDeadline``) on the storage's blocking
/// paths: the wait for a storage thread, for a reader connection and for
/// the write lock count against it, as its statements do (SQLite: the
/// progress handler's deadline; PostgreSQL: the connection's watchdog).
/// Past it the request is answered 503 with code 124.
extension ServerStorage {
    /// The current request's deadline, else one ``requestTimeout`` from now
    /// (a call made outside a request: the server's own set-up, tests).
    func currentDeadline() -> NIODeadline {
        RequestDeadline.current ?? .now() + Self.amount(requestTimeout)
    }

    static func amount(_ seconds: Double) -> TimeAmount { .nanoseconds(Int64((seconds * 1e9).rounded(.up))) }

    /// Throws 124 when `deadline` has passed (the work waited too long to start).
    func checkTime(_ deadline: NIODeadline) throws(APIError) {
        if NIODeadline.now() >= deadline { throw APIError.timeout(requestTimeout) }
    }

    /// `body` on the writer, the write lock held, on the storage's threads;
    /// the lock waited for until `deadline` at most.
    func onWriter<T: Sendable>(_ body: @escaping @Sendable (any SQLDatabaseWriter) throws(QueryError) -> T) async throws -> T {
        let deadline = currentDeadline()
        return try await writeThreads.runIfActive { [self] () throws -> T in
            try checkTime(deadline)
            guard writeLock.lock(before: Date(timeIntervalSinceNow: Double((deadline - .now()).nanoseconds) / 1e9)) else {
                throw APIError.timeout(requestTimeout)
            }
            defer { writeLock.unlock() }
            return try writer.timed(until: deadline, body)
        }
    }
}
