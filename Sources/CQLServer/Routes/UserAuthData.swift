import CQLKit

/// Logins by `authData` (`POST /1.1/users` with `{"authData":{...}}`):
/// anonymous users, and third-party platforms from a trusted server.
///
/// - `{"authData":{"anonymous":{"id":"<uuid>"}}}` (the SDKs'
///   `loginAnonymously`): the user holding that id logs in (200), else a
///   user is made with a generated 25-character username and no password
///   (201), as LeanCloud did. The SDK makes it a registered user later with
///   `PUT /1.1/users/<id>` `{"username","password"}`.
/// - Any other platform (`weixin`, `qq`, `weibo`, ...): LeanCloud verified
///   the platform's token by calling the platform, which this server cannot
///   do; a client's claim is therefore refused (251), and only the master
///   key — a trusted server that verified the token itself — may log such
///   users in or make them.
/// - `?failOnNotExist=true`: no such user is 211 "Could not find user."
///   instead of a new user.
///
/// ```
/// POST /1.1/users {"authData":{"anonymous":{"id":"1b67..."}}}
/// → 201 {"authData":{"anonymous":{"id":"1b67..."}},"username":"lfdkmxr4ozt4pc9bvu1o9j2ta","sessionToken":"...",...}
/// POST /1.1/users {"authData":{"weixin":{"openid":"o1","access_token":"t"}}}   (app key)
/// → 400 {"code":251,"error":"authData of 'weixin' cannot be verified by this server: ..."}
/// ```
extension API {
    func authDataLogin(_ r: APIRequest, body: CreateBody, authData: Value) async throws -> APIResponse {
        let (platform, idKey, id) = try Self.authDataIdentity(authData, isMaster: r.identity.isMaster)
        if let user = try await user(where: "authData.\(platform).\(idKey)", is: .string(id)), case .string(let userId)? = user["objectId"] {
            let token = try await newSession(for: userId, now: clock(), retiringOthers: false, newPassword: nil, r)
            return APIResponse(body: .object(try await userAnswer(user, token: token)))
        }
        if r.flag("failOnNotExist") { throw Self.noSuchUser }
        var body = body
        if body.values["username"] == nil { body.values["username"] = .string(Self.generatedUsername()) }
        if let password = body.values["password"] {
            guard case .string(let p) = password, !p.isEmpty else { throw APIError(code: 201, "Password is missing or empty.") }
            return try await createUser(r, body: body, password: p)
        }
        return try await createUser(r, body: body, password: nil)
    }

    /// The platform, the key of its user id and the id an `authData` names;
    /// 251 when it is malformed, or a platform's claim comes without the
    /// master key.
    static func authDataIdentity(_ authData: Value, isMaster: Bool) throws(APIError) -> (String, String, String) {
        guard case .object(let platforms) = authData, !platforms.isEmpty else {
            throw APIError(code: 251, "authData must be an object of platforms, e.g. {\"anonymous\":{\"id\":\"...\"}}")
        }
        guard platforms.count == 1, let (platform, data) = platforms.first else {
            throw APIError(code: 251, "authData names one platform per login; this one names \(platforms.keys.sorted().joined(separator: ", "))")
        }
        guard !platform.isEmpty, platform.utf8.allSatisfy({ isLetter($0) || ($0 >= 48 && $0 <= 57) || $0 == UInt8(ascii: "_") }) else {
            throw APIError(code: 251, "authData: '\(platform)' is not a platform name (letters, digits and '_')")
        }
        guard case .object(let fields) = data else { throw APIError(code: 251, "authData.\(platform) must be an object") }
        let idKeys = platform == "anonymous" ? ["id"] : ["uid", "openid", "id"]
        guard let idKey = idKeys.first(where: { fields[$0] != nil }), case .string(let id)? = fields[idKey], !id.isEmpty else {
            throw APIError(code: 251, "authData.\(platform) needs a non-empty string '\(idKeys[0])'")
        }
        if platform != "anonymous" && !isMaster {
            throw APIError(code: 251, "authData of '\(platform)' cannot be verified by this server (LeanCloud asked the platform, which this server does not reach): log such users in from a trusted server with the master key")
        }
        return (platform, idKey, id)
    }

    /// A username for a user made by `authData`: 25 characters of `a-z0-9`,
    /// as LeanCloud's were.
    static func generatedUsername() -> String {
        let symbols = Array("abcdefghijklmnopqrstuvwxyz0123456789")
        var g = SystemRandomNumberGenerator()
        return String((0..<25).map { _ in symbols[Int(g.next(upperBound: UInt64(symbols.count)))] })
    }

    /// `PUT /1.1/users/<id>` (or `/1.1/classes/_User/<id>`) with a
    /// `password`: by the user itself or the master key, a non-empty string,
    /// stored hashed (LeanCloud's `salt` removed); an anonymous user that
    /// sets one stops being anonymous (its `authData.anonymous` goes, as on
    /// LeanCloud). The user's sessions stay (LeanCloud's answer holds no new
    /// token); `updatePassword` is the change that ends the others.
    func withHashedPassword(_ body: [String: Value], _ r: APIRequest, objectId: String) async throws -> [String: Value] {
        guard r.identity.isMaster || r.identity.userId == objectId else { throw Self.userCannotBeAltered }
        guard case .string(let password)? = body["password"], !password.isEmpty else {
            throw APIError(code: 201, "Password is missing or empty.")
        }
        var body = body
        body["password"] = .string(try await passwords.hash(password))
        body["salt"] = .object(["__op": "Delete"])
        if body["authData"] == nil, case .object(var authData)? = try await user(where: "objectId", is: .string(objectId))?["authData"],
           authData.removeValue(forKey: "anonymous") != nil {
            body["authData"] = .object(authData)
        }
        return body
    }
}
