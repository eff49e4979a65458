import CQLEval
import CQLKit
import Foundation

/// `POST /1.1/LiveQuery/subscribe`, `.../unsubscribe` and the old renew
/// ping `.../subscribe/ping` (LiveQuery.md, "Subscribing"): the bodies of
/// every SDK.
///
/// ```
/// POST /1.1/LiveQuery/subscribe {"query":{"className":"Todo","where":{"done":false}},"id":"d1"}
/// → 200 {"id":"d1","query_id":"5f0c…"}
/// ```
extension API {
    /// LiveQuery's REST routes (``routes``); its router (`/v1/route`) and
    /// WebSocket are HTTP's.
    static let liveQueryRoutes: [APIRoute] = [
        APIRoute("POST", "LiveQuery/subscribe") { api, r, _ in try await api.liveQuerySubscribe(r) },
        APIRoute("POST", "LiveQuery/unsubscribe") { api, r, _ in try api.liveQueryUnsubscribe(r) },
        APIRoute("POST", "LiveQuery/subscribe/ping") { api, r, _ in try api.liveQueryPing(r) },
    ]

    /// The keys of a subscribe body's `query` LiveQuery reads (`order`,
    /// `limit` and `skip` are accepted and do not apply: an event is about one object).
    static let liveQueryKeys: Set<String> = ["className", "where", "keys", "returnACL", "include", "order", "limit", "skip"]

    func liveQuerySubscribe(_ r: APIRequest) async throws -> APIResponse {
        let hub = try liveQueryHub()
        let body = try Self.objectBody(r)
        let id = try Self.installationId(body["id"])
        guard case .object(var q)? = body["query"] else {
            throw APIError(code: 107, "LiveQuery/subscribe needs 'query': {\"className\":...,\"where\":{...}}")
        }
        for key in q.keys.sorted() where !Self.liveQueryKeys.contains(key) {
            throw APIError(code: 107, "LiveQuery/subscribe: unknown query key '\(key)' (it reads \(Self.liveQueryKeys.sorted().joined(separator: ", ")))")
        }
        // Java sends `where` as a JSON string; keys as a string or an array; returnACL as a bool or "true".
        if case .string(let text)? = q["where"] {
            do { q["where"] = text.isEmpty ? nil : try JSONReader.parse(text) } catch {
                throw APIError.malformedJSON("LiveQuery/subscribe: query.where: \(error.shortDescription)")
            }
        }
        if case .array(let items)? = q["keys"] { q["keys"] = .string(items.compactMap { $0.stringValue }.joined(separator: ",")) }
        switch q["returnACL"] {
        case .bool(let b)?: q["returnACL"] = b ? "true" : nil
        case .string(let s)?: q["returnACL"] = s.lowercased() == "true" ? "true" : nil
        default: q["returnACL"] = nil
        }
        // include: a string "a,b.c" (every SDK) or an array, read as a find reads it.
        switch q["include"] {
        case nil, .null?, .string("")?, .array([])?: q["include"] = nil
        case .array(let items)?: q["include"] = .string(items.compactMap { $0.stringValue }.joined(separator: ","))
        default: break
        }
        guard case .string(let rawClass)? = q["className"] else { throw APIError(code: 107, "LiveQuery/subscribe: query.className is missing") }
        let className = try Self.className(rawClass)
        var read: [String: Value] = ["className": .string(className)]
        for key in ["where", "keys", "returnACL", "include"] { if let v = q[key], v != .null { read[key] = v } }
        let query = try WhereJSONReader.read(.object(read))
        try Self.refuseOutsideReads(query.condition)
        // The session: the header's (JS), else the body's (Swift, Java, Objective-C, C#).
        var identity = r.identity, grantees = r.grantees
        if !identity.isMaster, identity.userId == nil, case .string(let token)? = body["sessionToken"], !token.isEmpty {
            identity.sessionToken = token
            try await resolveSession(&identity)
            grantees = try await self.grantees(for: identity)
        }
        let snapshot = try await permissionsSnapshot()
        try requirePermission(.find, className, grantees: grantees, snapshot: snapshot)
        try checkReads(query, grantees: grantees, snapshot: snapshot)
        var hidden = snapshot[className].hiddenKeys(grantees: grantees, className: className)
        if className == "_User" { hidden.formUnion(Self.userSecrets) }
        let subscription: Subscription
        do {
            subscription = try Subscription(query: query, fingerprint: JSONWriter.string(.object(read)), installationId: id,
                                            userId: identity.userId, grantees: grantees, hidden: hidden)
        } catch let error as QueryError {
            throw APIError.from(error)
        }
        let queryId = try hub.subscribe(subscription)
        return APIResponse(body: .object(["query_id": .string(queryId), "id": .string(id)]))
    }

    func liveQueryUnsubscribe(_ r: APIRequest) throws -> APIResponse {
        let hub = try liveQueryHub()
        let body = try Self.objectBody(r)
        let id = try Self.installationId(body["id"])
        guard case .string(let queryId)? = body["query_id"] else { throw APIError(code: 107, "LiveQuery/unsubscribe needs 'query_id'") }
        hub.unsubscribe(queryId: queryId, installationId: id)
        return APIResponse(body: .object([:]))
    }

    /// The old C# SDK's renewal: 200 while the subscription exists, else 404.
    func liveQueryPing(_ r: APIRequest) throws -> APIResponse {
        let hub = try liveQueryHub()
        let body = try Self.objectBody(r)
        let id = try Self.installationId(body["id"])
        guard case .string(let queryId)? = body["query_id"], hub.hasSubscription(queryId: queryId, installationId: id) else {
            throw APIError(status: 404, code: 404, "no such LiveQuery subscription")
        }
        return APIResponse(body: .object([:]))
    }

    func liveQueryHub() throws(APIError) -> LiveQueryHub {
        guard let liveQuery else { throw APIError(status: 404, code: 404, "LiveQuery is not served by this server") }
        return liveQuery
    }

    static func installationId(_ v: Value?) throws(APIError) -> String {
        guard case .string(let id)? = v, !id.isEmpty, id.utf8.count <= LiveQueryHub.maximumIdLength else {
            throw APIError(code: 107, "LiveQuery needs 'id', the subscription id the WebSocket logs in with (1 to \(LiveQueryHub.maximumIdLength) bytes)")
        }
        return id
    }

    /// LiveQuery matches each written object alone: conditions that read
    /// other objects (`$inQuery`, `$select`, `$relatedTo` and their
    /// negations) are refused, as LeanCloud refuses them.
    static func refuseOutsideReads(_ c: Condition?) throws(APIError) {
        try c?.forEach(entering: .everything) { (node: Condition) throws(APIError) in
            if node.outsideRead != nil {
                throw APIError(code: 102, "LiveQuery does not serve conditions on other objects ($inQuery, $notInQuery, $select, $dontSelect, $relatedTo)")
            }
        }
    }
}
