import CQLEval
import CQLKit
import CQLSQL

/// `PUT /1.1/schemas/<Class>` and `GET /1.1/schemas/<Class>/permissions`
/// (master key only): a class's class-level permissions
/// (``ClassPermissions``).
///
/// ```
/// PUT /1.1/schemas/Post   (master key)
/// {"permissions": {"create": {"onlySignInUsers": true}, "delete": {"roles": ["admin"]}},
///  "protectedFields": {"*": ["phone"]}}
/// → 200 {"className":"Post","permissions":{"add_fields":{"*":true},"create":{"onlySignInUsers":true},...},
///        "protectedFields":{"*":["phone"]}}
/// ```
extension API {
    /// A class's class-level permissions (``routes``).
    static let classPermissionRoutes: [APIRoute] = [
        APIRoute("PUT", "schemas/:class") { api, r, path in try await api.setClassPermissions(r, className: try path.className()) },
        APIRoute("GET", "schemas/:class/permissions") { api, r, path in try await api.getClassPermissions(r, className: try path.className()) },
    ]

    /// Replaces the class's setting (an operation it leaves out, or a
    /// missing `protectedFields`, takes the class's default; `{}` resets
    /// all) and answers the effective permissions. The class need not exist
    /// yet: permissions can be set before its first object.
    func setClassPermissions(_ r: APIRequest, className: String) async throws -> APIResponse {
        try Self.requireMaster(r, "setting class-level permissions")
        let permissions = try ClassPermissions(json: r.body ?? .object([:]), className: className)
        let json = JSONWriter.string(permissions.document(className: className))
        try await storage.exclusiveWrite { session throws(QueryError) in try ClassSettingsTable.save(className, json: json, in: session) }
        // Read back from the database: what every request sees from now on.
        classPermissions.invalidate()
        return try await classPermissionsAnswer(className)
    }

    /// `GET /1.1/schemas/<Class>/permissions`: every operation's grant
    /// (LeanCloud's form) and the protected fields, as they apply now.
    func getClassPermissions(_ r: APIRequest, className: String) async throws -> APIResponse {
        try Self.requireMaster(r, "class-level permissions")
        return try await classPermissionsAnswer(className)
    }

    func classPermissionsAnswer(_ className: String) async throws -> APIResponse {
        let p = try await permissionsSnapshot()[className]
        var grants: [String: Value] = [:]
        for op in ClassPermissions.Operation.allCases { grants[op.rawValue] = (p.grants[op] ?? .open).json }
        var fields = p.protectedFields ?? [:]
        if className == "_User" {
            // Shown as enforced: authData is hidden whatever the setting.
            fields["*"] = Array(Set(fields["*"] ?? []).union(ClassPermissions.alwaysProtectedUserKeys)).sorted()
        }
        return APIResponse(body: .object(["className": .string(className), "permissions": .object(grants),
                                          "protectedFields": ClassPermissions.json(fields)]))
    }
}
