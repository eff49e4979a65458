import CQLKit

/// Objects as a route answers them: the `_File`s their File references name
/// read from storage here, the rest shaped by the wire's pure
/// ``shaped(_:className:returnACL:files:)`` (`Wire/ObjectOutput.swift`).
///
/// ```swift
/// let shown = try await api.output(result.objects, className: "Comment", grantees: r.grantees)
/// ```
extension API {
    /// A File reference is expanded from its `_File` only when `grantees`
    /// may read that `_File` (`nil`: the master key) — its ACL and `_File`'s
    /// `get` permission; else it keeps what it holds, as for a `_File` that
    /// does not exist.
    func output(_ objects: [[String: Value]], className: String, returnACL: Bool = false, grantees: [String]?) async throws -> [Value] {
        Self.shaped(objects, className: className, returnACL: returnACL, files: try await referencedFiles(in: objects, grantees: grantees))
    }

    /// The `_File`s, by objectId, that the objects' File references name and
    /// `grantees` may read.
    func referencedFiles(in objects: [[String: Value]], grantees: [String]?) async throws -> [String: [String: Value]] {
        var ids = Set<String>()
        for o in objects { for v in o.values { Self.collectFileIds(v, into: &ids) } }
        var files: [String: [String: Value]] = [:]
        // A caller whose class-level permissions deny getting a `_File` learns none from a reference.
        guard !ids.isEmpty, try await permissionsSnapshot()["_File"].allows(.get, grantees: grantees) else { return files }
        let condition: Value = .object(["objectId": .object(["$in": .array(ids.sorted().map { .string($0) })])])
        let query = try WhereJSONReader.read(.object(["className": "_File", "where": condition, "limit": .int(Int64(ids.count))]))
        for f in try await storage.find(try Self.prepared(query, as: QueryCaller(grantees: grantees))).objects {
            if case .string(let id)? = f["objectId"] { files[id] = f }
        }
        return files
    }
}
