import CQLKit
import Foundation

/// `GET /1.1/scan/classes/<Class>`: every matching object, page by page
/// (master key only).
extension API {
    /// `/1.1/scan/classes/<Class>` (``routes``; the master key's).
    static let scanRoutes: [APIRoute] = [
        APIRoute("GET", "scan/classes/:class", reads: ["where", "keys", "include", "limit", "scan_key", "cursor", "returnACL"]) { api, r, path in
            try await api.scan(r, className: try path.className())
        },
    ]

    /// `limit` (default 100, at most 1000), `where`, `keys`, `include`, `scan_key` (default
    /// `objectId`; `-key` descending) and `cursor` (from the previous page;
    /// `null` on the last). On `objectId` the cursor is the last objectId
    /// seen and the next page is `objectId > cursor` (or `<`): keyset paging,
    /// so objects written between pages do not shift the others and every
    /// object present throughout is visited exactly once. On another key the
    /// cursor holds an offset into the order (key, then objectId), which
    /// visits each object once while the class does not change.
    func scan(_ r: APIRequest, className: String) async throws -> APIResponse {
        try Self.requireMaster(r, "scan")
        let given = r.text("limit")
        guard let asked = given.map({ Int($0.trimmingCharacters(in: .whitespaces)) }) ?? Self.defaultLimit, asked >= 1 else {
            throw APIError.invalidQuery("limit: expected a whole number from 1 to \(Self.maximumLimit), found '\(given ?? "")'")
        }
        let limit = min(asked, Self.maximumLimit)
        var scanKey = r.text("scan_key") ?? "objectId"
        let descending = scanKey.hasPrefix("-")
        if descending { scanKey.removeFirst() }
        if scanKey.isEmpty { scanKey = "objectId" }
        let cursor = try r.text("cursor").map { (c) throws(APIError) -> String in
            guard let data = Data(base64Encoded: c), let text = String(data: data, encoding: .utf8) else {
                throw APIError.invalidQuery("cursor: not a cursor this server gave")
            }
            return text
        }
        var conditions: [Value] = []
        if let w = try r.json("where") { conditions.append(w) }
        var skip = 0
        if let cursor {
            if scanKey == "objectId" {
                conditions.append(.object(["objectId": .object([descending ? "$lt" : "$gt": .string(cursor)])]))
            } else {
                guard let n = Int(cursor), n >= 0 else { throw APIError.invalidQuery("cursor: not a cursor this server gave") }
                skip = n
            }
        }
        var request: [String: Value] = [
            "className": .string(className), "limit": .int(Int64(limit)), "skip": .int(Int64(skip)),
            "order": .string(scanKey == "objectId" ? (descending ? "-objectId" : "objectId") : "\(descending ? "-" : "")\(scanKey),objectId"),
        ]
        // `keys` and `include` as a find takes them (`cql pull` asks only objectIds, to find deletions).
        for name in ["keys", "include"] { if let v = r.text(name), !v.isEmpty { request[name] = .string(v) } }
        if !conditions.isEmpty { request["where"] = conditions.count == 1 ? conditions[0] : .object(["$and": .array(conditions)]) }
        let objects = try await storage.find(try Self.prepared(try WhereJSONReader.read(.object(request)), as: .master)).objects
        var next: Value = .null
        if objects.count == limit {
            let token = scanKey == "objectId" ? (objects.last?["objectId"]?.stringValue ?? "") : String(skip + limit)
            next = .string(Data(token.utf8).base64EncodedString())
        }
        var shown = try await output(objects, className: className, returnACL: r.flag("returnACL"), grantees: r.grantees)
        // A scan is the class as stored (what `cql pull` copies): no default
        // ACL shown for an object stored without one, unlike a find's `returnACL`.
        for (i, o) in objects.enumerated() where o["ACL"] == nil {
            if case .object(var fields) = shown[i] {
                fields.removeValue(forKey: "ACL")
                shown[i] = .object(fields)
            }
        }
        return APIResponse(body: .object(["results": .array(shown), "cursor": next]))
    }
}
