import CQLKit

/// `POST /1.1/batch`: `{"requests":[{"method","path","body","params"}]}`.
extension API {
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
        for (i, item) in requests.enumerated() {
            do throws(APIError) {
                var sub = try Self.subRequest(item, index: i, identity: r.identity)
                sub.grantees = r.grantees
                sub.origin = r.origin
                answers.append(.object(["success": try await handle(sub).body]))
            } catch {
                answers.append(.object(["error": error.body]))
            }
        }
        return APIResponse(body: .array(answers))
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
        var body = o["body"]
        if case .object(var b)? = body { b.removeValue(forKey: "__ignore_hooks"); body = .object(b) }
        return APIRequest(method: method.uppercased(), segments: segments, parameters: parameters,
                          body: body == .null ? nil : body, identity: identity)
    }
}
