import CQLKit
import CQLSQL
import Foundation

/// The one-time tokens of file uploads (``FileStore``) in the database
/// (CQLSQL's `UploadTokenRows`), so that a token issued by one process is
/// honoured by every other serving the database: `POST /1.1/fileTokens`
/// through A, the bytes `PUT` through B, the callback through either.
/// Stored as their SHA-256 (as session tokens are), valid for
/// ``FileStore/uploadLifetime`` seconds; taking the bytes and finishing
/// are each one statement, so of two requests racing on one token exactly
/// one wins.
///
/// ```swift
/// let token = try await storage.registerUpload(fileId: "f1", key: key, lifetime: 3600)
/// try await storage.takeUpload(token)?.key     // key (a second take: nil)
/// try await storage.finishUpload(token)?.key   // key (a second finish: nil)
/// ```
extension ServerStorage {
    /// What a token allows: the bytes of `key`, for the `_File` `fileId`.
    struct Upload: Equatable, Sendable {
        var fileId: String
        var key: String
    }

    /// Milliseconds since 1970.
    static func milliseconds() -> Int64 { Int64((Date().timeIntervalSince1970 * 1000).rounded(.down)) }

    /// A one-time token for uploading the bytes of `fileId` (expired tokens
    /// are pruned in the same transaction).
    func registerUpload(fileId: String, key: String, lifetime: Double) async throws -> String {
        let token = AppKeys.random(32), hash = Self.sessionHash(token)
        let doc = JSONWriter.string(.object(["fileId": .string(fileId), "key": .string(key)]))
        try await exclusiveWrite { session throws(QueryError) in
            let now = Self.milliseconds(), dialect = session.dialect
            try session.execute(try UploadTokenRows.prune(now: now, dialect: dialect))
            try session.execute(try UploadTokenRows.insert(hash: hash, doc: doc, expires: now + Int64(lifetime * 1000), dialect: dialect))
        }
        return token
    }

    /// The upload a token allows, once: nil when unknown, used or expired.
    func takeUpload(_ token: String) async throws -> Upload? {
        let hash = Self.sessionHash(token)
        return try await oneUpload { dialect throws(QueryError) in try UploadTokenRows.take(hash: hash, now: Self.milliseconds(), dialect: dialect) }
    }

    /// The upload a callback names, which ends the token: nil when unknown
    /// or already finished.
    func finishUpload(_ token: String) async throws -> Upload? {
        let hash = Self.sessionHash(token)
        return try await oneUpload { dialect throws(QueryError) in try UploadTokenRows.finish(hash: hash, dialect: dialect) }
    }

    /// The upload of the row `statement` changes and returns, if any.
    private func oneUpload(_ statement: @escaping @Sendable (SQLDialectName) throws(QueryError) -> SQLStatement) async throws -> Upload? {
        let docs = try await exclusiveWrite { session throws(QueryError) in try session.documents(try statement(session.dialect)) }
        guard let json = docs.first else { return nil }
        let doc = try JSONReader.parse(json)
        guard case .string(let fileId)? = doc["fileId"], case .string(let key)? = doc["key"] else {
            throw QueryError(.data, "\(UploadTokenRows.table): a row without fileId and key")
        }
        return Upload(fileId: fileId, key: key)
    }

    /// Creates the tables of the throttle and the upload tokens when
    /// missing (at start, in a write transaction: two processes starting
    /// at once do not race).
    func prepareStateTables() throws(QueryError) {
        try writer.db.inWriteTransaction { session throws(QueryError) in
            for statement in try LoginFailureRows.create(dialect: session.dialect) + UploadTokenRows.create(dialect: session.dialect) {
                try session.execute(statement)
            }
        }
    }
}
