import CQLKit

/// `_Role` (Server.md, "ACLs and roles"), also at `/1.1/roles[/<id>]`: `name`
/// (unique; letters, digits, `_`, `-` and space), `ACL` (required),
/// `users` and `roles` relations. Creating one needs an `ACL` in the body
/// (the role's own ACL then says who may change it, as for any object);
/// the name is set once: an update naming `name` is refused (a rename would
/// silently move every `role:<name>` grant).
///
/// ```swift
/// try await api.checkNewRole(["name": "staff"])
/// // 123 "a role needs an ACL ..."
/// ```
extension API {
    /// 139 for a bad name, 123 without an ACL object, 137 for a taken name.
    func checkNewRole(_ values: [String: Value]) async throws {
        guard case .string(let name)? = values["name"], Self.isRoleName(name) else {
            throw APIError(code: 139, "a role's name is letters, digits, '_', '-' and spaces (1 to 128 of them)")
        }
        guard case .object? = values["ACL"] else {
            throw APIError(code: 123, "a role needs an ACL (an object): it says who may change the role")
        }
        let query = Query(className: "_Role", keys: [SelectedKey("objectId")],
                          condition: Condition(.compare("name", .equal, .value(.string(name)))), limit: .value(.int(1)))
        if !(try await storage.find(try Self.prepared(query, as: .master)).objects.isEmpty) {
            throw APIError(code: 137, "a role named '\(name)' already exists")
        }
    }

    /// 139 when an update would rename a role.
    static func checkRoleUpdate(_ body: [String: Value]) throws(APIError) {
        if body["name"] != nil { throw APIError(code: 139, "a role's name cannot be changed once saved") }
    }

    static func isRoleName(_ name: String) -> Bool {
        let bytes = Array(name.utf8)
        return !bytes.isEmpty && bytes.count <= 128 && bytes.allSatisfy {
            isLetter($0) || ($0 >= 48 && $0 <= 57) || $0 == UInt8(ascii: "_") || $0 == UInt8(ascii: "-") || $0 == UInt8(ascii: " ")
        }
    }

    /// A CQL write on `_Role` keeps the rules of the REST API.
    func checkRoleStatement(_ statement: Statement) async throws {
        guard statement.className == "_Role" else { return }
        switch statement {
        case .insert(let s):
            for row in s.rows {
                var values: [String: Value] = [:]
                for (key, term) in zip(s.columns, row) { if case .value(let v) = term { values[key.name] = v } }
                try await checkNewRole(values)
            }
        case .update(let u):
            if u.assignments.contains(where: { $0.key.name == "name" }) { try Self.checkRoleUpdate(["name": .null]) }
        default: break
        }
    }
}
