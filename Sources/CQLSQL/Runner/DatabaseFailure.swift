import CQLKit

/// Why a database call failed when the cause is the database's or its
/// host's, not the request's: what a server answers 503 (try again) or 500
/// (the server's fault) for, where the request's own mistakes are 400.
///
/// Read from a `QueryError`'s message (`QueryError.databaseFailure`),
/// which the SQLite and PostgreSQL paths word for it: SQLite's own phrases
/// ("database is locked", "database or disk is full", "disk I/O error"),
/// PostgreSQL's SQLSTATE (appended as `(SQLSTATE 53100)` for the classes
/// below), and this library's wording for a lost or unreachable
/// PostgreSQL (`PostgreSQLLink`).
public enum DatabaseFailure: Sendable, Equatable {
    /// The connection was lost before the work was committed (PostgreSQL
    /// restarted, the backend was terminated): nothing of it was applied,
    /// and it may run again on a new connection.
    case connectionLost
    /// The connection was lost while COMMIT was under way: whether the
    /// write was applied is unknown.
    case commitOutcomeUnknown
    /// The database cannot be reached now (refused, starting up, shutting
    /// down, too many connections); the connection is made again by itself.
    case unavailable
    /// A lock was not obtained in time (SQLite's busy timeout), or the
    /// database gave up on a conflict (a deadlock, a serialization failure).
    case busy
    /// The host failed: disk full, an I/O error, out of memory, a damaged file.
    case resources
}

extension QueryError {
    /// The database-side cause of this error, nil when it is the request's
    /// (or not a database error at all).
    public var databaseFailure: DatabaseFailure? {
        guard kind == .data else { return nil }
        let m = message
        if m.hasPrefix("postgres: ") || m.hasPrefix("postgres://") || m.hasPrefix("postgresql://") {
            if m.contains(DatabaseFailureText.lostDuringCommit) { return .commitOutcomeUnknown }
            if m.contains(DatabaseFailureText.lost) { return .connectionLost }
            if m.contains(DatabaseFailureText.unavailable) { return .unavailable }
            guard let r = m.range(of: "(SQLSTATE ", options: .backwards) else { return nil }
            let state = String(m[r.upperBound...].prefix(5))
            return DatabaseFailureText.failure(sqlState: state)
        }
        if m.hasPrefix("sqlite: ") {
            for (phrase, failure) in DatabaseFailureText.sqlitePhrases where m.contains(phrase) { return failure }
        }
        return nil
    }
}

/// The wording ``QueryError/databaseFailure`` reads.
enum DatabaseFailureText {
    static let lost = "the connection to PostgreSQL was lost"
    static let lostDuringCommit = "the connection to PostgreSQL was lost during COMMIT"
    static let unavailable = "PostgreSQL is unavailable"

    /// SQLite's messages (`sqlite3_errstr`) for the result codes that are
    /// not the request's fault.
    static let sqlitePhrases: [(String, DatabaseFailure)] = [
        ("database is locked", .busy),  // SQLITE_BUSY
        ("database table is locked", .busy),  // SQLITE_LOCKED
        ("database or disk is full", .resources),  // SQLITE_FULL
        ("disk I/O error", .resources),  // SQLITE_IOERR
        ("out of memory", .resources),  // SQLITE_NOMEM
        ("database disk image is malformed", .resources),  // SQLITE_CORRUPT
        ("unable to open database file", .resources),  // SQLITE_CANTOPEN
        ("attempt to write a readonly database", .resources),  // SQLITE_READONLY
    ]

    /// The SQLSTATEs whose errors say so in their message (see
    /// ``PostgreSQLDatabase/queryError(_:)``), and what they mean.
    static func failure(sqlState s: String) -> DatabaseFailure? {
        if s == "53300" { return .unavailable }  // too_many_connections
        if s.hasPrefix("53") || s.hasPrefix("58") || s.hasPrefix("XX") { return .resources }  // disk_full, out_of_memory, io_error, internal
        if s == "40001" || s == "40P01" || s == "55P03" { return .busy }  // serialization_failure, deadlock_detected, lock_not_available
        if s.hasPrefix("08") || s == "57P01" || s == "57P02" || s == "57P03" { return .connectionLost }
        return nil
    }

    /// Whether a PostgreSQL error's SQLSTATE is one ``failure(sqlState:)`` reads.
    static func isMarked(sqlState s: String) -> Bool { failure(sqlState: s) != nil }
}
