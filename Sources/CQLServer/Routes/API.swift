import CQLEval
import CQLKit
import Foundation

/// LeanCloud's REST storage API over a ``ServerStorage``: the routes, with no
/// HTTP in them, so that `/1.1/batch` runs its sub-requests through the very
/// same code as HTTP requests.
///
/// ```swift
/// let api = API(storage: try ServerStorage(.sqlite(path: "app.db")))
/// let r = try await api.handle(APIRequest(method: "GET", segments: ["date"], identity: Identity(isMaster: false)))
/// r.body   // {"__type":"Date","iso":"2026-11-27T13:00:00.000Z"}
/// ```
public struct API: Sendable {
    public let storage: ServerStorage
    /// How passwords are hashed (``Passwords/iterations``).
    public let passwords: Passwords
    /// Failed logins per account.
    public let throttle: LoginThrottle
    /// Where uploaded files' bytes live; nil: the file routes answer 404.
    public let files: FileStore?
    /// The app's cloud engine; nil: no cloud functions, no hooks.
    public let engine: CloudEngine?
    /// LiveQuery's subscriptions; nil: its routes answer 404.
    public let liveQuery: LiveQueryHub?
    /// Finds answered lately, kept prepared.
    let finds = PreparedFinds()
    /// Every class's class-level permissions, kept.
    let classPermissions = ClassPermissionsCache()
    /// The hooks and observers every write passes (``WritePipeline``).
    public var pipeline: WritePipeline
    /// With PostgreSQL: every write's changes sent to LiveQuery on every
    /// process, inside the write's transaction (``LiveQueryNotifications``).
    var liveQueryNotifications: LiveQueryNotifications?
    /// The instant a request's writes stamp as createdAt/updatedAt.
    var clock: @Sendable () -> DateValue = { DateValue.now }

    public init(storage: ServerStorage, passwords: Passwords = Passwords(), throttle: LoginThrottle = LoginThrottle(), files: FileStore? = nil,
                pipeline: WritePipeline = WritePipeline(), liveQuery: LiveQueryHub? = nil, engine: CloudEngine? = nil) {
        self.storage = storage
        self.pipeline = pipeline
        self.passwords = passwords
        self.throttle = throttle
        self.files = files
        self.engine = engine
        self.liveQuery = liveQuery
    }

    /// Answers one request; a failure is an ``APIError`` (code and status).
    public func handle(_ request: APIRequest) async throws(APIError) -> APIResponse {
        do {
            var request = request
            if request.grantees == nil { request.grantees = try await grantees(for: request.identity) }
            let routed = request
            return try await Self.$requestOrigin.withValue(request.origin) { try await route(routed) }
        } catch {
            throw Self.answer(to: error)
        }
    }

    /// Any error as the API answers it: an ``APIError`` as it is, a
    /// `QueryError` as ``APIError/from(_:cloudQuery:)`` words it, else 500.
    static func answer(to error: any Error) -> APIError {
        switch error {
        case let e as APIError: return e
        case let e as QueryError: return APIError.from(e)
        default: return APIError.internalError("\(error)")
        }
    }

    /// The upload a `PUT /uploads/<token>` may store, once: nil when the
    /// token is unknown, used or expired (in the database, so issued by any
    /// process serving it).
    func takeUpload(_ token: String) async throws(APIError) -> ServerStorage.Upload? {
        do { return try await storage.takeUpload(token) } catch { throw Self.answer(to: error) }
    }

    func route(_ r: APIRequest) async throws -> APIResponse {
        var s = r.segments
        // `/1.1/roles[/<id>]` is `/1.1/classes/_Role[/<id>]`.
        if s.first == "roles" && s.count <= 2 { s = ["classes", "_Role"] + s.dropFirst() }
        // `/1.1/classes/_user` is `_User`'s, sign-up included (``ClassNames``).
        if s.first == "classes" && s.count >= 2 { s[1] = ClassNames.canonical(s[1]) }
        var r = r
        // A find decodes its query string only when it makes its query
        // (``find(_:className:)``); every other route reads the parameters.
        let isFind = r.method == "GET" && ((s.first == "classes" && s.count == 2) || (s.first == "users" && s.count == 1))
        if !isFind {
            r.decodeQuery()
            try Self.checkParameterNames(r, segments: s)
        }
        try await checkRoutePermissions(r, segments: s)
        switch (r.method, s.first, s.count) {
        case ("POST", "classes", 2) where s[1] == "_User", ("POST", "users", 1): return try await signUp(r)
        case ("POST", "login", 1): return try await login(r)
        case ("GET", "users", 2) where s[1] == "me": return try await me(r)
        case ("PUT", "users", 3) where s[2] == "refreshSessionToken": return try await refreshSessionToken(r, userId: s[1])
        case ("PUT", "users", 3) where s[2] == "updatePassword": return try await updatePassword(r, userId: s[1])
        case ("GET", "users", 1): return try await find(r, className: "_User")
        case ("GET", "users", 2): return try await get(r, className: "_User", objectId: s[1])
        case ("PUT", "users", 2): return try await update(r, className: "_User", objectId: s[1])
        case ("DELETE", "users", 2): return try await delete(r, className: "_User", objectIds: s[1])
        case ("POST", "fileTokens", 1): return try await fileToken(r)
        case ("POST", "fileCallback", 1): return try await fileCallback(r)
        case ("POST", "files", 1): return try await externalFile(r)
        case ("GET", "files", 2): return try await get(r, className: "_File", objectId: s[1])
        case ("DELETE", "files", 2): return try await deleteFileRoute(r, objectId: s[1])
        case ("GET", "classes", 2): return try await find(r, className: try Self.className(s[1]))
        case ("POST", "classes", 2): return try await create(r, className: try Self.className(s[1]))
        case ("GET", "classes", 3): return try await get(r, className: try Self.className(s[1]), objectId: s[2])
        case ("PUT", "classes", 3): return try await update(r, className: try Self.className(s[1]), objectId: s[2])
        case ("DELETE", "classes", 3): return try await delete(r, className: try Self.className(s[1]), objectIds: s[2])
        case ("POST", "batch", 1): return try await batch(r)
        case ("GET", "cloudQuery", 1), ("POST", "cloudQuery", 1): return try await cloudQuery(r)
        case ("GET", "scan", 3) where s[1] == "classes": return try await scan(r, className: try Self.className(s[2]))
        case ("POST", "LiveQuery", 2) where s[1] == "subscribe": return try await liveQuerySubscribe(r)
        case ("POST", "LiveQuery", 2) where s[1] == "unsubscribe": return try liveQueryUnsubscribe(r)
        case ("POST", "LiveQuery", 3) where s[1] == "subscribe" && s[2] == "ping": return try liveQueryPing(r)
        case ("GET", "date", 1): return APIResponse(body: .date(clock()).restJSON)
        case ("GET", "functions", 3) where s[1] == "_ops" && s[2] == "metadatas", ("POST", "functions", 3) where s[1] == "_ops" && s[2] == "metadatas":
            return try await engineMetadata(r)
        case ("POST", "functions", 2), ("POST", "call", 2): return try await callFunction(r, name: s[1], rpc: s[0] == "call")
        case ("GET", "schemas", 1): return try await schemas(r, className: nil)
        case ("GET", "schemas", 2): return try await schemas(r, className: try Self.className(s[1]))
        case ("PUT", "schemas", 2): return try await setClassPermissions(r, className: try Self.className(s[1]))
        case ("GET", "schemas", 3) where s[2] == "permissions": return try await getClassPermissions(r, className: try Self.className(s[1]))
        default:
            throw APIError(status: 404, code: 404, "no such API: \(r.method) /1.1/\(s.joined(separator: "/"))")
        }
    }

    /// A class name as LeanCloud allows it: a letter or `_` first, then
    /// letters, digits and `_` (`_User`, `_Role`, `_File` are the system's).
    /// Anything else — `_Join:` tables above all — is not a class (103).
    static func className(_ name: String) throws(APIError) -> String {
        let bytes = Array(name.utf8)
        guard let first = bytes.first, bytes.count <= 128, first == UInt8(ascii: "_") || isLetter(first),
              bytes.allSatisfy({ isLetter($0) || ($0 >= 48 && $0 <= 57) || $0 == UInt8(ascii: "_") })
        else { throw APIError.invalidClassName("invalid class name '\(name)': a class name is a letter or '_' followed by letters, digits and '_'") }
        return ClassNames.canonical(name)
    }

    /// Keys of `_User` that no write through the class API or cloudQuery may
    /// set: the password and its salt (set, hashed, by the users API only:
    /// storing one written here would keep a password in clear) and the
    /// session token; the verification flags need the master key.
    static let protectedUserKeys = ["password", "salt", "sessionToken"], verifiedUserKeys = ["emailVerified", "mobilePhoneVerified"]

    /// 105 when a write names a protected `_User` key.
    /// Then the write's target (``checkUserTarget(_:identity:)``) and the
    /// keys its conditions read (`checkSecretKeys`).
    static func checkWritableKeys(_ statement: Statement, identity: Identity) throws(APIError) {
        try checkSecretKeys(statement)
        try checkFileKeys(statement, identity: identity)
        guard statement.className == "_User" else { return }
        var keys: [String] = []
        switch statement {
        case .insert(let s): keys = s.columns.map(\.name)
        case .update(let s): keys = s.assignments.map(\.key.name)
        // (No `return` here: a delete's target is checked below.)
        case .delete, .select: break
        }
        for key in keys where protectedUserKeys.contains(key) || (!identity.isMaster && verifiedUserKeys.contains(key)) {
            throw APIError(code: 105, "_User's '\(key)' cannot be written here\(protectedUserKeys.contains(key) ? "" : " without the master key")")
        }
        try checkUserTarget(statement, identity: identity)
    }

    /// Every class a query reads through a sub-query (`$inQuery`,
    /// `$select`, their negations) must be a class name too: a sub-query
    /// must not read a `_Join:` table or any table that is not a class.
    static func checkSubqueryClasses(_ c: Condition?) throws(APIError) {
        try c?.forEach(entering: .everything) { (node: Condition) throws(APIError) in
            switch node.outsideRead {
            case .subquery(let sub)?:
                _ = try className(sub.className)
            case .relation(.value(.pointer(let owner)), let key)?:
                _ = try className(owner.className)
                // The key names the join table: a key, not a path or a table name.
                guard !key.isEmpty, !key.contains(":"), !key.utf8.contains(0) else {
                    throw APIError.invalidQuery("$relatedTo: '\(key)' is not a key")
                }
            case .ownRelation(let owner, let key)?:
                // The server makes these of the caller's comparisons (ServerStorage.find); checked as `$relatedTo`'s are.
                _ = try className(owner)
                guard !key.isEmpty, !key.contains(":"), !key.utf8.contains(0) else { throw APIError.invalidQuery("'\(key)' is not a key") }
            case .relation?, nil: break
            }
        }
    }

    static func isLetter(_ b: UInt8) -> Bool { (b >= 65 && b <= 90) || (b >= 97 && b <= 122) }

    /// The master key, or 403 with code 119.
    static func requireMaster(_ r: APIRequest, _ what: String) throws(APIError) {
        if !r.identity.isMaster { throw APIError.masterKeyRequired(what) }
    }
}
