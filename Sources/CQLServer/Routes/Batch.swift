import CQLKit

/// `POST /1.1/batch`: `{"requests":[{"method","path","body","params"}]}`.
extension API {
    /// `/1.1/batch` (``routes``).
    static let batchRoutes: [APIRoute] = [APIRoute("POST", "batch") { api, r, _ in try await api.batch(r) }]

    /// The most sub-requests one batch may hold.
    static let maximumBatch = 1000

    /// Each sub-request runs through ``handle(_:)`` with the batch's identity,
    /// atomic on its own (the batch as a whole is not, as on LeanCloud); the
    /// answer is an array in request order of `{"success":...}` or
    /// `{"error":{"code","error"}}`.
    func batch(_ r: APIRequest) async throws -> APIResponse {
        let body = try Self.objectBody(r)
        guard case .array(let requests)? = body["requests"] else {
            throw APIError.malformedJSON("a batch body is {\"requests\": [...]}")
        }
        guard requests.count <= Self.maximumBatch else {
            throw APIError(code: 107, "a batch holds at most \(Self.maximumBatch) requests, this one \(requests.count)")
        }
        var answers: [Value] = []
        answers.reserveCapacity(requests.count)
        var identity = r.identity, grantees = r.grantees
        // After a sub-request that may retire a session or change a role, the
        // next one is the caller as it is then, not as the batch began.
        var recheck = false
        for (i, item) in requests.enumerated() {
            do throws(APIError) {
                if recheck, !identity.isMaster, identity.sessionToken != nil {
                    try await resolveSession(&identity)
                    do { grantees = try await self.grantees(for: identity) } catch { throw APIError.internalError("\(error)") }
                    recheck = false
                }
                var sub = try Self.subRequest(item, index: i, identity: identity)
                sub.grantees = grantees
                sub.origin = r.origin
                recheck = recheck || Self.mayChangeCaller(sub)
                answers.append(.object(["success": try await batchAnswer(sub)]))
            } catch {
                answers.append(.object(["error": error.body]))
            }
        }
        return APIResponse(body: .array(answers))
    }

    /// A sub-request's `success` value. A get of an object that does not
    /// exist (or that the caller may not read: the two look alike) is
    /// `null`, and one in a class that does not exist is error 101, as
    /// LeanCloud answered (the JavaScript SDK's `fetchAll` tells a missing
    /// object by that `null`); a get over HTTP answers `{}` for both.
    func batchAnswer(_ sub: APIRequest) async throws(APIError) -> Value {
        let body = try await handle(sub).body
        guard sub.method == "GET", body == .object([:]), let className = Self.gotClass(sub.segments) else { return body }
        let exists: Bool
        do { exists = try await storage.classNames().contains(className) } catch { throw APIError.internalError("\(error)") }
        guard exists else { throw APIError.notFound("101 Class or object doesn't exist: \(className)") }
        return .null
    }

    /// The class of a get's path (`classes/<C>/<id>`, `users/<id>`,
    /// `roles/<id>`, `files/<id>`), nil for any other.
    static func gotClass(_ s: [String]) -> String? {
        guard s.count == (s.first == "classes" ? 3 : 2) else { return nil }
        switch s[0] {
        case "classes": return ClassNames.canonical(s[1])
        case "users": return s[1] == "me" ? nil : "_User"
        case "roles": return "_Role"
        case "files": return "_File"
        default: return nil
        }
    }

    /// Whether a sub-request may end a session or change what roles hold:
    /// a write to users, roles or through CQL.
    static func mayChangeCaller(_ r: APIRequest) -> Bool {
        guard r.method != "GET", let first = r.segments.first else { return false }
        switch first {
        case "users", "roles", "cloudQuery", "login", "logout": return true
        case "classes": return r.segments.count > 1 && ["_User", "_Role"].contains(ClassNames.canonical(r.segments[1]))
        default: return false
        }
    }

    static func subRequest(_ item: Value, index: Int, identity: Identity) throws(APIError) -> APIRequest {
        guard case .object(let o) = item, case .string(let method)? = o["method"], case .string(let path)? = o["path"] else {
            throw APIError.malformedJSON("requests[\(index)]: expected {\"method\", \"path\", \"body\", \"params\"}")
        }
        let pathOnly = path.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false)
        guard let segments = APIRequest.segments(ofPath: pathOnly[0]) else {
            throw APIError(status: 404, code: 404, "requests[\(index)]: the path '\(path)' is not under /1.1/")
        }
        guard segments.first != "batch" else { throw APIError(code: 107, "requests[\(index)]: a batch cannot hold a batch") }
        var parameters: [String: Value] = [:]
        if pathOnly.count == 2 { parameters = HTTPQuery.parameters(pathOnly[1]) }
        if case .object(let p)? = o["params"] { parameters.merge(p) { $1 } }
        var body = o["body"], ignoresHooks: Value?
        if case .object(var b)? = body { ignoresHooks = b.removeValue(forKey: CreateBody.ignoreHooks); body = .object(b) }
        var sub = APIRequest(method: method.uppercased(), segments: segments, parameters: parameters,
                             body: body == .null ? nil : body, identity: identity)
        sub.sentIgnoreHooks = ignoresHooks
        return sub
    }
}
