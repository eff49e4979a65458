import CQLKit
import NIOCore

/// The instant by which the current request's database work must end: one
/// per HTTP request, shared by everything it does (a batch's sub-requests,
/// each statement, the waits for a connection, a lane or the write lock).
///
/// A task-local value: a server binds it around a request
/// (`RequestDeadline.$current.withValue(...)`); the event-loop reads
/// (``PostgreSQLReadConnection``) read it where they wait; the blocking
/// paths get it handed over with their work (a thread of a pool does not
/// inherit task-locals). Nil: no deadline (the `cql` command, tests).
public enum RequestDeadline {
    @TaskLocal public static var current: NIODeadline?

    /// The error of work stopped at its deadline, worded as PostgreSQL's
    /// own statement timeout is (a server answers both 503 with code 124).
    public static func exceeded(_ what: String) -> QueryError {
        QueryError(.data, "postgres: \(what): the request's time limit was reached (statement timeout)")
    }
}
