/// Turns a bound ``Query`` into SQL for one dialect (SQLBackends.md,
/// "Storage"): one table per class, `"<Class>"(objectId, doc)` holding the
/// whole object as JSON, relations in `"_Join:<key>:<Owner>"`.
///
/// Every piece is either exact (the database answers alone) or a superset
/// that the caller re-checks with the evaluator's own predicate (CQLSQL does,
/// in `cql run`). ``translate(_:dialect:)`` accepts only exact SQL and
/// otherwise throws a named ``QueryError/Kind/unsupported`` error;
/// ``pushdown(_:dialect:arrayFreeKeys:residualMatch:indexedKeys:documentIndexed:unindexedKeys:publicGrantByContainment:)`` returns the best superset.
///
/// ```swift
/// let q = try Binder.bind(try CQLParser.parse("select * from GameScore where score > 80 limit 5"))
/// let t = try SQLGenerator.translate(q, dialect: .sqlite)
/// // t.select.sql: SELECT t0."objectId", t0."doc" FROM "GameScore" AS t0
/// //   WHERE ((json_type(t0."doc", '$."score"') IN ('integer', 'real') AND json_extract(t0."doc", '$."score"') > ?1)
/// //   OR (...array elements...)) ORDER BY t0.rowid LIMIT ?2
/// // t.select.arguments: [80, 5]
/// ```
public enum SQLGenerator {
    /// Exact SQL for `query`, or an `unsupported` error naming the parts the
    /// dialect cannot express exactly.
    public static func translate(_ query: Query, dialect: SQLDialectName) throws(QueryError) -> SQLTranslation {
        let t = try pushdown(query, dialect: dialect)
        guard t.isExact else {
            throw QueryError(
                .unsupported,
                "\(dialect.rawValue) cannot express this query exactly (\(t.rechecked.joined(separator: "; "))); "
                    + "`cql run` pushes a superset down and re-checks the rows",
                range: query.condition?.range ?? query.range, source: query.source)
        }
        return t
    }

    /// The exact SQL where possible; otherwise a prefilter (a superset of the
    /// matches, in input order, unpaged) whose rows the caller re-checks,
    /// sorts and pages with the evaluator.
    ///
    /// `arrayFreeKeys`: one-step keys the database has proved hold no array
    /// in any row of the query's class (``SQLContext/arrayFreeKeys``).
    ///
    /// `residualMatch` and `indexedKeys`: for SQL run on CQLSQL's SQLite
    /// connection (``SQLContext/residualMatch``); `translate` leaves them off.
    public static func pushdown(
        _ query: Query, dialect name: SQLDialectName, arrayFreeKeys: Set<String> = [],
        residualMatch: Bool = false, indexedKeys: Set<String> = [], documentIndexed: Bool = true,
        unindexedKeys: Set<String> = [], publicGrantByContainment: Bool = true
    ) throws(QueryError) -> SQLTranslation {
        let dialect = name.dialect
        let facts = SQLDatabaseFacts(
            arrayFreeKeys: arrayFreeKeys, residualMatch: residualMatch, indexedKeys: indexedKeys,
            documentIndexed: documentIndexed, unindexedKeys: unindexedKeys, publicGrantByContainment: publicGrantByContainment)
        // A parser with a nesting limit (SQLite's stack overflows near 20
        // parentheses): each try pushes less deep until the text nests under
        // it (what is cut is re-checked). Without one, the text is not scanned.
        var depthLimit = maxPushedDepth
        let parenthesisLimit = dialect.maxParenthesisDepth
        let namesAreUnbracketed = parenthesisLimit != nil && SQLGenerator.namesAreUnbracketed(query)
        var ctx: SQLContext
        var base: Select
        repeat {
            ctx = SQLContext(dialect: dialect, facts: facts, maxDepth: depthLimit)
            base = try selectStatement(query, &ctx, columns: dialect.resultColumns, wantExact: false)
            guard let parenthesisLimit, depthLimit > 0 else { break }
            if namesAreUnbracketed {
                let bound = closingBound(base.sql)
                assert(parenthesisDepth(base.sql) <= bound, "closingBound below the depth of \(base.sql)")
                if bound <= parenthesisLimit { break }
            }
            if parenthesisDepth(base.sql) <= parenthesisLimit { break }
            depthLimit = depthLimit > 4 ? depthLimit - 2 : depthLimit - 1
        } while true
        if ctx.depthCut { ctx.note("conditions nested too deeply for SQL") }
        var count: SQLStatement?
        if query.count != .none && base.whereExact {
            var cctx = SQLContext(dialect: dialect, facts: facts, maxDepth: depthLimit)
            let c = try selectStatement(query, &cctx, columns: "count(*)", wantExact: false, counting: true)
            count = SQLStatement(sql: c.sql, arguments: cctx.arguments)
        }
        return SQLTranslation(
            select: SQLStatement(sql: base.sql, arguments: ctx.arguments), count: count,
            whereIsExact: base.whereExact, orderIsExact: base.orderExact, rechecked: ctx.rechecked, query: query)
    }


    struct Select {
        var sql: String
        var whereExact: Bool
        var orderExact: Bool
    }

    /// `SELECT columns FROM "Class" AS alias WHERE ... ORDER BY ... LIMIT ...`
    /// in `ctx`'s current row alias. With `wantExact`, a part that is not
    /// exact makes the whole select inexact (subqueries need exact ids).
    static func selectStatement(
        _ query: Query, _ ctx: inout SQLContext, columns: String, wantExact: Bool, counting: Bool = false
    ) throws(QueryError) -> Select {
        let dialect = ctx.dialect
        let a = ctx.rowAlias
        var whereFragment = SQLFragment.exact("TRUE")
        if let c = query.condition { whereFragment = try whereCondition(c, &ctx) }
        if !query.direct.isEmpty {
            ctx.note("Usergrid direct entity lookup")
            whereFragment.exact = false
        }
        var sql = SQLText(capacity: 2048)
        sql.add("SELECT ")
        sql.add(string: columns)
        sql.add(" FROM ")
        sql.add(string: try dialect.quote(query.className))
        sql.add(" AS ")
        sql.add(string: a)
        sql.add(" WHERE ")
        sql.add(string: whereFragment.sql ?? "TRUE")
        if counting { return Select(sql: sql.string, whereExact: whereFragment.exact, orderExact: true) }

        var orderExact = whereFragment.exact
        var terms: [String] = []
        let mark = ctx.mark
        if orderExact {
            if query.order.isEmpty && query.condition?.mentionsNear == true {
                if let near = nearOrdering(query.condition), let t = dialect.nearOrder(near, &ctx) {
                    terms = t
                } else {
                    ctx.note("nearest-first order of near")
                    orderExact = false
                }
            }
            if orderExact && !query.order.isEmpty {
                if let t = orderTerms(query.order, &ctx) { terms = t } else {
                    ctx.note("order by " + query.order.map { ($0.descending ? "-" : "") + $0.path.dotted }.joined(separator: ", "))
                    orderExact = false
                }
            }
        }
        var limit: String?, offset: String?
        if orderExact {
            if let skip = query.skip {
                if let n = integer(skip), n >= 0 { offset = ctx.bind(.int(n)) } else { orderExact = false }
            }
            if let l = query.limit {
                if let n = integer(l), n >= 0 { limit = ctx.bind(.int(n)) } else { orderExact = false }
            }
        }
        if !orderExact {
            ctx.rollback(to: mark)
            terms = []
            limit = nil
            offset = nil
        }
        terms.append(dialect.inputOrder(a))
        sql.add(" ORDER BY ")
        sql.add(joined: terms, separator: ", ")
        if limit != nil || offset != nil { sql.add(string: dialect.paging(limit: limit, offset: offset)) }
        return Select(sql: sql.string, whereExact: whereFragment.exact, orderExact: orderExact)
    }

    /// The ORDER BY terms of `keys`: leading keys the table keeps in a
    /// column (``SQLStoredColumns``) by that column, so that its index
    /// serves the order; the rest by the dialect. Exact because those keys
    /// never hold arrays (no pairing with later keys, MongoDB's sort-key
    /// rule), and `objectId` is unique (later keys never decide).
    static func orderTerms(_ keys: [OrderKey], _ ctx: inout SQLContext) -> [String]? {
        var terms: [String] = []
        for (i, key) in keys.enumerated() {
            guard let column = SQLStoredColumns.column(key.path) else {
                guard let rest = ctx.dialect.order(Array(keys[i...]), &ctx) else { return nil }
                return terms + rest
            }
            guard let t = ctx.dialect.columnOrder(key, column: column, &ctx) else { return nil }
            terms += t
            if column == "objectId" { break }
        }
        return terms
    }

    /// An integer skip/limit (an integral double counts, as in the evaluator).
    private static func integer(_ t: Term) -> Int64? {
        switch t {
        case .value(.int(let n)): return n
        case .value(.double(let d)) where d == d.rounded() && abs(d) < 9.0e15: return Int64(d)
        default: return nil
        }
    }

    /// The `near` the evaluator orders by when there is no order key (its
    /// first `near`, depth first through and/or/not), when that one is
    /// reached through `and`s only: the evaluator plans `or` and `not`
    /// branches that fold to a constant away, so a `near` below them may or
    /// may not order the rows; `nil` then (the order is re-checked).
    static func nearOrdering(_ c: Condition?) -> Predicate? {
        func first(_ c: Condition, throughAnds: Bool) -> (Predicate, Bool)? {
            switch c.predicate {
            case .near: return (c.predicate, throughAnds)
            case .and(let items):
                for i in items { if let f = first(i, throughAnds: throughAnds) { return f } }
                return nil
            case .or(let items):
                for i in items { if let f = first(i, throughAnds: false) { return f } }
                return nil
            case .not(let inner): return first(inner, throughAnds: false)
            case .constant, .compare, .in, .all, .size, .exists, .regex, .like, .prefix, .text, .containedBy,
                 .elementMatch, .type, .modulo, .fullText, .select, .inQuery, .relatedTo, .relationHolds, .aclGrants, .withinBox,
                 .withinPolygon, .withinCenterSphere, .geoIntersects: return nil
            }
        }
        guard let c, let (near, throughAnds) = first(c, throughAnds: true), throughAnds else { return nil }
        return near
    }

    /// How deeply nested a condition (with its subqueries) is pushed down.
    /// SQLite's parser stack holds about 100 nested grammar rules and each
    /// level of the tree writes several (parentheses, `NOT COALESCE(..)`,
    /// `EXISTS (SELECT ..)`): deeper parts are re-checked by the evaluator
    /// rather than failing with "parser stack overflow".
    public static let maxPushedDepth = 12

    /// The deepest nesting of parentheses the generated SQLite text may have.
    public static let maxParenthesisDepth = 18

    /// The deepest parenthesis nesting of SQL text, outside quoted strings
    /// and identifiers.
    static func parenthesisDepth(_ sql: String) -> Int {
        var text = sql
        // Over the contiguous bytes (this runs on every SQLite translation),
        // byte by byte: SQL text holds a quote or a parenthesis every few
        // bytes, so a word-at-a-time skip rarely skips (it measured slower).
        // `quote` is 0 outside a quoted name or literal.
        return text.withUTF8 { bytes in
            var depth = 0, deepest = 0
            var quote: UInt8 = 0
            for b in bytes {
                if quote != 0 {
                    if b == quote { quote = 0 }
                    continue
                }
                switch b {
                case UInt8(ascii: "'"), UInt8(ascii: "\""): quote = b
                case UInt8(ascii: "("):
                    depth += 1
                    if depth > deepest { deepest = depth }
                case UInt8(ascii: ")"): depth -= 1
                default: break
                }
            }
            return deepest
        }
    }

    /// An upper bound of ``parenthesisDepth(_:)`` for text whose quoted
    /// names and literals hold no `)` (``namesAreUnbracketed(_:)``): every
    /// `(` counts, quoted or not, and every `)` closes one. Eight bytes at a
    /// time, skipping words without a parenthesis (a quote every few bytes
    /// made the exact scan's skipping useless; a parenthesis comes every
    /// forty or so).
    ///
    /// Why: the exact scan was a seventh of translating to SQLite.
    static func closingBound(_ sql: String) -> Int {
        var text = sql
        return text.withUTF8 { bytes in
            guard let p = bytes.baseAddress else { return 0 }
            let n = bytes.count, ones: UInt64 = 0x0101_0101_0101_0101, highs: UInt64 = 0x8080_8080_8080_8080
            var depth = 0, deepest = 0, i = 0
            @inline(__always) func step(_ b: UInt8) {
                if b == UInt8(ascii: "(") {
                    depth += 1
                    if depth > deepest { deepest = depth }
                } else if b == UInt8(ascii: ")") {
                    depth -= 1
                }
            }
            while i + 8 <= n {
                // A zero byte of w | 1 ^ ")" is a "(" or a ")". The mask is
                // exact: no byte of `w` is 1 (w | 1 is odd, ")" too), so a
                // borrow out of a zero byte flags nothing above it.
                let w = (UInt64(littleEndian: UnsafeRawPointer(p + i).loadUnaligned(as: UInt64.self)) | ones) ^ (ones &* 0x29)
                var found = (w &- ones) & ~w & highs
                while found != 0 {
                    step(p[i + found.trailingZeroBitCount >> 3])
                    found &= found &- 1
                }
                i += 8
            }
            while i < n {
                step(p[i])
                i += 1
            }
            return deepest
        }
    }

    /// Whether no name the query writes into SQL text — its classes, keys
    /// (of conditions, orders and subqueries), relation keys and ACL
    /// grantees; values are bound, never written — holds `)`, so that
    /// ``closingBound(_:)`` bounds the text's depth. Cases not listed say no.
    static func namesAreUnbracketed(_ q: Query) -> Bool {
        @inline(__always) func plain(_ s: String) -> Bool { !s.utf8.contains(UInt8(ascii: ")")) }
        func plainPath(_ p: FieldPath) -> Bool {
            if let key = p.singleComponent { return plain(key) }
            return p.components.allSatisfy(plain)
        }
        func condition(_ c: Condition?) -> Bool {
            guard let c else { return true }
            switch c.predicate {
            case .and(let items), .or(let items): return items.allSatisfy(condition)
            case .not(let inner): return condition(inner)
            case .constant: return true
            case .compare(let p, _, _), .in(let p, _, _), .all(let p, _), .size(let p, _), .exists(let p, _), .regex(let p, _, _),
                 .like(let p, _), .prefix(let p, _), .containedBy(let p, _), .type(let p, _), .modulo(let p, _, _),
                 .near(let p, _, _, _), .withinBox(let p, _, _), .withinPolygon(let p, _), .withinCenterSphere(let p, _, _):
                return plainPath(p)
            case .elementMatch(let p, let inner): return plainPath(p) && condition(inner)
            case .inQuery(let p, let sub, _): return plainPath(p) && query(sub)
            case .select(let p, let key, let sub, _): return plainPath(p) && plainPath(key) && query(sub)
            case .aclGrants(_, let grantees): return grantees.allSatisfy(plain)
            case .relatedTo(.value(.pointer(let owner)), let key): return plain(key) && plain(owner.className) && plain(owner.objectId)
            case .relationHolds(let key, let className, .value(.pointer(let p))): return plain(key) && plain(className) && plain(p.objectId)
            case .text, .fullText, .relatedTo, .relationHolds, .geoIntersects: return false
            }
        }
        func query(_ q: Query) -> Bool {
            plain(q.className) && q.order.allSatisfy { plainPath($0.path) } && condition(q.condition)
        }
        return query(q)
    }

    /// The condition tree: logic and subqueries here, leaves in the dialect.
    static func condition(_ c: Condition, _ ctx: inout SQLContext) throws(QueryError) -> SQLFragment {
        ctx.depth += 1
        defer { ctx.depth -= 1 }
        if ctx.depth > ctx.maxDepth {
            ctx.depthCut = true
            return .notPushed
        }
        switch c.predicate {
        case .and(let items):
            var conjuncts: [SQLConjunct] = []
            var exact = true
            for item in items {
                let f = try condition(item, &ctx)
                if let s = f.sql { conjuncts.append(SQLConjunct(sql: s, isACL: item.isACLGrant)) }
                exact = exact && f.exact
            }
            if conjuncts.isEmpty { return .notPushed }
            var out = SQLText(capacity: 1024)
            out.add("(")
            for (i, s) in ctx.dialect.orderingACLFirst(conjuncts).enumerated() {
                if i > 0 { out.add(" AND ") }
                out.add(string: s)
            }
            out.add(")")
            return SQLFragment(sql: out.string, exact: exact)
        case .or(let items):
            let mark = ctx.mark
            var out = SQLText(capacity: 1024)
            out.add("(")
            var exact = true
            for (i, item) in items.enumerated() {
                let f = try condition(item, &ctx)
                // One branch that pushes nothing lets every row through.
                guard let s = f.sql else {
                    ctx.rollback(to: mark)
                    return .notPushed
                }
                if i > 0 { out.add(" OR ") }
                out.add(string: s)
                exact = exact && f.exact
            }
            out.add(")")
            return SQLFragment(sql: out.string, exact: exact)
        case .not(let inner):
            return try negate(inner, &ctx)
        case .constant(let b):
            return .exact(b ? "TRUE" : "FALSE")
        case .aclGrants(let right, let grantees):
            return .exact(ctx.dialect.aclGrants(right, grantees: grantees, &ctx))
        case .relatedTo(let object, let key):
            guard case .value(.pointer(let owner)) = object else {
                ctx.note("related ... to a non-Pointer")
                return .notPushed
            }
            return .exact(try joinMembers("_Join:\(key):\(owner.className)", whose: "owningId", is: owner.objectId, give: "relatedId", &ctx))
        case .relationHolds(let key, let className, let object):
            guard case .value(.pointer(let related)) = object else {
                ctx.note("a relation key compared with a non-Pointer")
                return .notPushed
            }
            return .exact(try joinMembers("_Join:\(key):\(className)", whose: "relatedId", is: related.objectId, give: "owningId", &ctx))
        case .inQuery(let path, let sub, let negated):
            let mark = ctx.mark
            let inner = try subselect(sub, &ctx) { "\($0).\"objectId\"" }
            guard inner.whereExact && inner.orderExact else {
                ctx.rollback(to: mark)
                ctx.note("subquery on \(sub.className)")
                return .notPushed
            }
            let f = ctx.dialect.pointerIn(path: path, className: sub.className, ids: inner.sql, &ctx)
            guard f.exact, let s = f.sql else {
                ctx.rollback(to: mark)
                return .notPushed
            }
            return negated ? .exact("NOT COALESCE(\(s), FALSE)") : .exact(s)
        case .compare(let path, .equal, .value(.string(let id))) where path.singleComponent == "objectId" && !id.utf8.contains(0):
            // The loader stores the document's string objectId in the key
            // column: the primary key serves it, and Citus routes on it.
            return .exact("\(ctx.rowAlias).\"objectId\" = \(ctx.bind(.string(id)))")
        case .in(let path, let terms, false) where path.singleComponent == "objectId" && !terms.isEmpty
            && terms.allSatisfy({ if case .value(.string(let s)) = $0 { return !s.utf8.contains(0) } else { return false } }):
            let ids = terms.map { ctx.bind($0.value!) }
            return .exact("\(ctx.rowAlias).\"objectId\" IN (\(ids.joined(separator: ", ")))")
        case .compare(let path, let op, .value(.string(let id))) where path.singleComponent == "objectId" && op != .equal && op != .notEqual
            && !id.utf8.contains(0):
            // A range of objectIds (a scan's cursor, a schema's pages) on the
            // key column, in code point order as the evaluator compares
            // strings: the dialect's objectId order term names that order
            // (SQLite's BINARY; PostgreSQL's "C", which its index holds), so
            // the key's index serves it.
            guard let column = ctx.dialect.columnOrder(OrderKey(path), column: "objectId", &ctx)?.first else { return .notPushed }
            return .exact("\(column) \(op.rawValue) \(ctx.bind(.string(id)))")
        case .compare(let path, let op, .value(.date(let d))) where SQLStoredColumns.column(path).map(SQLStoredColumns.dateKeys.contains) == true:
            // createdAt/updatedAt against a Date: its date column holds the
            // instant exactly for the rows whose value is a Date (the only
            // values a Date compares with), NULL for the others.
            let c = "\(ctx.rowAlias).\"\(path.components[0])\"", v = ctx.bind(.int(d.millisecondsSince1970))
            return .exact(op == .notEqual ? "NOT COALESCE(\(c) = \(v), FALSE)" : "\(c) \(op.rawValue) \(v)")
        case .select(let path, let key, let sub, let negated):
            let mark = ctx.mark
            let inner = try subselect(sub, &ctx) { "\($0).\"doc\" AS \"doc\"" }
            let f = inner.whereExact && inner.orderExact
                ? ctx.dialect.selectIn(path: path, key: key, documents: inner.sql, &ctx) : .notPushed
            guard f.exact, let s = f.sql else {
                ctx.rollback(to: mark)
                ctx.note("select \(path.dotted) in (select \(key.dotted) from \(sub.className))")
                return .notPushed
            }
            return negated ? .exact("NOT COALESCE(\(s), FALSE)") : .exact(s)
        case .compare, .in, .all, .size, .exists, .regex, .like, .prefix, .text, .containedBy, .elementMatch, .type,
             .modulo, .fullText, .near, .withinBox, .withinPolygon, .withinCenterSphere, .geoIntersects:
            // A dialect may bind values before finding it cannot push the
            // leaf: those arguments have no placeholder left in the SQL (and
            // PostgreSQL refuses a parameter whose type it cannot infer).
            let mark = ctx.mark
            let f = try ctx.dialect.leaf(c.predicate, &ctx)
            if f.sql == nil { ctx.rollback(to: mark) }
            return f
        }
    }

    /// The SELECT of a subquery over a fresh row alias (`columns` of that
    /// alias), exact or not; the outer row comes back afterwards.
    /// The row's objectId is the `give` column of a join table's rows whose
    /// `whose` column is `id`: `$relatedTo` (the owner's related objects) and
    /// a relation key's comparison with a Pointer (the owners holding it).
    private static func joinMembers(_ table: String, whose column: String, is id: String, give: String,
                                    _ ctx: inout SQLContext) throws(QueryError) -> String {
        let join = try ctx.dialect.quote(table)
        let bound = ctx.bind(.string(id))
        return "\(ctx.rowAlias).\"objectId\" IN (SELECT \"\(give)\" FROM \(join) WHERE \"\(column)\" = \(bound))"
    }

    private static func subselect(
        _ sub: Query, _ ctx: inout SQLContext, columns: (String) -> String
    ) throws(QueryError) -> Select {
        let saved = (ctx.rowAlias, ctx.document)
        let alias = ctx.alias("t")
        ctx.rowAlias = alias
        ctx.document = "\(alias).\"doc\""
        defer { (ctx.rowAlias, ctx.document) = saved }
        // Without skip or limit the subquery's order cannot change which
        // objects it yields: left out.
        var sub = sub
        if sub.skip == nil && sub.limit == nil { sub.order = [] }
        // A subselect nests several grammar rules deep (IN (SELECT ..
        // WHERE (..))): it counts as four levels.
        ctx.depth += 4
        defer { ctx.depth -= 4 }
        return try selectStatement(sub, &ctx, columns: columns(alias), wantExact: true)
    }

    /// `not p`: exact only when `p` is; a superset negated is a subset, so an
    /// inexact `p` pushes nothing. SQL NULL counts as false.
    static func negate(_ inner: Condition, _ ctx: inout SQLContext) throws(QueryError) -> SQLFragment {
        let mark = ctx.mark
        let f = try condition(inner, &ctx)
        guard f.exact, let s = f.sql else {
            ctx.rollback(to: mark)
            return .notPushed
        }
        return .exact("NOT COALESCE(\(s), FALSE)")
    }
}
