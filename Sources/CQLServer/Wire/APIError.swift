import CQLKit
import CQLSQL

/// An error as LeanCloud's clients read it: an HTTP status and the body
/// `{"code":N,"error":"message"}`.
///
/// The codes are LeanCloud's (which are Parse's): clients act on them (an
/// SDK turns 101 into "does not exist", 305 into a failed conditional save).
///
/// ```swift
/// APIError.from(QueryError(.syntax, "unexpected ')'", range: SourceRange(7, 8), source: "select )"),
///               cloudQuery: true)
/// // 400 {"code":300,"error":"CQL syntax error. Detail: 1:8: unexpected ')'"}
/// ```
public struct APIError: Error, Sendable, Equatable {
    /// The HTTP status.
    public var status: Int
    /// LeanCloud's error code.
    public var code: Int
    public var message: String

    public init(status: Int = 400, code: Int, _ message: String) {
        self.status = status
        self.code = code
        self.message = message
    }

    /// `{"code":N,"error":"message"}`.
    public var body: Value { .object(["code": .int(Int64(code)), "error": .string(message)]) }

    // The codes clients act on (Server.md, "Errors"), with their statuses.
    static func internalError(_ m: String = "internal server error") -> APIError { APIError(status: 500, code: 1, m) }
    static func notFound(_ m: String) -> APIError { APIError(status: 404, code: 101, m) }
    static func invalidQuery(_ m: String) -> APIError { APIError(code: 102, m) }
    static func invalidClassName(_ m: String) -> APIError { APIError(code: 103, m) }
    static func malformedJSON(_ m: String) -> APIError { APIError(code: 107, m) }
    static func masterKeyRequired(_ what: String) -> APIError {
        APIError(status: 403, code: 119, "\(what) needs the master key")
    }
    /// A write the object's ACL does not grant the caller (who may read it).
    static func forbidden(_ verb: String, _ className: String, _ objectId: String) -> APIError {
        APIError(status: 403, code: 403, "Forbidden to \(verb) \(className) '\(objectId)': its ACL does not grant write to this session")
    }
    static let unauthorized = APIError(status: 401, code: 401, "Unauthorized.")
    static func tooLarge(_ limit: Int) -> APIError {
        APIError(status: 413, code: 116, "the request body is larger than the limit of \(limit) bytes")
    }
    static func timeout(_ seconds: Double) -> APIError {
        APIError(status: 503, code: 124, "the request took longer than the limit of \(seconds) s and was stopped")
    }
    /// The database cannot be reached (PostgreSQL restarting or down): 503
    /// with LeanCloud's code 100, "the connection failed" — the request may
    /// be sent again; the server connects again by itself.
    static func unavailable(_ m: String) -> APIError { APIError(status: 503, code: 100, "the database is unavailable, retry later: " + m) }

    /// A failure of the database or its host (``DatabaseFailure``) as the
    /// API answers it: 503 when trying again later may succeed (100: the
    /// database cannot be reached; 124: a lock not obtained in time), 500
    /// with code 1 when the server's host failed (disk full, I/O) or a
    /// write's outcome is unknown; nil for any other error.
    static func serverSide(_ error: QueryError) -> APIError? {
        switch error.databaseFailure {
        case .connectionLost?, .unavailable?: return unavailable(error.message)
        case .busy?: return APIError(status: 503, code: 124, "the database is busy, retry later: " + error.message)
        case .commitOutcomeUnknown?, .resources?: return internalError(error.message)
        case nil: return nil
        }
    }

    /// A query or write error as the API reports it: the position (line and
    /// column) and the JSON path stay in the message, as the CLI shows them.
    ///
    /// - Parameter cloudQuery: a CQL text was read (`/1.1/cloudQuery`): a
    ///   syntax error is code 300, `CQL syntax error. Detail: ...`.
    static func from(_ error: QueryError, cloudQuery: Bool = false) -> APIError {
        if let failure = serverSide(error) { return failure }
        if let code = error.restCode {
            return APIError(status: code == 101 ? 404 : 400, code: code, error.message)
        }
        let positioned = error.shortDescription
        if cloudQuery && (error.kind == .syntax || error.kind == .binding) {
            return APIError(code: 300, "CQL syntax error. Detail: " + positioned)
        }
        switch error.kind {
        case .syntax where error.message.contains("JSON"):
            return malformedJSON(positioned)
        case .limit:
            return APIError(code: 154, positioned)
        case .data:
            return APIError(code: 1, positioned)
        default:
            return invalidQuery(positioned)
        }
    }
}
