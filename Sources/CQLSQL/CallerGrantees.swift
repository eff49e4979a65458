import CQLKit

/// Who a caller is in an ACL (Server.md, "ACLs and roles"): `*`, the user's
/// objectId and `role:<name>` for every role the user holds, read from the
/// database once per request.
///
/// A user holds role R when R's `users` relation lists it, or when it holds
/// a role that R's `roles` relation lists (a child role's members get the
/// parent's grants, as on Parse and LeanCloud). The roles are found level by
/// level through the `_Join:users:_Role` and `_Join:roles:_Role` tables; a
/// role already found is not followed again, so a cycle ends the walk.
/// Roles are read as the master key would (their own ACLs do not hide them:
/// holding a role is not reading it).
///
/// ```swift
/// try CallerGrantees.grantees(userId: "u1", on: db)
/// // ["*", "role:editors", "role:staff", "u1"]   (u1 is in staff; staff is in editors' roles)
/// try CallerGrantees.grantees(userId: nil, on: db)   // ["*"]
/// ```
public enum CallerGrantees {
    /// Ids per `IN (...)` list.
    static let chunk = 500

    public static func grantees(userId: String?, on db: some SQLExecutor) throws(QueryError) -> [String] {
        guard let userId else { return [ACLRule.everyone] }
        let tables = try db.tableNames()
        guard tables.contains("_Role") else { return ACLRule.normalized([userId]) }
        var held = Set<String>()
        var found = try owners(relatedTo: [userId], in: "_Join:users:_Role", tables, db)
        while !found.isEmpty {
            held.formUnion(found)
            found = try owners(relatedTo: found, in: "_Join:roles:_Role", tables, db).subtracting(held)
        }
        return ACLRule.normalized([userId] + (try names(of: held, db)).map { "role:" + $0 })
    }

    /// The owning ids of the join rows whose related id is one of `ids`.
    static func owners(relatedTo ids: Set<String>, in table: String, _ tables: Set<String>, _ db: some SQLExecutor) throws(QueryError) -> Set<String> {
        guard tables.contains(table), !ids.isEmpty else { return [] }
        let d = db.dialect.dialect
        let sorted = ids.sorted()
        var owners = Set<String>()
        for start in stride(from: 0, to: sorted.count, by: chunk) {
            let part = Array(sorted[start..<min(start + chunk, sorted.count)])
            let placeholders = (1...part.count).map { d.placeholder($0) }.joined(separator: ", ")
            let sql = "SELECT \"owningId\" AS \"doc\" FROM \(try d.quote(table)) WHERE \"relatedId\" IN (\(placeholders))"
            owners.formUnion(try db.documents(SQLStatement(sql: sql, arguments: part.map { .string($0) })))
        }
        return owners
    }

    /// The `name`s of the `_Role` objects with these ids (a role without a
    /// string name grants nothing).
    static func names(of ids: Set<String>, _ db: some SQLExecutor) throws(QueryError) -> [String] {
        guard !ids.isEmpty else { return [] }
        var names: [String] = []
        let sorted = ids.sorted()
        for start in stride(from: 0, to: sorted.count, by: chunk) {
            let part = sorted[start..<min(start + chunk, sorted.count)].map { Term.value(.string($0)) }
            let query = Query(className: "_Role", keys: [SelectedKey("name")],
                              condition: Condition(.in("objectId", part, negated: false)))
            for o in try SQLRunner.run(query, on: db).objects {
                if case .string(let name)? = o["name"] { names.append(name) }
            }
        }
        return names
    }
}
