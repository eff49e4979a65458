import CQLKit

/// The ACL read condition's function and indexes (``SQLACL``).
///
/// Every class table has a GIN index over `cql_acl_grantees("doc", 'read')`,
/// the grantees its objects' ACLs grant read to, made with the table; a
/// database made before it gets the function and the indexes when opened.
/// The caller's grantees then find the readable rows through the index
/// (`&&`, array overlap), as `cql run --explain --grantees` shows.
extension PostgreSQLDatabase {
    /// Creates the function when missing (or replaces an earlier body) and
    /// the read index of every class table that lacks one, in one
    /// transaction under an advisory lock (a server opens several
    /// connections at once).
    func prepareACL() throws(QueryError) {
        try execute("BEGIN")
        do {
            try execute("SELECT pg_advisory_xact_lock(7345093624)")
            // Missing, or made by an earlier version with another body.
            let bodies = try strings(try execute("SELECT prosrc FROM pg_proc WHERE proname = $1", [.string(SQLACL.postgresFunction)]))
            if bodies != [SQLACL.postgresFunctionBody] { try execute(SQLACL.postgresFunctionSQL) }
            let unindexed = try strings(try execute("""
                SELECT c.relname::text FROM pg_class c WHERE c.relkind = 'r' AND c.relnamespace = current_schema()::regnamespace
                AND c.relname NOT LIKE '\\_Join:%' AND EXISTS (SELECT 1 FROM pg_attribute a WHERE a.attrelid = c.oid AND a.attname = 'raw' AND NOT a.attisdropped)
                AND NOT EXISTS (SELECT 1 FROM pg_index i WHERE i.indrelid = c.oid AND pg_get_expr(i.indexprs, i.indrelid) LIKE $1)
                """, [.string("%\(SQLACL.postgresFunction)%")]))
            for className in unindexed where !className.contains(":") {
                try createACLIndex(className)
                // Statistics of the new index's expression: without them the
                // planner guesses the share of public rows, and a class of
                // public objects was read through the ACL index.
                if let table = try? PostgreSQLDialect().quote(className) { try execute("ANALYZE \(table)") }
            }
            try execute("COMMIT")
        } catch {
            _ = try? execute("ROLLBACK")
            throw error
        }
    }

    /// The GIN index of a class table's read grantees (none for a table
    /// whose name holds `:`, which no class name does: the server's own
    /// tables, such as its sessions, are never queried under an ACL).
    func createACLIndex(_ className: String) throws(QueryError) {
        if className.contains(":") { return }
        let d = PostgreSQLDialect()
        // A name past PostgreSQL's 63 bytes is refused by quote(): such a
        // (rare, long) class goes without (as without its column indexes).
        guard let name = try? d.quote("\(className):ACL") else { return }
        try execute("CREATE INDEX IF NOT EXISTS \(name) ON \(try d.quote(className)) USING GIN (\(SQLACL.postgresIndexExpression))")
    }
}
