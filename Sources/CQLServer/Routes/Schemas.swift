import CQLKit

/// `GET /1.1/schemas` and `/1.1/schemas/<Class>` (master key only): each
/// class's keys with the types found in its data.
extension API {
    /// `/1.1/schemas[/<Class>]` (``routes``; the master key's).
    static let schemaRoutes: [APIRoute] = [
        APIRoute("GET", "schemas") { api, r, _ in try await api.schemas(r, className: nil) },
        APIRoute("GET", "schemas/:class") { api, r, path in try await api.schemas(r, className: try path.className()) },
    ]

    /// `{"<Class>":{"<key>":{"type":"String"},...},...}`; one class:
    /// `{"<key>":{"type":...},...}`. Types are LeanCloud's names (`String`,
    /// `Number`, `Boolean`, `Date`, `Pointer` with its `className`, `GeoPoint`,
    /// `File`, `Relation`, `Bytes`, `Array`, `Object`, `ACL`); a key holding
    /// values of several types gets the type of its first non-null value in
    /// input order. An unknown class is error 101.
    func schemas(_ r: APIRequest, className: String?) async throws -> APIResponse {
        try Self.requireMaster(r, "schemas")
        let names = try await storage.classNames()
        if let className {
            guard names.contains(className) else { throw APIError.notFound("101 Class or object doesn't exist: \(className)") }
            return APIResponse(body: .object(try await schema(of: className)))
        }
        var all: [String: Value] = [:]
        for name in names { all[name] = .object(try await schema(of: name)) }
        return APIResponse(body: .object(all))
    }

    /// Every key the class's objects hold, with the type of its first
    /// non-null value. Read a page of ``schemaPage`` objects at a time in
    /// objectId order, so the memory a request takes does not grow with the
    /// class (read whole, 1,000,000 objects took the process to 1.9 GB).
    func schema(of className: String) async throws -> [String: Value] {
        var keys: [String: Value] = [:]
        var after: String?
        while true {
            var request: [String: Value] = ["className": .string(className), "limit": .int(Int64(Self.schemaPage)), "order": "objectId"]
            if let after { request["where"] = .object(["objectId": .object(["$gt": .string(after)])]) }
            let objects = try await storage.find(try Self.prepared(try WhereJSONReader.read(.object(request)), as: .master)).objects
            for o in objects {
                for (key, value) in o where keys[key] == nil && value != .null {
                    switch key {
                    case "ACL": keys[key] = .object(["type": "ACL"])
                    // Stored as plain strings (as LeanCloud's export has them), typed as Dates.
                    case "createdAt", "updatedAt": keys[key] = .object(["type": "Date"])
                    default: keys[key] = Self.schemaType(value)
                    }
                }
            }
            guard objects.count == Self.schemaPage, let last = objects.last?["objectId"]?.stringValue else { return keys }
            after = last
        }
    }

    /// Objects a schema read takes at a time.
    static let schemaPage = 10_000

    static func schemaType(_ v: Value) -> Value {
        switch v {
        case .null: return .object(["type": "Null"])
        case .bool: return .object(["type": "Boolean"])
        case .int, .double: return .object(["type": "Number"])
        case .string: return .object(["type": "String"])
        case .array: return .object(["type": "Array"])
        case .object: return .object(["type": "Object"])
        case .date: return .object(["type": "Date"])
        case .pointer(let p): return .object(["type": "Pointer", "className": .string(p.className)])
        case .typedObject(let c, _): return .object(["type": "Pointer", "className": .string(c)])
        case .geoPoint: return .object(["type": "GeoPoint"])
        case .bytes: return .object(["type": "Bytes"])
        case .file: return .object(["type": "File"])
        case .relation(let c): return .object(["type": "Relation", "className": .string(c)])
        }
    }
}
