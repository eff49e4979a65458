import CQLEval
import CQLKit

/// `/1.1/classes/<Class>[/<objectId>]`: find, get, create, update, delete.
extension API {
    /// `/1.1/classes/<Class>[/<id>]`'s routes (``routes``).
    static let classRoutes: [APIRoute] = [
        APIRoute("GET", "classes/:class", parameters: .readByHandler(findParameterNames), permission: .init(.find)) { api, r, path in
            try await api.find(r, className: try path.className())
        },
        APIRoute("POST", "classes/:class", reads: writeFlags, permission: .init(.create)) { api, r, path in
            try await api.create(r, className: try path.className())
        },
        APIRoute("GET", "classes/:class/:id", reads: getParameterNames, permission: .init(.get)) { api, r, path in
            try await api.get(r, className: try path.className(), objectId: path["id"])
        },
        APIRoute("PUT", "classes/:class/:id", reads: writeFlags.union(["where"]), permission: .init(.update)) { api, r, path in
            try await api.update(r, className: try path.className(), objectId: path["id"])
        },
        APIRoute("DELETE", "classes/:class/:id", reads: ["where"], permission: .init(.delete)) { api, r, path in
            try await api.delete(r, className: try path.className(), objectIds: path["id"])
        },
    ]

    /// The request parameters a find reads (any other is refused:
    /// ``checkParameterNames(_:segments:)``).
    static let findParameters = ["order", "keys", "include", "count", "returnACL", "skip"]
    /// LeanCloud's default and largest page.
    static let defaultLimit = 100, maximumLimit = 1000

    /// `GET /1.1/classes/<Class>`: `{"results":[...]}`, with `count=1` also `"count"`.
    func find(_ r: APIRequest, className: String) async throws -> APIResponse {
        if Self.asksRedirect(r) { return try await redirectedFind(r, className: className) }
        // Keyed by the query string as sent when there is one: the same
        // string decodes to the same parameters.
        let key = r.rawQuery.map { PreparedFinds.Key(className: className, rawQuery: $0, grantees: r.grantees) }
            ?? PreparedFinds.Key(className: className, parameters: Self.cachedFindParameters.map { r.parameters[$0] }, grantees: r.grantees)
        let prepared = try finds.entry(for: key) {
            var r = r
            r.decodeQuery()
            try Self.checkParameterNames(r, segments: ["classes", className])
            let query = try Self.query(r, className: className, where: try r.json("where"), names: Self.findParameters, limit: true)
            return PreparedFinds.Made(query: try Self.prepared(query, as: r.caller), returnACL: query.returnACL, countAsked: query.count != .none,
                                      cacheable: Binder.isUnchangedByBinding(query))
        }
        // Class-level permissions on what the query reads (sub-queries, protected keys): per request, kept queries included.
        if r.grantees != nil { try checkReads(prepared.query, grantees: r.grantees, snapshot: try await permissionsSnapshot()) }
        let result = try await find(prepared.query, grantees: r.grantees, storedText: r.writesBody, memo: prepared.memo)
        return try await body(of: result, className: className, returnACL: prepared.returnACL, grantees: r.grantees, single: false,
                              countAsked: prepared.countAsked)
    }

    /// Every parameter that makes a find's query (``PreparedFinds/Key``):
    /// `where`, ``findParameters`` and `limit`.
    static let cachedFindParameters = ["where"] + findParameters + ["limit"]

    /// `GET /1.1/classes/<Class>/<id>`: the object, or `{}` when there is none
    /// (what clients read as "does not exist").
    func get(_ r: APIRequest, className: String, objectId: String) async throws -> APIResponse {
        let query = try Self.query(r, className: className, where: .object(["objectId": .string(objectId)]),
                                   names: ["keys", "include", "returnACL"], limit: false)
        let result = try await find(try Self.prepared(query, as: r.caller), grantees: r.grantees, storedText: r.writesBody)
        return try await body(of: result, className: query.className, returnACL: query.returnACL, grantees: r.grantees, single: true,
                              countAsked: false)
    }

    /// `POST /1.1/classes/<Class>`: 201, `Location`, `{"objectId","createdAt"}`
    /// (with `fetchWhenSave`/`new`: the whole object).
    func create(_ r: APIRequest, className: String) async throws -> APIResponse {
        let body = try CreateBody(try Self.objectBody(r))
        if className == "_Role" { try await checkNewRole(body.values) }
        let now = clock(), id = StatementExecutor.randomObjectId()
        let insert = try Self.statement(try RESTReader.create(className: className, body: body.values), now: now, identity: r.identity)
        // Relations are rows of their own: added once the object exists, in
        // the same transaction (all or nothing), by an update made (and
        // checked) before anything is written.
        let relations = body.relationOps.isEmpty ? nil : try Self.statement(
            try RESTReader.update(className: className, objectId: id, body: body.relationOps), now: now, identity: r.identity)
        let result = try await write(insert, r, now: now, objectId: id, then: relations)
        guard let created = result.changes.first, let object = created.after else {
            throw APIError.internalError("the insert created no object")
        }
        let location = "/1.1/classes/\(className)/\(created.objectId)"
        if r.flag("fetchWhenSave") || r.flag("new") {
            return APIResponse(status: 201, body: .object(try await output([object], className: className, grantees: r.grantees)[0].objectValue ?? [:]), location: location)
        }
        return APIResponse(status: 201, body: .object(["objectId": .string(created.objectId), "createdAt": object["createdAt"] ?? .null]),
                           location: location)
    }

    /// `PUT /1.1/classes/<Class>/<id>`: `{"objectId","updatedAt"}` (with
    /// `fetchWhenSave`/`new`: also the changed keys' new values); a `where`
    /// that does not hold: 305; no such object: 101.
    func update(_ r: APIRequest, className: String, objectId: String) async throws -> APIResponse {
        var body = try Self.objectBody(r)
        for key in CreateBody.serverKeys + [CreateBody.ignoreHooks] { body.removeValue(forKey: key) }
        try CreateBody.checkOperationNames(body)
        if className == "_Role" { try Self.checkRoleUpdate(body) }
        let now = clock()
        let condition = try r.json("where")
        if body.isEmpty {
            // Nothing to change: the object must exist (and the condition hold).
            return try await touch(r, className: className, objectId: objectId, condition: condition)
        }
        // A user setting its own password (an anonymous user registering): stored hashed.
        let settingPassword = className == "_User" && body["password"] != nil
        if settingPassword { body = try await withHashedPassword(body, r, objectId: objectId) }
        let fetch = r.flag("fetchWhenSave") || r.flag("new")
        let statement = try Self.statement(try RESTReader.update(className: className, objectId: objectId, body: body, where: condition),
                                           now: now, identity: r.identity, settingPassword: settingPassword)
        let result = try await write(statement, r, now: now, readBack: fetch)
        var answer: [String: Value] = ["objectId": .string(objectId), "updatedAt": .string(ISODate.format(now))]
        if fetch, let after = result.changes.first?.after {
            let shown = try await output([after], className: className, returnACL: true, grantees: r.grantees)[0].objectValue ?? [:]
            for key in body.keys { answer[key] = shown[key] }
            answer["updatedAt"] = shown["updatedAt"] ?? answer["updatedAt"]
        }
        return APIResponse(body: .object(answer))
    }

    /// An update with nothing to change: 101 when the object is missing, 305
    /// when the condition does not hold, else its updatedAt, unchanged.
    func touch(_ r: APIRequest, className: String, objectId: String, condition: Value?) async throws -> APIResponse {
        var conditions: [Value] = [.object(["objectId": .string(objectId)])]
        if let condition { conditions.append(condition) }
        _ = try await writeCondition(r, className: className, objectId: objectId, verb: "update")
        let exists = try await storage.find(try Self.prepared(try WhereJSONReader.read(
            .object(["className": .string(className), "where": .object(["objectId": .string(objectId)])])), as: r.caller))
        guard let object = exists.objects.first else {
            throw APIError.notFound("101 Object not found: \(className) '\(objectId)'")
        }
        let holds = try await find(try Self.prepared(try WhereJSONReader.read(
            .object(["className": .string(className), "where": .object(["$and": .array(conditions)])])), as: r.caller),
            grantees: r.grantees, countOnly: true)
        if holds.count == 0 {
            throw APIError(code: 305, "305 No effect on updating a document: the condition does not hold for \(className) '\(objectId)'")
        }
        return APIResponse(body: .object(["objectId": .string(objectId), "updatedAt": object["updatedAt"] ?? .null]))
    }

    /// `DELETE /1.1/classes/<Class>/<id>[,<id>...]`: `{}`. Each id is its own
    /// write (atomic on its own); the first failure is the answer.
    func delete(_ r: APIRequest, className: String, objectIds: String) async throws -> APIResponse {
        if let body = r.body, body != .null, body != .object([:]), body.objectValue?.keys.elementsEqual([CreateBody.ignoreHooks]) != true {
            throw APIError.malformedJSON("a DELETE request has no body (or {}, null or {\"__ignore_hooks\": ...})")
        }
        let condition = try r.json("where")
        let now = clock()
        for id in objectIds.split(separator: ",", omittingEmptySubsequences: false).map(String.init) {
            // (An empty id, as in `a,,b`: the answer it always had.)
            if id.isEmpty { throw QueryError(.syntax, "empty segment in the path '/1.1/classes/\(className)/'", path: "path") }
            _ = try await write(try Self.statement(try RESTReader.delete(className: className, objectId: id, where: condition), now: now, identity: r.identity),
                                r, now: now)
            // A deleted user's sessions end with it.
            if className == "_User" { try await storage.retireSessions(of: String(id)) }
        }
        return APIResponse(body: .object([:]))
    }

    // MARK: Reading requests

    /// The query of a find or get: its parameters as a where-JSON request
    /// object, read by the library's where-JSON reader.
    static func query(_ r: APIRequest, className: String, where condition: Value?, names: [String], limit: Bool) throws -> Query {
        var request: [String: Value] = ["className": .string(className)]
        if let condition { request["where"] = condition }
        for name in names { if let v = r.text(name) { request[name] = .string(v) } }
        if limit {
            let given = r.text("limit")
            guard let n = given.map({ Int($0.trimmingCharacters(in: .whitespaces)) }) ?? Self.defaultLimit, n >= 0 else {
                throw APIError.invalidQuery("limit: expected a whole number from 0 to \(maximumLimit), found '\(given ?? "")'")
            }
            request["limit"] = .int(Int64(min(n, maximumLimit)))
        }
        return try WhereJSONReader.read(.object(request))
    }

    /// A client's write (read by the library's REST reader: `RESTReader.create`,
    /// `update`, `delete`), bound and checked.
    /// `settingPassword`: the update's `password` and `salt` were set by
    /// ``withHashedPassword(_:_:objectId:)``, and are not checked
    /// as a client's.
    static func statement(_ read: Statement, now: DateValue, identity: Identity, settingPassword: Bool = false) throws -> Statement {
        let s = ClassNames.canonical(try Binder.bind(read, parameters: [], now: now))
        guard settingPassword, case .update(var checked) = s else {
            try checkStatement(s, identity: identity)
            return s
        }
        checked.assignments.removeAll { $0.key.name == "password" || $0.key.name == "salt" }
        try checkStatement(.update(checked), identity: identity)
        return s
    }

    /// What every write is checked for before it runs, whichever route
    /// made it: its class names, the classes its condition reads, and the
    /// keys it writes and tests.
    static func checkStatement(_ s: Statement, identity: Identity) throws {
        _ = try className(s.className)
        try checkSubqueryClasses(condition(of: s))
        try checkWritableKeys(s, identity: identity)
    }

    /// The request's body, which must be a JSON object.
    static func objectBody(_ r: APIRequest) throws(APIError) -> [String: Value] {
        guard case .object(let o)? = r.body else {
            throw APIError.malformedJSON(r.body == nil ? "the request needs a JSON object as its body" : "the body must be a JSON object")
        }
        return o
    }
}

extension Value {
    var objectValue: [String: Value]? {
        if case .object(let o) = self { return o }
        return nil
    }
}
