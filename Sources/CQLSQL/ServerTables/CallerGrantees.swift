import CQLEval
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
/// try await CallerGrantees.grantees(userId: "u1", on: reader)   // the same, awaited (SQLAsyncDatabaseReader)
/// ```
public enum CallerGrantees {
    /// Ids per `IN (...)` list.
    static let chunk = 500

    public static func grantees(userId: String?, on db: some SQLDatabaseReader) throws(QueryError) -> [String] {
        guard let userId else { return [ACLRule.everyone] }
        var walk = Walk(userId: userId, tables: try db.tableNames(), dialect: db.dialect)
        while let statement = try walk.next() { try walk.take(try db.documents(statement)) }
        return walk.grantees
    }

    /// The same walk, each statement awaited.
    public static func grantees(userId: String?, on db: some SQLAsyncDatabaseReader) async throws(QueryError) -> [String] {
        guard let userId else { return [ACLRule.everyone] }
        var walk = Walk(userId: userId, tables: try await db.tableNames(), dialect: db.dialect)
        while let statement = try walk.next() { try walk.take(try await db.documents(statement)) }
        return walk.grantees
    }

    /// The walk as the statements it runs, one at a time, so that the
    /// blocking and the awaited reader run the same ones: ``next()`` names
    /// the next statement, ``take(_:)`` hands it its rows.
    struct Walk {
        enum Step { case users, roles, names, done }
        let userId: String
        let tables: Set<String>
        let dialect: SQLDialectName
        private(set) var step: Step
        /// The ids this step still asks about, sorted.
        private var pending: [String]
        /// The ids of the statement ``next()`` last named.
        private var asked = 0
        /// What this step found so far.
        private var found = Set<String>()
        /// The roles held.
        private var held = Set<String>()
        private var names: [String] = []

        init(userId: String, tables: Set<String>, dialect: SQLDialectName) {
            self.userId = userId
            self.tables = tables
            self.dialect = dialect
            step = tables.contains("_Role") ? .users : .done
            pending = [userId]
        }

        /// `*`, the user and its roles, once ``next()`` returned nil.
        var grantees: [String] { ACLRule.normalized([userId] + names.map { "role:" + $0 }) }

        /// The next statement to run, nil when the walk is over.
        mutating func next() throws(QueryError) -> SQLStatement? {
            while true {
                switch step {
                case .done:
                    return nil
                case .users, .roles:
                    let table = step == .users ? "_Join:users:_Role" : "_Join:roles:_Role"
                    if tables.contains(table), !pending.isEmpty { return try statement(selecting: "\"owningId\"", from: table, where: "\"relatedId\"") }
                    // A level ends: the roles it found not held yet are the next level's.
                    let new = found.subtracting(held)
                    found = []
                    if new.isEmpty {
                        step = .names
                        pending = held.sorted()
                    } else {
                        held.formUnion(new)
                        step = .roles
                        pending = new.sorted()
                    }
                case .names:
                    if !pending.isEmpty { return try statement(selecting: dialect.storage.documentText, from: "_Role", where: "\"objectId\"") }
                    step = .done
                }
            }
        }

        /// The rows of the statement ``next()`` returned: `doc` the owning
        /// ids of the join rows, or the `_Role` objects (a role without a
        /// string name grants nothing).
        mutating func take(_ documents: [String]) throws(QueryError) {
            pending.removeFirst(asked)
            asked = 0
            if step == .names {
                for d in documents {
                    if case .string(let name)? = try DataFiles.object(json: d)["name"] { names.append(name) }
                }
            } else {
                found.formUnion(documents)
            }
        }

        /// `SELECT column AS "doc" FROM table WHERE key IN (...)` for the
        /// next ``CallerGrantees/chunk`` pending ids.
        private mutating func statement(selecting column: String, from table: String, where key: String) throws(QueryError) -> SQLStatement {
            let d = dialect.dialect
            let part = Array(pending.prefix(CallerGrantees.chunk))
            asked = part.count
            let placeholders = (1...part.count).map { d.placeholder($0) }.joined(separator: ", ")
            return SQLStatement(sql: "SELECT \(column) AS \"doc\" FROM \(try d.quote(table)) WHERE \(key) IN (\(placeholders))",
                                arguments: part.map { .string($0) })
        }
    }
}
