import CQLEval
import CQLKit
import CQLSQL

/// `GET /1.1/cloudQuery?cql=...&pvalues=[...]`: a CQL statement, read by
/// the same parser and binder as `cql run` and `cql exec` — except that
/// `pvalues` past the statement's placeholders are ignored, as LeanCloud
/// ignored them (the command line refuses them).
extension API {
    /// `/1.1/cloudQuery`, by GET or POST (``routes``).
    static let cloudQueryRoutes: [APIRoute] = ["GET", "POST"].map { method in
        APIRoute(method, "cloudQuery", reads: ["cql", "pvalues"]) { api, r, _ in try await api.cloudQuery(r) }
    }

    /// A select answers `{"results":[...],"className":"<C>"}` (`count(*)`:
    /// `"count":N` and no results); a write answers as LeanCloud does, with
    /// what it wrote: an insert `{"results":[{"objectId","createdAt"}]}`, an
    /// update `{"results":[{"objectId","updatedAt"}]}`, a delete
    /// `{"results":[]}`. A statement that does not read or bind is error 300
    /// with its line and column.
    func cloudQuery(_ r: APIRequest) async throws -> APIResponse {
        guard let cql = r.text("cql"), !cql.isEmpty else { throw APIError(code: 300, "CQL syntax error. Detail: the parameter 'cql' is missing") }
        let values = try Self.placeholderValues(r)
        let now = clock()
        let statement: Statement
        do {
            let parsed = try CQLParser.parseStatement(cql)
            // Values past the statement's placeholders are ignored, as LeanCloud
            // ignored them (the Python SDK's own tests send one with none); too few is an error.
            statement = ClassNames.canonical(try Binder.bind(parsed, parameters: Array(values.prefix(parsed.placeholderCount)), now: now))
        } catch {
            throw APIError(code: 300, "CQL syntax error. Detail: " + error.shortDescription)
        }
        try Self.checkStatement(statement, identity: r.identity)
        try await checkPermissions(statement, r)
        var body: [String: Value] = ["className": .string(statement.className)]
        switch statement {
        case .select(let q):
            let query: Query
            let restricted = try CallerQuery.restricted(q, as: r.caller)
            do { query = try Optimizer.optimize(restricted) } catch { throw APIError.from(error, cloudQuery: true) }
            let result: SQLRunner.Result
            do {
                result = try await find(query, grantees: r.grantees)
            } catch let e as QueryError {
                throw APIError.from(e.withSource(cql), cloudQuery: true)
            }
            let objects = try await hidingUnreadable(try await permitted(result.objects, className: query.className, grantees: r.grantees),
                                                     grantees: r.grantees)
            body["results"] = .array(try await output(objects, className: query.className, returnACL: query.returnACL, grantees: r.grantees))
            if query.count != .none { body["count"] = .int(Int64(result.count ?? 0)) }
        case .insert, .update, .delete:
            try await checkRoleStatement(statement)
            let written: WriteResult
            do { written = try await write(statement, r, now: now) } catch let e as QueryError { throw APIError.from(e.withSource(cql)) }
            if case .delete(let d) = statement, d.className == "_User", case .value(.string(let id)) = d.objectId {
                try await storage.retireSessions(of: id)
            }
            body["results"] = .array(written.changes.compactMap { change in
                switch statement {
                case .insert: return .object(["objectId": .string(change.objectId), "createdAt": change.after?["createdAt"] ?? .null])
                case .update: return .object(["objectId": .string(change.objectId), "updatedAt": .string(ISODate.format(now))])
                default: return nil
                }
            })
            if case .update(let u) = statement, written.changes.isEmpty, case .value(.string(let id)) = u.objectId {
                body["results"] = .array([.object(["objectId": .string(id), "updatedAt": .string(ISODate.format(now))])])
            }
        }
        return APIResponse(body: .object(body))
    }

    /// `pvalues`: a JSON array, or (as the Python SDK sends it) a JSON string
    /// holding the array's text.
    static func placeholderValues(_ r: APIRequest) throws(APIError) -> [Value] {
        var value = try r.json("pvalues")
        if case .string(let text)? = value {
            do { value = try JSONReader.parse(text) } catch { throw APIError.malformedJSON("pvalues: \(error.shortDescription)") }
        }
        switch value {
        case nil: return []
        case .array(let items)?: return items
        default: throw APIError.malformedJSON("pvalues: expected a JSON array of the values of the '?' placeholders")
        }
    }
}
