/// The SQL of ``Predicate/aclGrants(_:grantees:)``: ``ACLRule`` over the
/// row's document, the grantees bound (never in the SQL text).
///
/// - PostgreSQL: `((doc @> '{"ACL": {"*": {"read": true}}}'::jsonb OR
///   cql_acl_grantees(doc, 'read') && '{*}'::text[]) OR
///   cql_acl_grantees(doc, 'read') && ARRAY[$1]::text[])`: the public as a
///   literal (a constant of the rule, its usual grant tested first by
///   containment), the caller's own grantees bound.
///   The function (``postgresFunctionSQL``, created when CQLSQL opens the
///   database) lists the grantees the document's ACL grants the right to —
///   `{*}` for a public object — and a GIN index per class table over the
///   read grantees (``postgresIndexExpression``) serves the overlap.
/// - SQLite: a `json_each` over the ACL object of the row (no index: the
///   condition is tested per row the other conditions leave).
///
/// ```swift
/// var ctx = SQLContext(dialect: PostgreSQLDialect())
/// SQLACL.postgres(.read, ["*", "u1"], &ctx)
/// // ((t0."doc" @> '{"ACL": {"*": {"read": true}}}'::jsonb OR cql_acl_grantees(t0."doc", 'read') && '{*}'::text[])
/// //   OR cql_acl_grantees(t0."doc", 'read') && ARRAY[$1]::text[])
/// //   arguments: ["u1"]
/// ```
public enum SQLACL {
    /// The PostgreSQL function the condition and its index read.
    public static let postgresFunction = "cql_acl_grantees"

    /// The body of ``postgresFunction``: the grantees `doc`'s ACL grants
    /// `access` to (``ACLRule``), `{*}` for an object without one. Keys come
    /// from one jsonpath call and are tested in a loop of plpgsql's simple
    /// expressions: no sub-select, which costs a statement per call. The keys come in
    /// jsonb's own order, as `jsonb_each` gave them.
    public static let postgresFunctionBody = """

        DECLARE
            acl jsonb := doc -> 'ACL';
            names jsonb;
            grantee text;
            granted text[] := ARRAY[]::text[];
        BEGIN
            IF acl IS NULL OR jsonb_typeof(acl) = 'null' THEN RETURN ARRAY['*']; END IF;
            IF jsonb_typeof(acl) <> 'object' THEN RETURN granted; END IF;
            names := jsonb_path_query_array(acl, '$.keyvalue().key');
            FOR i IN 0 .. jsonb_array_length(names) - 1 LOOP
                grantee := names ->> i;
                -- NULL unless the entry is an object whose `access` is true.
                IF (acl -> grantee -> access) = 'true'::jsonb THEN granted := granted || grantee; END IF;
            END LOOP;
            RETURN granted;
        END

        """

    /// `CREATE OR REPLACE FUNCTION` of ``postgresFunction``
    /// (``postgresFunctionBody``). plpgsql, so that the planner never
    /// inlines it and the query's expression stays the index's. A database
    /// whose function has another body gets this one when opened: the
    /// answers are the same, so its indexes stay valid.
    public static let postgresFunctionSQL = """
        CREATE OR REPLACE FUNCTION \(postgresFunction)(doc jsonb, access text) RETURNS text[]
        LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE AS $cql$\(postgresFunctionBody)$cql$
        """

    /// The expression a class table's read index is built on (a GIN index).
    public static let postgresIndexExpression = "\(postgresFunction)(\"doc\", 'read')"

    static func postgres(_ right: ACLRight, _ grantees: [String], _ ctx: inout SQLContext) -> String {
        let granted = "\(postgresFunction)(\(ctx.document), '\(right.rawValue)')"
        var parts: [String] = []
        // `*` (the public) is a constant of the rule, every caller's
        // grantee, not a caller's value: written as a literal, the planner
        // weighs it with the index's statistics even in a generic plan (a
        // prepared statement run again), where a bound grantee only gets a
        // default guess. Without it, a class of public objects was read
        // through the ACL index (every entry) instead of a selective one.
        if grantees.contains("*") && ctx.publicGrantByContainment {
            // The public's grant first, as one containment test: a blog's
            // comments say {"*":{"read":true}}, and the function costs a
            // plpgsql call per row, most of PostgreSQL's time in a page. It holds only
            // where the function grants `*` too (containment never matches
            // an array for an object, nor `[true]` for `true`), so the OR is
            // the same set. Only where the class's document index serves
            // the containment: else an OR of grants could no longer be one
            // bitmap scan of the ACL index (a user's private notes).
            // (A space after each colon: pgbench, run on this SQL by the
            // serve bench, reads `:true` as one of its variables.)
            parts.append("(\(ctx.document) @> '{\"ACL\": {\"*\": {\"\(right.rawValue)\": true}}}'::jsonb OR \(granted) && '{*}'::text[])")
        } else if grantees.contains("*") {
            parts.append("\(granted) && '{*}'::text[]")
        }
        let others = grantees.filter { $0 != "*" }
        if !others.isEmpty {
            let bound = others.map { ctx.bind(.string($0)) }
            parts.append("\(granted) && ARRAY[\(bound.joined(separator: ", "))]::text[]")
        }
        if parts.isEmpty { return "FALSE" }
        return parts.count == 1 ? parts[0] : "(\(parts.joined(separator: " OR ")))"
    }

    static func sqlite(_ right: ACLRight, _ grantees: [String], _ ctx: inout SQLContext) -> String {
        let doc = ctx.document, entry = ctx.alias("a")
        let bound = grantees.map { ctx.bind(.string($0)) }
        // CASE keeps json_type from reading an entry that is not JSON text.
        let granted = "CASE WHEN \(entry).type = 'object' THEN json_type(\(entry).value, '$.\(right.rawValue)') = 'true' ELSE FALSE END"
        let general = "(CASE json_type(\(doc), '$.\"ACL\"') WHEN 'object' THEN EXISTS (SELECT 1 FROM json_each(\(doc), '$.\"ACL\"') AS \(entry) "
            + "WHERE \(entry).key IN (\(bound.joined(separator: ", "))) AND \(granted)) "
            + "WHEN 'null' THEN TRUE ELSE json_type(\(doc), '$.\"ACL\"') IS NULL END)"
        guard grantees.contains("*") else { return general }
        // The public's grant first, with one path lookup: the objects of a
        // blog or a public feed say {"*":{"read":true}}, and the json_each
        // costs several times more per row. It grants only rows the
        // json_each grants too (its first "*" entry, when that grants).
        return "(json_type(\(doc), '$.\"ACL\".\"*\".\"\(right.rawValue)\"') = 'true' OR \(general))"
    }
}
