/// The WHERE of a select that runs on a SQLite connection of CQLSQL
/// (``SQLContext/residualMatch``): the conjuncts an index may serve stay
/// SQL the planner can use, and all the others are tested by one
/// `cql_match(doc, ?)` call per row.
///
/// Why: SQLite (3.40, no parse cache) re-parses the document text for every
/// `json_type` and `json_extract`, two per leaf; the
/// registered function reads the text once (the evaluator's structural
/// scan) and answers with the evaluator's own semantics, so the SQL stays
/// exact and costs no more than a careful engineer's. The condition goes as
/// one bound where-JSON argument, never in the SQL text, and SQLite keeps
/// its compiled form for the statement (`sqlite3_set_auxdata`).
///
/// ```swift
/// // where priority >= 4 and done = false, with `cql load --index priority`:
/// // (((json_type(t0."doc", '$."priority"') IN ('integer', 'real') AND json_extract(..) >= ?1) OR (..array..))
/// //   AND cql_match(t0."doc", ?2))            ?2 = {"done":false}
/// // without the index: cql_match(t0."doc", ?1)  ?1 = {"$and":[{"priority":{"$gte":4}},{"done":false}]}
/// ```
extension SQLGenerator {
    static func whereCondition(_ c: Condition, _ ctx: inout SQLContext) throws(QueryError) -> SQLFragment {
        guard ctx.residualMatch, ctx.dialect.hasResidualMatch else { return try condition(c, &ctx) }
        let items: [Condition]
        if case .and(let all) = c.predicate { items = all } else { items = [c] }
        // Kept as SQL: what an index may serve, and what cql_match cannot
        // take (a conjunct whose where-JSON does not read back to itself,
        // e.g. a LIKE, which reads back as a regex).
        var kept: [Condition] = [], residual: [Condition] = []
        for item in items {
            if keepsSQL(item, ctx) || SQLiteDialect.matchText([item]) == nil { kept.append(item) } else { residual.append(item) }
        }
        guard !residual.isEmpty, let text = SQLiteDialect.matchText(residual) else { return try condition(c, &ctx) }
        var conjuncts: [SQLConjunct] = []
        var exact = true
        // The index-served conjuncts first: SQLite tests AND's operands in
        // order, so the function runs only on the rows they let through.
        for item in kept.filter({ keepsSQL($0, ctx) }) {
            let f = try condition(item, &ctx)
            if let s = f.sql { conjuncts.append(SQLConjunct(sql: s, isACL: item.isACLGrant)) }
            exact = exact && f.exact
        }
        conjuncts.append(SQLConjunct(sql: "cql_match(\(ctx.document), \(ctx.bind(.string(text))))", isACL: false))
        for item in kept where !keepsSQL(item, ctx) {
            let f = try condition(item, &ctx)
            if let s = f.sql { conjuncts.append(SQLConjunct(sql: s, isACL: item.isACLGrant)) }
            exact = exact && f.exact
        }
        let parts = ctx.dialect.orderingACLFirst(conjuncts)
        return SQLFragment(sql: parts.count == 1 ? parts[0] : "(" + parts.joined(separator: " AND ") + ")", exact: exact)
    }

    /// Whether a conjunct stays SQL: it reads other tables (subqueries,
    /// relations, ACL grants: one row's function cannot answer), a column
    /// of its own answers it (`objectId`, Date ranges on `createdAt` /
    /// `updatedAt`), or an index on its one-step key may serve it
    /// (``SQLContext/indexedKeys``, for the row `t0` only) — and so may an
    /// `and` / `or` of such conjuncts.
    static func keepsSQL(_ c: Condition, _ ctx: SQLContext) -> Bool {
        func indexed(_ path: FieldPath) -> Bool {
            ctx.rowAlias == "t0" && path.components.count == 1 && ctx.indexedKeys.contains(path.components[0])
        }
        switch c.predicate {
        case .and(let items), .or(let items): return items.allSatisfy { keepsSQL($0, ctx) }
        case .constant, .aclGrants, .relatedTo, .relationHolds, .inQuery, .select: return true
        case .not(let inner), .elementMatch(_, let inner): return SQLiteDialect.readsOtherCollections(inner)
        case .compare(let path, let op, .value(.string)) where path.singleComponent == "objectId" && op != .notEqual: return true
        case .in(let path, _, false) where path.singleComponent == "objectId": return true
        case .compare(let path, _, .value(.date)) where SQLStoredColumns.column(path).map(SQLStoredColumns.dateKeys.contains) == true:
            return true
        case .compare(let path, let op, _): return op != .notEqual && indexed(path)
        case .in(let path, _, false), .prefix(let path, _), .exists(let path, true), .like(let path, _), .regex(let path, _, _):
            // A prefix (LIKE 'den%', ^den) is a range on the index.
            return indexed(path)
        case .in, .exists, .all, .size, .text, .containedBy, .type, .modulo, .fullText, .near, .withinBox, .withinPolygon,
             .withinCenterSphere, .geoIntersects: return false
        }
    }
}
