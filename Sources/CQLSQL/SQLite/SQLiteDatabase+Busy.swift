import Foundation
import GRDB

/// How a connection waits for a lock another connection or process holds
/// (SQLite's busy handler): as SQLite's own `sqlite3_busy_timeout` does —
/// sleeps of 1, 2, 5, 10, 15, 20, 25, 25, 25, 50, 50 and then 100 ms —
/// for at most ``SQLiteDatabase/lockWait`` seconds, and never past the
/// connection's deadline (``SQLiteDatabase/setDeadline(after:)``: a
/// server's request), so that a wait for the write lock counts against
/// the request's time limit. Past either, the statement fails with
/// SQLite's "database is locked" (``DatabaseFailure/busy``: a server
/// answers 503 with code 124).
///
/// The first wait of a statement calls ``SQLiteDatabase/lockWaitNotice``:
/// the `cql` command says on stderr that it waits, and for how long at most.
extension SQLiteDatabase {
    /// The longest a statement waits for a lock (seconds).
    public static let lockWait = 10.0

    /// Called when a statement of a connection to `path` starts waiting for
    /// a lock (the `cql` command prints it); nil: nothing said.
    nonisolated(unsafe) public static var lockWaitNotice: (@Sendable (_ path: String) -> Void)?

    static let busyDelays: [Int] = [1, 2, 5, 10, 15, 20, 25, 25, 25, 50, 50, 100]

    static func busyHandler(path: String, deadline: Deadline) -> Database.BusyCallback {
        { tries in
            if tries == 0 { SQLiteDatabase.lockWaitNotice?(path) }
            let delay = tries < busyDelays.count ? busyDelays[tries] : 100
            let slept = busyDelays.prefix(tries).reduce(0, +) + max(0, tries - busyDelays.count) * 100
            if Double(slept + delay) > lockWait * 1000 { return false }
            let now = DispatchTime.now().uptimeNanoseconds
            if deadline.nanoseconds != 0 && now &+ UInt64(delay) * 1_000_000 > deadline.nanoseconds { return false }
            usleep(UInt32(delay * 1000))
            return true
        }
    }
}
