import CQLEval
import CQLKit
import CQLSQL
import Foundation

/// `/1.1/users`, `/1.1/login`, `/1.1/users/me`, `refreshSessionToken` and
/// `updatePassword` (Server.md). `GET/PUT/DELETE /1.1/users/<id>` and
/// `GET /1.1/users` are the class API's on `_User` (with its guards:
/// ``checkUserTarget(_:identity:)``).
///
/// Sign-up (also `POST /1.1/classes/_User`, which is how the SDKs save a
/// new user) inserts the user and its first session in one write
/// transaction; the username, email and phone number are unique by the
/// database's own indexes (``ServerStorage/uniqueKeys``), on this path and
/// every other that sets them, so neither two sign-ups at once nor a rename
/// can take a used name. Login finds the user by the same comparison (NFC;
/// the email without ASCII case), and an unknown name costs the time of a
/// wrong password.
///
/// ```
/// POST /1.1/users {"username":"ann","password":"s3cret"}
/// → 201 {"createdAt":"2026-11-27T17:00:00.000Z","emailVerified":false,"mobilePhoneVerified":false,"objectId":"65f0...",
///        "sessionToken":"Jq4...","updatedAt":"2026-11-27T17:00:00.000Z","username":"ann"}
/// POST /1.1/login {"username":"ann","password":"wrong"}
/// → 400 {"code":210,"error":"The username and password mismatch."}
/// ```
extension API {
    /// The users API's routes (``routes``): sign-up, login, the caller's
    /// own user and session, and the class API on `_User`.
    static let userRoutes: [APIRoute] = [
        APIRoute("POST", "users", reads: writeFlags.union(["failOnNotExist"]), permission: .init(.create, of: "_User")) { api, r, _ in
            try await api.signUp(r)
        },
        APIRoute("POST", "classes/_User", reads: writeFlags.union(["failOnNotExist"]), permission: .init(.create, of: "_User")) { api, r, _ in
            try await api.signUp(r)
        },
        APIRoute("POST", "login", reads: ["username", "email", "mobilePhoneNumber", "password"]) { api, r, _ in try await api.login(r) },
        // `me` is the caller's own user; refreshSessionToken and updatePassword are its own session's.
        APIRoute("GET", "users/me", reads: ["session_token"]) { api, r, _ in try await api.me(r) },
        APIRoute("PUT", "users/:id/refreshSessionToken") { api, r, path in try await api.refreshSessionToken(r, userId: path["id"]) },
        APIRoute("PUT", "users/:id/updatePassword") { api, r, path in try await api.updatePassword(r, userId: path["id"]) },
        APIRoute("GET", "users", parameters: .readByHandler(findParameterNames), permission: .init(.find, of: "_User")) { api, r, _ in
            try await api.find(r, className: "_User")
        },
        APIRoute("GET", "users/:id", reads: getParameterNames, permission: .init(.get, of: "_User")) { api, r, path in
            try await api.get(r, className: "_User", objectId: path["id"])
        },
        APIRoute("PUT", "users/:id", reads: writeFlags.union(["where"]), permission: .init(.update, of: "_User")) { api, r, path in
            try await api.update(r, className: "_User", objectId: path["id"])
        },
        APIRoute("DELETE", "users/:id", reads: ["where"], permission: .init(.delete, of: "_User")) { api, r, path in
            try await api.delete(r, className: "_User", objectIds: path["id"])
        },
    ]

    static let invalidSession = APIError(code: 211, "Invalid session token.")
    static let noSuchUser = APIError(code: 211, "Could not find user.")
    static let passwordMismatch = APIError(code: 210, "The username and password mismatch.")
    static let tooManyAttempts = APIError(
        code: 219, "Too many failed login attempts for this account: try again later (15 minutes by default).")

    /// `POST /1.1/users`: 201 and the whole user as LeanCloud answered it
    /// (its keys, `updatedAt`, `emailVerified`/`mobilePhoneVerified`, the
    /// `sessionToken`; never the password). With `authData`: the anonymous
    /// or third-party login of ``authDataLogin(_:body:)``.
    func signUp(_ r: APIRequest) async throws -> APIResponse {
        let body = try CreateBody(try Self.objectBody(r))
        if let authData = body.values["authData"] { return try await authDataLogin(r, body: body, authData: authData) }
        guard case .string(let name)? = body.values["username"], !name.isEmpty else {
            throw APIError(code: 200, "Username is missing or empty.")
        }
        guard case .string(let password)? = body.values["password"], !password.isEmpty else {
            throw APIError(code: 201, "Password is missing or empty.")
        }
        return try await createUser(r, body: body, password: password)
    }

    /// Inserts a new user (its password hashed, `emailVerified` and
    /// `mobilePhoneVerified` false unless the master key sets them, the
    /// default ACL) and its first session in one write transaction: 201.
    func createUser(_ r: APIRequest, body: CreateBody, password: String?) async throws -> APIResponse {
        var values = body.values
        for key in values.keys where key == "salt" || key == "sessionToken" || (!r.identity.isMaster && Self.verifiedUserKeys.contains(key)) {
            throw APIError(code: 105, "_User's '\(key)' cannot be written here\(key == "salt" || key == "sessionToken" ? "" : " without the master key")")
        }
        for (key, code) in [("email", 125), ("mobilePhoneNumber", 127)] {
            if let v = values[key], v != .null, v.stringValue?.isEmpty != false {
                throw APIError(code: code, "\(key): expected a non-empty string")
            }
        }
        let id = StatementExecutor.randomObjectId(), now = clock()
        if let password { values["password"] = .string(try await passwords.hash(password)) }
        for key in Self.verifiedUserKeys where values[key] == nil { values[key] = false }
        if values["ACL"] == nil { values["ACL"] = Self.defaultUserACL(id) }
        let insert = try Binder.bind(try RESTReader.create(className: "_User", body: values), parameters: [], now: now)
        // The storage keeps the names unique (202, 203, 214: ServerStorage.uniqueKeys).
        let outcome = LockedValue("")
        // Relations are rows of their own, added once the user exists (by
        // the user), in the same transaction.
        let relations = body.relationOps.isEmpty ? nil : try Self.statement(
            try RESTReader.update(className: "_User", objectId: id, body: body.relationOps),
            now: now, identity: Identity(isMaster: r.identity.isMaster, userId: id))
        let result = try await write(insert, r, now: now, objectId: id, before: { session throws(QueryError) in
            outcome.value = try ServerStorage.addSession(for: id, now: now, in: session)
        }, then: relations)
        let token = outcome.value
        guard let object = result.changes.first?.after else { throw APIError.internalError("the sign-up created no user") }
        return APIResponse(status: 201, body: .object(try await userAnswer(object, token: token)), location: "/1.1/users/\(id)")
    }

    /// `POST /1.1/login`: by `username`, else `email`, else
    /// `mobilePhoneNumber`, with `password` (in the body, or as URL
    /// parameters): the user with a new `sessionToken`.
    func login(_ r: APIRequest) async throws -> APIResponse {
        var fields = r.parameters
        if case .object(let o)? = r.body { fields.merge(o) { $1 } }
        guard case .string(let password)? = fields["password"], !password.isEmpty else {
            throw APIError(code: 201, "Password is missing or empty.")
        }
        let given = ["username", "email", "mobilePhoneNumber"].compactMap { k -> (key: String, name: String)? in
            guard case .string(let s)? = fields[k], !s.isEmpty else { return nil }
            return (k, s)
        }
        guard let login = given.first else { throw APIError(code: 200, "Username is missing or empty.") }
        guard let user = try await storage.user(byUniqueKey: login.key, login.name), let id = user["objectId"]?.stringValue else {
            // As long as a wrong password: the time must not tell which names exist.
            _ = try await passwords.verify(password, stored: passwords.unmatchableHash, salt: nil)
            throw Self.noSuchUser
        }
        let rehash = try await checkPassword(password, of: user, id: id)
        try await checkOnLogin(user)
        let now = clock()
        let token = try await newSession(for: id, now: now, retiringOthers: false, newPassword: rehash ? password : nil, r)
        return APIResponse(body: .object(try await userAnswer(user, token: token)))
    }

    /// `GET /1.1/users/me` with `?session_token=` (the Python SDK's
    /// `become`, which also sends the current user's `X-LC-Session`: the
    /// parameter wins) or `X-LC-Session`: the user and its token.
    func me(_ r: APIRequest) async throws -> APIResponse {
        guard let token = r.text("session_token") ?? r.identity.sessionToken, !token.isEmpty,
              let id = try await storage.sessionUser(token), let user = try await user(where: "objectId", is: .string(id))
        else { throw Self.noSuchUser }
        return APIResponse(body: .object(try await userAnswer(user, token: token)))
    }

    /// `PUT /1.1/users/<id>/refreshSessionToken`: a new token; every older
    /// one of the user stops working.
    func refreshSessionToken(_ r: APIRequest, userId: String) async throws -> APIResponse {
        try Self.requireKnownSession(r)
        guard r.identity.isMaster || r.identity.userId == userId else { throw Self.userCannotBeAltered }
        guard let user = try await user(where: "objectId", is: .string(userId)) else { throw Self.noSuchUser }
        let token = try await newSession(for: userId, now: clock(), retiringOthers: true, newPassword: nil, r)
        return APIResponse(body: .object(try await userAnswer(user, token: token)))
    }

    /// `PUT /1.1/users/<id>/updatePassword` `{"old_password","new_password"}`
    /// with that user's session: the user with a new `sessionToken` (every
    /// other session ends: whoever knew the old password is logged out).
    func updatePassword(_ r: APIRequest, userId: String) async throws -> APIResponse {
        try Self.requireKnownSession(r)
        guard r.identity.isMaster || r.identity.userId == userId else { throw Self.userCannotBeAltered }
        let body = try Self.objectBody(r)
        guard case .string(let old)? = body["old_password"], case .string(let new)? = body["new_password"] else {
            throw APIError(code: 107, "updatePassword needs {\"old_password\": \"...\", \"new_password\": \"...\"}")
        }
        guard !new.isEmpty else { throw APIError(code: 201, "Password is missing or empty.") }
        guard let user = try await user(where: "objectId", is: .string(userId)) else { throw Self.noSuchUser }
        _ = try await checkPassword(old, of: user, id: userId)
        let now = clock()
        let token = try await newSession(for: userId, now: now, retiringOthers: true, newPassword: new, r)
        // LeanCloud's answer: the user's id, its new updatedAt and token.
        return APIResponse(body: .object(["objectId": .string(userId), "updatedAt": .string(ISODate.format(now)), "sessionToken": .string(token)]))
    }

    /// Verifies `identity`'s session token: its user becomes
    /// ``Identity/userId``. A token the server does not know makes the
    /// caller anonymous (``Identity/presentedUnknownSession``), as LeanCloud
    /// treated it: an app whose cached session went stale can still log in,
    /// sign up or read public data.
    public func resolveSession(_ identity: inout Identity) async throws(APIError) {
        guard let token = identity.sessionToken else { return }
        let id: String?
        do { id = try await storage.sessionUser(token) } catch let e as QueryError { throw APIError.from(e) } catch {
            throw APIError.internalError("\(error)")
        }
        identity.userId = id
        if id == nil {
            identity.sessionToken = nil
            identity.presentedUnknownSession = true
        }
    }

    /// 211 where a session is the point and the request's was unknown.
    static func requireKnownSession(_ r: APIRequest) throws(APIError) {
        if r.identity.presentedUnknownSession, !r.identity.isMaster { throw invalidSession }
    }

    // MARK: Helpers

    /// Verifies a login's password under the account's throttle: 219 while
    /// locked, 210 (counted) when wrong. Returns whether to re-hash it.
    func checkPassword(_ password: String, of user: [String: Value], id: String) async throws -> Bool {
        let failures = try await storage.loginState(id, throttle: throttle)
        if throttle.isLocked(failures, at: throttle.now()) { throw Self.tooManyAttempts }
        let verdict: Passwords.Verdict
        if case .string(let stored)? = user["password"] {
            verdict = try await passwords.verify(password, stored: stored, salt: user["salt"]?.stringValue)
        } else {
            // No password (a user of authData only): as slow as a wrong one.
            _ = try await passwords.verify(password, stored: passwords.unmatchableHash, salt: nil)
            verdict = .mismatch
        }
        guard case .match(let rehash) = verdict else {
            try await storage.recordLoginFailure(id, throttle: throttle)
            throw Self.passwordMismatch
        }
        // (Only an account with a row has one to delete: most logins write nothing here.)
        if failures != LoginThrottle.State() { try await storage.recordLoginSuccess(id) }
        return rehash
    }

    /// A new session of `userId`, with `newPassword` hashed and stored (and
    /// LeanCloud's `salt` removed) in the same transaction: the server's own
    /// write for `r` (its route verified the old password or the login).
    func newSession(for userId: String, now: DateValue, retiringOthers: Bool, newPassword: String?, _ r: APIRequest) async throws -> String {
        guard let newPassword else { return try await storage.newSession(for: userId, now: now, retiringOthers: retiringOthers) }
        let hash = try await passwords.hash(newPassword)
        let update = try Binder.bind(try RESTReader.update(className: "_User", objectId: userId,
                                                           body: ["password": .string(hash), "salt": .object(["__op": "Delete"])]),
                                     parameters: [], now: now)
        let token = LockedValue("")
        _ = try await write(update, r, now: now, guards: .server, before: { session throws(QueryError) in
            if retiringOthers { try ServerStorage.deleteSessions(of: userId, in: session) }
            token.value = try ServerStorage.addSession(for: userId, now: now, in: session)
        })
        return token.value
    }

    /// The `_User` whose `key` equals `value` (no ACL: the server's own
    /// lookup), or nil.
    func user(where key: String, is value: Value) async throws -> [String: Value]? {
        return try await storage.find(try Self.prepared(try userQuery(key, value), as: .master)).objects.first
    }

    func userQuery(_ key: String, _ value: Value) throws -> Query {
        try WhereJSONReader.read(.object(["className": "_User", "where": .object([key: value]), "limit": 1]))
    }

    /// A user as login and `me` answer it: no secrets, with the session's token.
    func userAnswer(_ user: [String: Value], token: String) async throws -> [String: Value] {
        let caller = try await grantees(for: Identity(isMaster: false, userId: user["objectId"]?.stringValue))
        var answer = try await output([user], className: "_User", grantees: caller)[0].objectValue ?? [:]
        answer["sessionToken"] = .string(token)
        return answer
    }
}
