import CQLKit
import CQLSQL
import Foundation

/// The login throttle's state (``LoginThrottle``) in the database
/// (CQLSQL's `LoginFailureRows`), so that every process serving it counts
/// one account's failures together: three failures through one process
/// and two through another lock the account (at 5) for both.
///
/// A failure is counted in one write transaction (read the account's row,
/// apply the rule, write the row back, prune the expired rows), which the
/// writers of every process take in turn; a success deletes the row.
///
/// ```swift
/// let t = LoginThrottle(limit: 2)
/// try await storage.recordLoginFailure("u1", throttle: t)
/// try await storage.recordLoginFailure("u1", throttle: t)
/// t.isLocked(try await storage.loginState("u1", throttle: t), at: t.now())   // true
/// ```
extension ServerStorage {
    /// The account's state now (empty when it has none, or none unexpired).
    func loginState(_ account: String, throttle: LoginThrottle) async throws -> LoginThrottle.State {
        let now = throttle.now()
        let docs = try await read { db throws(QueryError) in
            try db.documents(try LoginFailureRows.state(of: account, now: now, dialect: db.dialect))
        }
        return try Self.loginState(docs)
    }

    /// The state of the row read (none: empty).
    static func loginState(_ docs: [String]) throws(QueryError) -> LoginThrottle.State {
        guard let json = docs.first else { return LoginThrottle.State() }
        return try LoginThrottle.State(json: json)
    }

    /// One more failed login of `account`, counted atomically with every
    /// other process's; expired rows are pruned in the same transaction.
    func recordLoginFailure(_ account: String, throttle: LoginThrottle) async throws {
        try await exclusiveWrite { session throws(QueryError) in
            let now = throttle.now(), dialect = session.dialect
            let docs = try session.documents(try LoginFailureRows.state(of: account, now: now, dialect: dialect))
            let next = throttle.failing(try Self.loginState(docs), at: now)
            try session.execute(try LoginFailureRows.prune(now: now, dialect: dialect))
            try session.execute(try LoginFailureRows.save(account, doc: next.json, expires: throttle.expiry(of: next), dialect: dialect))
        }
    }

    /// A successful login of `account`: its failures are forgotten.
    func recordLoginSuccess(_ account: String) async throws {
        try await exclusiveWrite { session throws(QueryError) in
            _ = try session.execute(try LoginFailureRows.delete(account, dialect: session.dialect))
        }
    }
}
