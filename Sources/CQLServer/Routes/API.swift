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

    /// Every route, declared by the file that handles it (``APIRoute``).
    /// A new endpoint is a declaration in its resource's list; a new
    /// resource, its list here.
    static let routes = APIRouteTable([
        classRoutes, userRoutes, fileRoutes, batchRoutes, cloudQueryRoutes, scanRoutes, liveQueryRoutes, functionRoutes,
        schemaRoutes, classPermissionRoutes, dateRoutes,
    ])

    /// A request through its route: its parameters checked (a find's by
    /// the find), its class-level permission, then its handler; 404 when
    /// no route has its method and path.
    func route(_ r: APIRequest) async throws -> APIResponse {
        let s = APIRouteTable.normalized(r.segments)
        let match = r.route ?? Self.routes.match(method: r.method, segments: s)
        var r = r
        if case .readByHandler? = match?.route.parameters {} else {
            r.decodeQuery()
            try Self.checkParameterNames(r, match: match, segments: s)
        }
        guard let match else {
            throw APIError(status: 404, code: 404, "no such API: \(r.method) /1.1/\(s.joined(separator: "/"))")
        }
        try await checkRoutePermissions(r, match)
        return try await match.route.handler(self, r, match)
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
