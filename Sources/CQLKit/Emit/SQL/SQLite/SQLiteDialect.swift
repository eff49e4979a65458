/// SQLite (3.38+): `doc` is TEXT holding the object's JSON.
///
/// Shapes (SQLBackends.md): `json_type` tells null (`'null'`) from missing (SQL
/// NULL) and guards every comparison with the constant's type class (JSON
/// `true` extracts as 1); `json_each` fans out over arrays, one level per
/// path step as the evaluator's walk does; TEXT compares by bytes, which is
/// code-point order. Regex, LIKE and Usergrid's case-insensitive matches call
/// `cql_regexp(pattern, options, value)`, and ORDER BY calls
/// `cql_sort_value(doc, steps, descending)` (steps: a JSON array) with the collation `cql_order`:
/// functions that CQLSQL registers from the evaluator itself, so they are
/// exact by construction.
///
/// ```swift
/// // where score = 80
/// // (json_type(t0."doc", '$."score"') IN ('integer', 'real') AND json_extract(t0."doc", '$."score"') = ?1)
/// //  OR (json_type(t0."doc", '$."score"') = 'array' AND EXISTS (SELECT 1 FROM json_each(t0."doc", '$."score"') AS e1
/// //      WHERE e1.type IN ('integer', 'real') AND e1.value = ?1))
/// ```
public struct SQLiteDialect: SQLDialect, SQLWriteDialect {
    public init() {}
    public var name: SQLDialectName { .sqlite }

    /// The functions (name, argument count) and collations the generated
    /// SQL calls, which the database must register (CQLSQL's
    /// `SQLiteDatabase` does, from the evaluator; the fuzzer registers
    /// stand-ins to prepare the SQL; a test checks both lists agree).
    public static let registeredFunctions: [(name: String, arity: Int)] = [
        ("cql_regexp", 3), ("cql_match", 2), ("cql_select", 3), ("cql_sort_value", 3), ("cql_sort_key", 2),
    ]
    public static let registeredCollations = ["cql_order", "cql_order_keys"]

    /// The registered functions that can fail on a row (the evaluator's
    /// regex budget): ``orderingACLFirst(_:)`` guards them.
    static let rowFailingCalls = ["cql_regexp(", "cql_match("]

    /// SQLite codes a term holding a correlated subquery — the ACL test's
    /// `json_each` — after the others, whatever the written order, so the
    /// terms that can fail on a row go inside `CASE WHEN <ACL> THEN ...
    /// ELSE 0 END`, which tests the ACL first; the rest stay terms of their
    /// own, for the indexes to serve.
    public func orderingACLFirst(_ conjuncts: [SQLConjunct]) -> [String] {
        let acl = conjuncts.filter(\.isACL).map(\.sql)
        func fails(_ c: SQLConjunct) -> Bool { !c.isACL && SQLiteDialect.rowFailingCalls.contains { c.sql.contains($0) } }
        guard !acl.isEmpty, conjuncts.contains(where: fails) else { return conjuncts.map(\.sql) }
        let safe = conjuncts.filter { !$0.isACL && !fails($0) }.map(\.sql)
        let risky = conjuncts.filter(fails).map(\.sql)
        return safe + ["CASE WHEN " + acl.joined(separator: " AND ") + " THEN (" + risky.joined(separator: " AND ") + ") ELSE 0 END"]
    }
    public func placeholder(_ index: Int) -> String {
        index > 0 && index <= SQLiteDialect.placeholders.count ? SQLiteDialect.placeholders[index - 1] : "?\(index)"
    }

    /// `?1` ... `?64`, made once: every bound value asks for one.
    private static let placeholders = (1...64).map { "?\($0)" }
    public func inputOrder(_ alias: String) -> String { "\(alias).rowid" }
    public func documentColumn(_ alias: String) -> String { "\(alias).\"doc\"" }

    // The database's facts (``SQLDialect``).
    public var resultColumns: String { SQLiteDialect.resultColumns }
    private static let resultColumns = "t0.\"objectId\", " + SQLiteDialect().documentColumn("t0")
    public var maxParenthesisDepth: Int? { SQLGenerator.maxParenthesisDepth }
    public func aclGrants(_ right: ACLRight, grantees: [String], _ context: inout SQLContext) -> String {
        SQLACL.sqlite(right, grantees, &context)
    }
    public var hasResidualMatch: Bool { true }
    /// SQLite keeps names starting with sqlite_ (any case) for itself.
    public func tableNameProblem(_ identifier: String) -> String? {
        identifier.utf8.count >= 7 && identifier.prefix(7).lowercased() == "sqlite_" ? "starts with sqlite_, which SQLite reserves" : nil
    }
    public var storesNUL: Bool { true }
    var insertColumns: String { "(\"objectId\", \"doc\", \"createdAt\", \"updatedAt\")" }
    func insertRow(objectId: String, document: String, stamp: String) -> String {
        "(\(objectId), \(document), \(stamp), \(stamp))"
    }
    var joinTableColumns: String { "(\"owningId\" TEXT, \"relatedId\" TEXT)" }
    func unwritableKey(_ key: String) -> String? {
        SQLiteDialect.member(key) == nil ? "the key '\(key)' cannot be spelled in a JSON path" : nil
    }
    func update(_ plan: SQLUpdatePlan, condition: String?, _ context: inout SQLContext) throws(QueryError) -> SQLStatement {
        try SQLiteDialect.update(plan, condition: condition, &context)
    }

    public func paging(limit: String?, offset: String?) -> String {
        var s = " LIMIT \(limit ?? "-1")"
        if let offset { s += " OFFSET \(offset)" }
        return s
    }

    /// The JSON path of a member step (`."key"`), or `nil` for keys SQLite's
    /// path syntax cannot spell (a `"`, a backslash, NUL, empty).
    static func member(_ key: String) -> String? {
        canSpell(key) ? ".\"\(key)\"" : nil
    }

    /// What `cql load --index k` indexes so that the shapes of a one-step
    /// key `k` are served: the value and its JSON type (the type index serves
    /// the array branch of the equality OR). Written exactly as the shapes
    /// write them, since SQLite matches index expressions textually.
    ///
    /// ```swift
    /// SQLiteDialect.indexedExpressions(forKey: "score")
    /// // ["json_extract(\"doc\", '$.\"score\"')", "json_type(\"doc\", '$.\"score\"')"]
    /// ```
    public static func indexedExpressions(forKey key: String) -> [String]? {
        guard let m = member(key) else { return nil }
        let p = sqlLiteral("$" + m)
        return ["json_extract(\"doc\", \(p))", "json_type(\"doc\", \(p))"]
    }

    /// Whether every step of `path` can be spelled in a JSON path.
    static func canSpell(_ path: FieldPath) -> Bool {
        // A one-key path without building `components` (an array).
        if let key = path.singleComponent { return canSpell(key) }
        let steps = path.components
        if steps.isEmpty { return false }
        for step in steps where !canSpell(step) { return false }
        return true
    }

    /// Whether ``member(_:)`` spells `key` (without building the step).
    static func canSpell(_ key: String) -> Bool {
        if key.isEmpty { return false }
        var key = key
        return key.withUTF8 { bytes in
            for b in bytes where b == 0x22 || b == 0x5C || b < 0x20 { return false }
            return true
        }
    }

    /// Whether a constant string holds NUL: SQLite binds text up to the
    /// first NUL (GRDB passes C strings), so such predicates are re-checked.
    static func bindsNUL(_ p: Predicate) -> Bool {
        func term(_ t: Term) -> Bool {
            switch t {
            case .value(.string(let s)): return s.utf8.contains(0)
            case .array(let items): return items.contains(where: term)
            default: return false
            }
        }
        switch p {
        case .compare(_, _, let t), .regex(_, let t, _), .like(_, let t): return term(t)
        case .in(_, let ts, _), .all(_, let ts): return ts.contains(where: term)
        case .text(_, _, let s), .prefix(_, let s): return s.utf8.contains(0)
        case .and, .or, .not, .constant, .size, .exists, .containedBy, .elementMatch, .type, .modulo, .fullText,
             .select, .inQuery, .relatedTo, .relationHolds, .aclGrants, .near, .withinBox, .withinPolygon, .withinCenterSphere,
             .geoIntersects: return false
        }
    }

    public func leaf(_ predicate: Predicate, _ ctx: inout SQLContext) throws(QueryError) -> SQLFragment {
        let notesBefore = ctx.rechecked
        let mark = ctx.mark
        if SQLiteDialect.bindsNUL(predicate) {
            // JSON text escapes NUL: the evaluator's matcher sees it whole.
            if let s = SQLiteDialect.evaluatorMatch(predicate, &ctx) { return .exact(s) }
            ctx.note("a string holding NUL")
            return .notPushed
        }
        let sql: String?
        switch predicate {
        case .exists(let path, let present):
            guard let s = SQLiteDialect.walk(path, &ctx, missing: false, { doc, p, _ in
                "json_type(\(doc), \(sqlLiteral(p))) IS NOT NULL"
            }) else { sql = nil; break }
            sql = present ? s : "NOT COALESCE(\(s), FALSE)"
        case .compare(let path, let op, let term) where !SQLTerms.coercesDates(path):
            guard let v = SQLScalar(term) else { sql = nil; break }
            switch op {
            case .equal: sql = SQLiteDialect.membership(path, [v], &ctx)
            case .notEqual: sql = SQLiteDialect.membership(path, [v], &ctx).map { "NOT COALESCE(\($0), FALSE)" }
            default: sql = SQLiteDialect.range(path, op, v, &ctx)
            }
        case .in(let path, let terms, let negated) where !SQLTerms.coercesDates(path):
            guard let values = SQLTerms.scalars(terms) else { sql = nil; break }
            sql = SQLiteDialect.membership(path, values, &ctx).map { negated ? "NOT COALESCE(\($0), FALSE)" : $0 }
        case .all(let path, let terms) where !SQLTerms.coercesDates(path):
            guard let values = SQLTerms.scalars(terms) else { sql = nil; break }
            if values.isEmpty { sql = "FALSE"; break }
            var parts: [String] = []
            for v in values {
                guard let s = SQLiteDialect.membership(path, [v], &ctx) else { return .notPushed }
                parts.append(s)
            }
            sql = "(" + parts.joined(separator: " AND ") + ")"
        case .size(let path, let term):
            guard let n = SQLTerms.count(term) else { sql = nil; break }
            let b = ctx.bind(.int(n))
            sql = SQLiteDialect.walk(path, &ctx, missing: false) { doc, p, _ in
                "(json_type(\(doc), \(sqlLiteral(p))) = 'array' AND json_array_length(\(doc), \(sqlLiteral(p))) = \(b))"
            }
        case .regex(let path, let pattern, let options) where !SQLTerms.coercesDates(path):
            guard let p = SQLTerms.string(pattern) else { sql = nil; break }
            sql = SQLiteDialect.regex(path, p, options, prefix: "", &ctx)
        case .like(let path, let pattern) where !SQLTerms.coercesDates(path):
            guard let p = SQLTerms.string(pattern) else { sql = nil; break }
            sql = SQLiteDialect.regex(path, LikePattern.regex(p), LikePattern.options, prefix: SQLTerms.likePrefix(p), &ctx)
        case .text(let path, let match, let text) where !SQLTerms.coercesDates(path):
            // The case-insensitive ranges have no regex: re-checked.
            guard let (p, o) = TextRegex.regex(match, text) else { sql = nil; break }
            sql = SQLiteDialect.regex(path, p, o, prefix: "", &ctx)
        case .prefix(let path, let prefix) where !SQLTerms.coercesDates(path):
            sql = SQLiteDialect.prefix(path, prefix, &ctx)
        case .near:
            // The evaluator's own test where the where-JSON reads back
            // (radians); otherwise a bounding box and a widened SQL
            // haversine, re-checked.
            if let s = SQLiteDialect.evaluatorMatch(predicate, &ctx) { return .exact(s) }
            ctx.note(SQLNotes.describe(predicate))
            guard let b = SQLNearBounds(predicate), let s = SQLiteDialect.near(b, &ctx) else { return .notPushed }
            return .superset(s)
        case .and, .or, .not, .constant, .compare, .in, .all, .regex, .like, .prefix, .text, .containedBy,
             .elementMatch, .type, .modulo, .fullText, .select, .inQuery, .relatedTo, .relationHolds, .aclGrants, .withinBox,
             .withinPolygon, .withinCenterSphere, .geoIntersects:
            sql = nil
        }
        guard let sql else {
            // No SQL shape: the evaluator's own predicate, registered (the
            // arguments of the shape given up are dropped first).
            ctx.rollback(to: mark)
            if let s = SQLiteDialect.evaluatorMatch(predicate, &ctx) {
                ctx.rechecked = notesBefore
                return .exact(s)
            }
            return notPushed(predicate, &ctx)
        }
        return .exact(sql)
    }

    /// The prefilter of a `near` (see ``SQLNearBounds``): some value the
    /// path reaches is an array (its points are left to the re-check), or an
    /// object whose coordinates are out of range (likewise), or lie in the
    /// bounding box within the widened haversine distance.
    ///
    /// ```swift
    /// // where loc near geopoint(2, 1) within 10 km  →  (json_type(t0."doc", '$."loc"') = 'array'
    /// //   OR (json_type(t0."doc", '$."loc"') = 'object' AND (<lat> NOT BETWEEN -90 AND 90 OR <lng> NOT BETWEEN -180 AND 180
    /// //   OR (<lat> BETWEEN ?1 AND ?2 AND (<lng> BETWEEN ?3 AND ?4) AND 2 * asin(sqrt(min(1, ...))) <= ?7))))
    /// ```
    static func near(_ b: SQLNearBounds, _ ctx: inout SQLContext) -> String? {
        walk(b.path, &ctx, missing: false) { doc, p, ctx in
            let lat = "json_extract(\(doc), \(sqlLiteral(p + ".\"latitude\"")))"
            let lng = "json_extract(\(doc), \(sqlLiteral(p + ".\"longitude\"")))"
            var box = ["\(lat) BETWEEN \(ctx.bind(.double(b.latitude.lowerBound))) AND \(ctx.bind(.double(b.latitude.upperBound)))"]
            if !b.longitudes.isEmpty {
                var ranges: [String] = []
                for r in b.longitudes {
                    ranges.append("\(lng) BETWEEN \(ctx.bind(.double(r.lowerBound))) AND \(ctx.bind(.double(r.upperBound)))")
                }
                box.append("(" + ranges.joined(separator: " OR ") + ")")
            }
            let phi0 = ctx.bind(.double(b.centerLatitudeRadians))
            let lambda0 = ctx.bind(.double(b.centerLongitudeRadians))
            let cosPhi0 = ctx.bind(.double(b.cosCenterLatitude))
            let a = "pow(sin((radians(\(lat)) - \(phi0)) / 2), 2) + \(cosPhi0) * cos(radians(\(lat))) * pow(sin((radians(\(lng)) - \(lambda0)) / 2), 2)"
            box.append("2 * asin(sqrt(min(1, \(a)))) <= \(ctx.bind(.double(b.maxAngle)))")
            let t = "json_type(\(doc), \(sqlLiteral(p)))"
            return "(\(t) = 'array' OR (\(t) = 'object' AND (\(lat) NOT BETWEEN -90 AND 90 OR \(lng) NOT BETWEEN -180 AND 180 OR ("
                + box.joined(separator: " AND ") + "))))"
        }
    }

    /// `cql_match(doc, ?)`: the evaluator's own test of `predicate` on the
    /// row's object — registered by `SQLiteDatabase` as `cql_regexp` is —
    /// with the predicate bound as MongoDB where-JSON. Used for the leaves
    /// no SQL shape expresses (typed values, geo, `$elemMatch`, `$type`,
    /// `$mod`, `$containedBy`, case-insensitive ranges, long paths): exact
    /// by construction, since the where-JSON must read back to the same
    /// predicate. `nil` when it does not, or when the predicate reads other
    /// collections (subqueries, relations), which one row cannot answer.
    static func evaluatorMatch(_ predicate: Predicate, _ ctx: inout SQLContext) -> String? {
        evaluatorMatch([Condition(predicate)], &ctx)
    }

    /// `cql_match(doc, ?)` testing all of `conjuncts` (their `and`) in one
    /// call: the where-JSON `{"$and":[...]}` of each one's where-JSON, so
    /// that it reads back conjunct by conjunct, in order (a merged object
    /// would read back in key order). `nil` as for one predicate.
    static func evaluatorMatch(_ conjuncts: [Condition], _ ctx: inout SQLContext) -> String? {
        guard let text = matchText(conjuncts) else { return nil }
        return "cql_match(\(ctx.document), \(ctx.bind(.string(text))))"
    }

    /// The where-JSON ``evaluatorMatch(_:_:)-([Condition],_)`` binds, or
    /// `nil` when it does not read back to `conjuncts`.
    static func matchText(_ conjuncts: [Condition]) -> String? {
        guard !conjuncts.isEmpty, !conjuncts.contains(where: { readsOtherCollections($0) }) else { return nil }
        var parts: [Value] = []
        for c in conjuncts {
            guard let whereJSON = try? WhereJSONEmitter.emitCondition(c, dialect: .mongo) else { return nil }
            parts.append(whereJSON)
        }
        let text = JSONWriter.string(parts.count == 1 ? parts[0] : .object(["$and": .array(parts)]))
        let predicate = conjuncts.count == 1 ? conjuncts[0].predicate : .and(conjuncts)
        // Read back exactly as the registered function reads the bound text
        // (parsed, typed values decoded), so both see the same predicate.
        guard let parsed = try? JSONReader.parse("{\"where\":" + text + "}").decodingTypedValues(),
            let back = try? WhereJSONReader.read(parsed, className: "T"),
            back.condition?.predicate == predicate
        else { return nil }
        return text
    }

    /// Whether a sub-query or a relation is read anywhere in `c` outside
    /// the sub-queries themselves.
    static func readsOtherCollections(_ c: Condition) -> Bool {
        c.contains(entering: .elementMatch) { $0.outsideRead != nil }
    }

    public func order(_ key: OrderKey, _ ctx: inout SQLContext) -> [String]? {
        ["\(sortValue(key, &ctx)) COLLATE cql_order\(key.descending ? " DESC" : "")"]
    }

    /// `cql_sort_value(doc, steps, descending)`: the path as a JSON array of
    /// its steps (a key may hold a dot).
    func sortValue(_ key: OrderKey, _ ctx: inout SQLContext) -> String {
        let path = ctx.bind(.string(JSONWriter.string(.array(key.path.components.map { .string($0) }))))
        return "cql_sort_value(\(ctx.document), \(path), \(key.descending ? "1" : "0"))"
    }

    /// `objectId` by its key column (TEXT compares by bytes: code points);
    /// `createdAt`/`updatedAt` by their date column (NULL, the rows without
    /// a Date, sorts first: where the evaluator ranks them when ascending,
    /// and last when descending), then by the evaluator's sort value, for
    /// the rows without a Date only: it is equal for equal Dates, so sorting
    /// many rows (a Valine page's comments of one `url`) parses no document
    /// for the rows with one.
    public func columnOrder(_ key: OrderKey, column: String, _ ctx: inout SQLContext) -> [String]? {
        let direction = key.descending ? " DESC" : ""
        let c = "\(ctx.rowAlias).\"\(column)\""
        if column == "objectId" { return [c + direction] }
        return [c + direction, "(CASE WHEN \(c) IS NULL THEN \(sortValue(key, &ctx)) END) COLLATE cql_order\(direction)"]
    }

    /// Several keys: one `cql_sort_key(doc, keys)` value per row, the
    /// evaluator's compound sort key (MongoDB pairs keys through one array
    /// per element, and fails on parallel arrays), compared by the collation
    /// `cql_order_keys`. One key: ``order(_:_:)-(OrderKey,_)``.
    public func order(_ keys: [OrderKey], _ ctx: inout SQLContext) -> [String]? {
        if keys.count == 1 { return order(keys[0], &ctx) }
        let spec = ctx.bind(.string(JSONWriter.string(.array(keys.map { key in
            .array([.bool(key.descending)] + key.path.components.map { .string($0) })
        }))))
        return ["cql_sort_key(\(ctx.document), \(spec)) COLLATE cql_order_keys"]
    }

    /// `cql_select(doc, paths, (SELECT json_group_array("doc") ...))`: the
    /// subquery's objects (their JSON texts, in one array) and the row go to
    /// the evaluator's own `$select` test, registered — the values `key`
    /// reaches in each object, matched against `path` as `in` matches. The
    /// subselect is not correlated, so SQLite runs it once.
    public func selectIn(path: FieldPath, key: FieldPath, documents: String, _ ctx: inout SQLContext) -> SQLFragment {
        let paths = ctx.bind(.string(JSONWriter.string(.array([
            .array(path.components.map { .string($0) }), .array(key.components.map { .string($0) }),
        ]))))
        let s = ctx.alias("s")
        return .exact("cql_select(\(ctx.document), \(paths), (SELECT json_group_array(\(s).\"doc\") FROM (\(documents)) AS \(s)))")
    }

    public func pointerIn(path: FieldPath, className: String, ids: String, _ ctx: inout SQLContext) -> SQLFragment {
        let c = ctx.bind(.string(className))
        let s = SQLiteDialect.walk(path, &ctx, missing: false) { doc, p, ctx in
            let e = ctx.alias("e")
            func test(_ d: String, _ base: String) -> String {
                "(json_extract(\(d), \(sqlLiteral(base + ".\"__type\""))) = 'Pointer' AND json_extract(\(d), \(sqlLiteral(base + ".\"className\""))) = \(c) "
                    + "AND json_extract(\(d), \(sqlLiteral(base + ".\"objectId\""))) IN (\(ids)))"
            }
            return "(\(test(doc, p)) OR (json_type(\(doc), \(sqlLiteral(p))) = 'array' AND EXISTS (SELECT 1 FROM json_each(\(doc), \(sqlLiteral(p))) AS \(e) "
                + "WHERE \(e).type = 'object' AND \(test("\(e).value", "$")))))"
        }
        guard let s else {
            ctx.note("subquery through \(path.dotted)")
            return .notPushed
        }
        return .exact(s)
    }
}
