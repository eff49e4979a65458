import CQLEval
import CQLKit
import CQLSQL
import Crypto
import Foundation

/// Session tokens: made from the system's CSPRNG, handed to the client
/// once, and stored only as their SHA-256, so a copy of the database holds
/// no token that logs anyone in.
///
/// The table `cql:sessions` has a class table's shape (`objectId` = the
/// token's hash in hex, `doc` = `{"objectId","user","createdAt"}`) so that
/// `cql load`, `cql index` and the migrations treat it like any table; its
/// name holds a `:`, which no class name may (``API/className(_:)``), so
/// neither the class API, cloudQuery, a sub-query nor an `include` can
/// reach it.
///
/// ```swift
/// let token = try await storage.newSession(for: "u1", now: .now)   // "Qm9...": 32 characters
/// try await storage.sessionUser(token)   // "u1"
/// try await storage.retireSessions(of: "u1")
/// try await storage.sessionUser(token)   // nil
/// ```
extension ServerStorage {
    static let sessionTable = "cql:sessions"

    /// A fresh token: 32 characters of 62 symbols (about 190 bits).
    static func newSessionToken() -> String { AppKeys.random(32) }

    /// The stored form of a token.
    static func sessionHash(_ token: String) -> String {
        SHA256.hash(data: Array(token.utf8)).map { String(format: "%02x", $0) }.joined()
    }

    /// Creates the sessions table when missing (at start).
    func prepareSessions() throws(QueryError) {
        try writer.db.inWriteTransaction { session throws(QueryError) in try session.createTable(Self.sessionTable) }
        knownTables.value.insert(Self.sessionTable)
    }

    /// Adds a session of `userId` inside a write transaction; returns its token.
    static func addSession(for userId: String, now: DateValue, in session: any SQLWriteSession) throws(QueryError) -> String {
        let token = newSessionToken(), hash = sessionHash(token)
        let doc: Value = .object(["objectId": .string(hash), "user": .string(userId), "createdAt": Value.date(now).restJSON])
        try session.insertObject(hash, json: JSONWriter.string(doc), into: sessionTable)
        return token
    }

    /// Deletes every session of `userId` inside a write transaction.
    static func deleteSessions(of userId: String, in session: any SQLWriteSession) throws(QueryError) {
        try session.execute(try SessionRows.deleteSessions(of: userId, table: sessionTable, dialect: session.dialect))
    }

    /// A new session of `userId`; with `retiringOthers`, the user's other
    /// sessions end in the same transaction (a token refresh, a new password).
    func newSession(for userId: String, now: DateValue, retiringOthers: Bool = false) async throws -> String {
        try await exclusiveWrite { session throws(QueryError) in
            if retiringOthers { try Self.deleteSessions(of: userId, in: session) }
            return try Self.addSession(for: userId, now: now, in: session)
        }
    }

    /// Ends every session of `userId` (a deleted user).
    func retireSessions(of userId: String) async throws {
        try await exclusiveWrite { session throws(QueryError) in try Self.deleteSessions(of: userId, in: session) }
    }

    /// The `_User` objectId a token belongs to, or nil.
    func sessionUser(_ token: String) async throws -> String? {
        let hash = Self.sessionHash(token)
        let docs = try await documents(try SessionRows.session(hash: hash, table: Self.sessionTable, dialect: dialect))
        guard let doc = docs.first, case .string(let user)? = try DataFiles.object(json: doc)["user"] else { return nil }
        return user
    }

    /// `body` in one write transaction on the writer, as ``write(_:now:readBack:)``.
    func exclusiveWrite<T: Sendable>(_ body: @escaping @Sendable (any SQLWriteSession) throws(QueryError) -> T) async throws -> T {
        try await onWriter { db throws(QueryError) in try db.inWriteTransaction(body) }
    }
}
