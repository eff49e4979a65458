import CQLKit

/// `POST /1.1/functions/<name>` and `POST /1.1/call/<name>`: the app's
/// cloud functions, forwarded to its cloud engine (``CloudEngine``) with the
/// caller's identity; `GET /1.1/functions/_ops/metadatas` (master key): what
/// the engine defines, asked again now.
///
/// ```
/// POST /1.1/functions/hello {"name":"Ann"}
/// → 200 {"result":"Hello, Ann!"}        (the engine's answer, status and body as it gave them)
/// POST /1.1/functions/slow               (past 15 s)
/// → 503 {"code":124,"error":"The request timed out on the server."}
/// ```
extension API {
    /// The cloud engine's routes (``routes``): a function's parameters may
    /// be any JSON.
    static let functionRoutes: [APIRoute] = ["GET", "POST"].map { method in
        APIRoute(method, "functions/_ops/metadatas", body: .anyJSON) { api, r, _ in try await api.engineMetadata(r) }
    } + ["functions", "call"].map { prefix in
        APIRoute("POST", "\(prefix)/:name", body: .anyJSON) { api, r, path in
            try await api.callFunction(r, name: path["name"], rpc: prefix == "call")
        }
    }

    /// A cloud function's call, answered by the engine.
    func callFunction(_ r: APIRequest, name: String, rpc: Bool) async throws -> APIResponse {
        guard let engine else { throw Self.noEngine("POST /1.1/\(rpc ? "call" : "functions")/\(name)") }
        return try await engine.callFunction(name, rpc: rpc, params: r.body, identity: r.identity)
    }

    /// What the engine defines, discovered again: `{"result":[names]}`.
    func engineMetadata(_ r: APIRequest) async throws -> APIResponse {
        try Self.requireMaster(r, "the cloud engine's metadata")
        guard let engine else { throw Self.noEngine("\(r.method) /1.1/functions/_ops/metadatas") }
        let catalog = try await engine.refresh()
        return APIResponse(body: .object(["result": .array(catalog.names.sorted().map { .string($0) })]))
    }

    /// `_User` onLogin, when the engine defines it: a login whose password
    /// is right may still be refused (142); the engine sees the user without
    /// its secrets.
    func checkOnLogin(_ user: [String: Value]) async throws {
        guard let engine, engine.has(.onLogin, className: "_User") else { return }
        var shown = try await userAnswer(user, token: "")
        shown.removeValue(forKey: "sessionToken")
        _ = try await engine.callHook(.onLogin, className: "_User", object: shown, user: nil)
    }

    /// The caller's user as a hook's `user`: as `GET /1.1/users/me` answers
    /// it, with the session token; nil for a caller without a session.
    func hookUser(_ caller: Identity) async -> [String: Value]? {
        guard let id = caller.userId, let token = caller.sessionToken,
              let user = try? await user(where: "objectId", is: .string(id)) else { return nil }
        return try? await userAnswer(user, token: token)
    }

    static func noEngine(_ route: String) -> APIError {
        APIError(status: 404, code: 404, "no such API: \(route) (cloud functions need an engine: cql serve --engine URL)")
    }
}
