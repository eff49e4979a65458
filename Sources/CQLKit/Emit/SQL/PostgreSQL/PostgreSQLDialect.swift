/// PostgreSQL (15+): `"<Class>"("objectId" text PRIMARY KEY, "doc" jsonb,
/// "raw" text, "seq" bigserial)`: `doc` is what the predicates read, `raw`
/// the JSON text results print, `seq` the load order.
///
/// Leaf predicates are SQL/JSON path tests `doc @? $n::jsonpath` whose path
/// is a bound argument (values never enter the SQL text): lax mode fans out
/// one array level per step, as the evaluator's walk does; the guard
/// `@.type() != "array"` stops the second unwrapping at the leaf; comparisons
/// across types are unknown, which is type bracketing; strings compare by
/// code point. A GIN `jsonb_path_ops` index serves the equality and `in`
/// shapes (SQLBackends.md).
///
/// Dotted paths filter each step to plain objects (see `path`), so typed
/// values are not stepped into; `= null` through one adds a test per depth
/// for a branch that ends missing.
///
/// What is not pushed: regex outside PostgreSQLRegex's subset, Usergrid's case-insensitive
/// matches, ranges against typed values other than Dates (typed values:
/// PostgreSQLDialect+TypedValues.swift), numeric steps after the first, LIKE with classes
/// or escapes, geo but `within box` (PostgreSQLDialect+Geo: near, polygon and
/// centerSphere are prefilters), `$mod` and `$type` int/double (prefilters), `$elemMatch`
/// reading `objectId` or mixing forms (PostgreSQLDialect+Elements). ORDER BY is exact for numbers,
/// strings, booleans, null and missing; an array or object at the order key
/// makes the statement fail ("... values order only in cql run") rather than
/// answer in another order.
///
/// ```swift
/// // where score > 80   →  t0."doc" @? $1::jsonpath
/// // $1 = lax $."score" ? (@.type() == "number" && @ > 80)
/// ```
public struct PostgreSQLDialect: SQLDialect, SQLWriteDialect {
    public init() {}
    public var name: SQLDialectName { .postgres }
    public func placeholder(_ index: Int) -> String {
        index > 0 && index <= PostgreSQLDialect.placeholders.count ? PostgreSQLDialect.placeholders[index - 1] : "$\(index)"
    }

    /// `$1` ... `$64`, made once: every bound value asks for one.
    private static let placeholders = (1...64).map { "$\($0)" }
    public func inputOrder(_ alias: String) -> String { "\(alias).\"seq\"" }
    /// `raw`: the object's JSON text as loaded (JSONB would print `1e2` as
    /// `100` and lose `-0.0`), so results print byte for byte as `cql eval`.
    public func documentColumn(_ alias: String) -> String { "\(alias).\"raw\" AS \"doc\"" }

    // The database's facts (``SQLDialect``).
    public var resultColumns: String { PostgreSQLDialect.resultColumns }
    private static let resultColumns = "t0.\"objectId\", " + PostgreSQLDialect().documentColumn("t0")
    /// Its parser grows its stack (10,000 levels): the text is not scanned.
    public var maxParenthesisDepth: Int? { nil }
    public func aclGrants(_ right: ACLRight, grantees: [String], _ context: inout SQLContext) -> String {
        SQLACL.postgres(right, grantees, &context)
    }
    public var hasResidualMatch: Bool { false }
    /// PostgreSQL silently cuts names at 63 bytes: two long class names would share a table.
    public func tableNameProblem(_ identifier: String) -> String? {
        identifier.utf8.count > 63 ? "is longer than PostgreSQL's 63 bytes" : nil
    }
    public var storesNUL: Bool { false }
    var insertColumns: String { "(\"objectId\", \"doc\", \"raw\", \"createdAt\", \"updatedAt\")" }
    func insertRow(objectId: String, document: String, stamp: String) -> String {
        "(\(objectId), \(document)::jsonb, \(document), \(stamp), \(stamp))"
    }
    var joinTableColumns: String { "(\"owningId\" text, \"relatedId\" text, \"seq\" bigserial)" }
    func unwritableKey(_ key: String) -> String? { nil }
    func update(_ plan: SQLUpdatePlan, condition: String?, _ context: inout SQLContext) throws(QueryError) -> SQLStatement {
        try PostgreSQLDialect.update(plan, condition: condition, &context)
    }

    public func paging(limit: String?, offset: String?) -> String {
        var s = ""
        if let limit { s += " LIMIT \(limit)" }
        if let offset { s += " OFFSET \(offset)" }
        return s
    }

    /// A JSON path string literal (`"a\"b"`), or `nil` for NUL (JSONB cannot hold it).
    static func pathString(_ s: String) -> String? {
        // Most keys and values need no escape: quoted as they are.
        if isPlainPathString(s) { return "\"\(s)\"" }
        var out = "\""
        for c in s.unicodeScalars {
            switch c {
            case "\0": return nil
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            default:
                if c.value < 0x20 {
                    let hex = String(c.value, radix: 16)
                    out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
                } else {
                    out.unicodeScalars.append(c)
                }
            }
        }
        return out + "\""
    }

    /// Whether `s` needs no escape in a JSON path string literal (no
    /// control character, `"` or `\`), read over its contiguous bytes.
    @inline(__always)
    static func isPlainPathString(_ s: String) -> Bool {
        var text = s
        return text.withUTF8 { bytes in
            for b in bytes where b < 0x20 || b == 0x22 || b == 0x5C { return false }
            return true
        }
    }

    /// The types the evaluator's walk does not step into (a GeoPoint's
    /// `latitude` is not a path step): `Object` pointers are stepped into,
    /// but without their `__type` and `className` (see `path`).
    static let opaqueTypes = ["Date", "Pointer", "GeoPoint", "Bytes", "File", "Relation"]

    /// A filter on `item`: it is a typed value of one of `opaqueTypes`.
    /// `.type()` does not unwrap arrays in lax mode, so `["Date"]` is not one.
    static func isOpaque(_ item: String) -> String {
        let names = opaqueTypes.map { "\(item).\"__type\" == \"\($0)\"" }.joined(separator: " || ")
        return "(\(item).\"__type\".type() == \"string\" && (\(names)))"
    }

    /// The filter every object a dotted path steps into passes: a plain
    /// object, not a typed value. In lax mode the filter unwraps one array
    /// level, so an array's object elements pass and nested arrays do not:
    /// the evaluator's one-level fan-out per step.
    static let stepsInto = "@.type() == \"object\" && !\(isOpaque("@"))"

    /// The path's steps as JSON path string literals, or `nil` when one is
    /// not expressible: a numeric step after the first (it indexes arrays
    /// and names fields at once), NUL, or `__type`/`className` after the
    /// first step (an `Object` pointer hides them from the walk).
    static func steps(_ p: FieldPath) -> [String]? {
        if let key = p.singleComponent { return pathString(key).map { [$0] } }
        let components = p.components
        guard !components.isEmpty else { return nil }
        var out: [String] = []
        for (i, step) in components.enumerated() {
            if i > 0, SQLTerms.isIndex(step) || step == "__type" || step == "className" { return nil }
            guard let s = pathString(step) else { return nil }
            out.append(s)
        }
        return out
    }

    /// `lax $."a" ? (<stepsInto>)."b"`: the values the evaluator's walk
    /// reaches (before the leaf's own one-level fan-out). The root is always
    /// an object, so a numeric first step is a plain member.
    static func path(_ p: FieldPath) -> String? {
        var out = SQLText(capacity: 64)
        guard addPath(p, &out) else { return nil }
        return out.string
    }

    /// ``path(_:)`` written into `out`; `false` (nothing written) when the
    /// path is not expressible.
    static func addPath(_ p: FieldPath, _ out: inout SQLText) -> Bool {
        if let key = p.singleComponent {
            // One key (almost every path): no array of steps, and a plain
            // key written between its quotes without a string of its own.
            if isPlainPathString(key) {
                out.add("lax $.\"")
                out.add(string: key)
                out.add("\"")
                return true
            }
            guard let step = pathString(key) else { return false }
            out.add("lax $.")
            out.add(string: step)
            return true
        }
        guard let steps = steps(p) else { return false }
        out.add("lax $.")
        for (i, step) in steps.enumerated() {
            if i > 0 {
                out.add(" ? (")
                out.add(string: stepsInto)
                out.add(").")
            }
            out.add(string: step)
        }
        return true
    }

    /// Some branch of the walk along `p` ends missing (EvaluationSemantics.md: `= null`
    /// matches missing): an object the walk steps into lacks the next key,
    /// or, before the last step, holds a scalar, null or typed value there.
    /// One path test per depth (the root is depth 0).
    static func missingBranch(_ p: FieldPath, _ ctx: inout SQLContext) -> String? {
        guard let steps = steps(p) else { return nil }
        var tests: [String] = []
        for k in 0..<steps.count {
            let objects = k == 0 ? "lax $" : "lax $." + steps[0..<k].joined(separator: " ? (\(stepsInto)).") + " ? (\(stepsInto))"
            let next = "@.\(steps[k])"
            var cond = "!exists(\(next))"
            if k + 1 < steps.count {
                cond += " || (\(next).type() != \"array\" && \(next).type() != \"object\")"
                    + " || (\(next).type() == \"object\" && \(isOpaque(next)))"
            }
            let text = "\(objects) ? (\(cond))"
            tests.append("\(ctx.document) @? \(ctx.bind(.string(text)))::jsonpath")
        }
        return tests.count == 1 ? tests[0] : "(" + tests.joined(separator: " OR ") + ")"
    }

    /// A JSON path literal for a scalar.
    static func literal(_ v: SQLScalar) -> String? {
        switch v {
        case .null: return "null"
        case .bool(let b): return b ? "true" : "false"
        case .string(let s): return pathString(s)
        case .number(.int(let n)): return String(n)
        case .number(.double(let d)):
            guard d.isFinite else { return nil }
            return d == d.rounded() && abs(d) < 1e15 ? String(Int64(d)) : "\(d)"
        case .number: return nil
        }
    }

    /// `doc @? $n` for `lax $.path ? (filter)`.
    static func test(_ path: FieldPath, _ filter: String?, _ ctx: inout SQLContext) -> String? {
        var text = SQLText(capacity: 128)
        guard addPath(path, &text) else { return nil }
        if let filter {
            text.add(" ? (")
            text.add(string: filter)
            text.add(")")
        }
        var out = SQLText(capacity: 64)
        out.add(string: ctx.document)
        out.add(" @? ")
        out.add(string: ctx.bind(.string(text.string)))
        out.add("::jsonpath")
        return out.string
    }

    /// `k = v` / `k in (...)`; null matches missing on one-step paths.
    static func membership(_ path: FieldPath, _ values: [SQLScalar], _ ctx: inout SQLContext) -> String? {
        if values.isEmpty { return "FALSE" }
        let mark = ctx.mark
        if let key = arrayFreeKey(path, ctx) {
            if let indexed = arrayFreeMembership(key, values, &ctx) { return indexed }
            ctx.rollback(to: mark)
        }
        if !ctx.documentIndexed {
            if let read = keyReadMembership(path, values, &ctx) { return read }
            ctx.rollback(to: mark)
        }
        guard let filter = equalityFilter(values), let present = test(path, filter, &ctx) else { return nil }
        guard values.contains(.null) else { return present }
        // Missing counts as null; through a dotted path a branch can end
        // missing while another holds a value.
        if path.components.count == 1 {
            guard let exists = test(path, nil, &ctx) else { return nil }
            return "(\(present) OR NOT \(exists))"
        }
        guard let missing = missingBranch(path, &ctx) else { return nil }
        return "(\(present) OR \(missing))"
    }

    /// The path filter of `= v` / `in (v, ...)`: a value, not an array
    /// (lax mode has unwrapped one level), equal to one of them.
    static func equalityFilter(_ values: [SQLScalar]) -> String? {
        var filter = SQLText(capacity: 64)
        filter.add("@.type() != \"array\" && ")
        if values.count > 1 { filter.add("(") }
        for (i, v) in values.enumerated() {
            guard let l = literal(v) else { return nil }
            if i > 0 { filter.add(" || ") }
            filter.add("@ == ")
            filter.add(string: l)
        }
        if values.count > 1 { filter.add(")") }
        return filter.string
    }

    public func leaf(_ predicate: Predicate, _ ctx: inout SQLContext) throws(QueryError) -> SQLFragment {
        // Typed constants and createdAt/updatedAt: PostgreSQLDialect+TypedValues.swift.
        if let typed = PostgreSQLDialect.typedValueLeaf(predicate, &ctx) { return typed }
        let sql: String?
        switch predicate {
        case .exists(let path, let present):
            sql = PostgreSQLDialect.test(path, nil, &ctx).map { present ? $0 : "NOT \($0)" }
        case .compare(let path, let op, let term) where !SQLTerms.coercesDates(path):
            guard let v = SQLScalar(term) else { sql = nil; break }
            switch (op, v) {
            case (.equal, _): sql = PostgreSQLDialect.membership(path, [v], &ctx)
            case (.notEqual, _): sql = PostgreSQLDialect.membership(path, [v], &ctx).map { "NOT COALESCE(\($0), FALSE)" }
            case (.lessThan, .null), (.greaterThan, .null): sql = "FALSE"
            case (_, .null): sql = PostgreSQLDialect.membership(path, [.null], &ctx)  // `<=`/`>=` null are `= null`
            case (_, .number), (_, .string):
                let type = SQLTerms.string(term) != nil ? "string" : "number"
                guard let l = PostgreSQLDialect.literal(v) else { sql = nil; break }
                if let key = PostgreSQLDialect.arrayFreeKey(path, ctx), let s = PostgreSQLDialect.scalar(ctx.document, key, type) {
                    // No row holds an array there: the indexed scalar branch alone.
                    sql = PostgreSQLDialect.scalarConstant(v, literal: l, &ctx).map { "\(s) \(op.rawValue) \($0)" }
                    break
                }
                let jsonOp = op.rawValue
                let pathTest = PostgreSQLDialect.test(path, "@.type() == \"\(type)\" && @ \(jsonOp) \(l)", &ctx)
                if let key = path.singleComponent, ctx.document == "t0.\"doc\"", ctx.unindexedKeys.contains(key) {
                    // No index to serve a branch: the path test alone reads the key once.
                    sql = pathTest
                    break
                }
                // One-step keys: a branch a btree expression index serves (+Ranges).
                sql = pathTest.map {
                    PostgreSQLDialect.indexableRange(path, op, v, literal: l, type: type, arrays: $0, &ctx) ?? $0
                }
            default: sql = nil
            }
        case .in(let path, let terms, let negated) where !SQLTerms.coercesDates(path):
            guard let values = SQLTerms.scalars(terms) else { sql = nil; break }
            sql = PostgreSQLDialect.membership(path, values, &ctx).map { negated ? "NOT COALESCE(\($0), FALSE)" : $0 }
        case .all(let path, let terms) where !SQLTerms.coercesDates(path):
            guard let values = SQLTerms.scalars(terms) else { sql = nil; break }
            if values.isEmpty { sql = "FALSE"; break }
            var parts: [String] = []
            for v in values {
                guard let s = PostgreSQLDialect.membership(path, [v], &ctx) else { return notPushed(predicate, &ctx) }
                parts.append(s)
            }
            sql = "(" + parts.joined(separator: " AND ") + ")"
        case .size(let path, let term) where path.components.count == 1:
            guard let n = PostgreSQLDialect.exactInteger(term), n >= 0, let key = PostgreSQLDialect.pathString(path.components[0]) else { sql = nil; break }
            // Strict mode: the filter sees the array itself, not its elements.
            let text = "strict $.\(key) ? (@.type() == \"array\" && @.size() == \(n))"
            sql = "COALESCE(\(ctx.document) @? \(ctx.bind(.string(text)))::jsonpath, FALSE)"
        case .like(let path, let pattern) where !SQLTerms.coercesDates(path):
            guard let p = SQLTerms.string(pattern), let re = PostgreSQLDialect.likeRegex(p),
                let l = PostgreSQLDialect.pathString(re)
            else { sql = nil; break }
            sql = PostgreSQLDialect.test(path, "@.type() == \"string\" && @ like_regex \(l) flag \"s\"", &ctx)
        case .regex(let path, let pattern, let options) where !SQLTerms.coercesDates(path):
            // The evaluator's PCRE rewritten as ARE where provably the same.
            guard let p = SQLTerms.string(pattern), let re = PostgreSQLRegex.translate(p, options: options),
                let l = PostgreSQLDialect.pathString(re)
            else { sql = nil; break }
            sql = PostgreSQLDialect.test(path, "@.type() == \"string\" && @ like_regex \(l) flag \"s\"", &ctx)
        case .prefix(let path, let prefix) where !SQLTerms.coercesDates(path):
            // `starts with` compares bytes: the code-point prefix of EvaluationSemantics.md.
            guard let l = PostgreSQLDialect.pathString(prefix) else { sql = nil; break }
            sql = PostgreSQLDialect.test(path, "@.type() == \"string\" && @ starts with \(l)", &ctx)
        case .withinBox, .withinCenterSphere, .withinPolygon:
            return geoLeaf(predicate, &ctx)
        case .size, .type, .modulo, .containedBy, .elementMatch:
            return elementLeaf(predicate, &ctx)
        case .near:
            // No exact shape (the distance is the evaluator's haversine):
            // a bounding box and a widened SQL haversine, re-checked.
            ctx.note(SQLNotes.describe(predicate))
            guard let b = SQLNearBounds(predicate), let s = PostgreSQLDialect.near(b, &ctx) else { return .notPushed }
            return .superset(s)
        case .and, .or, .not, .constant, .compare, .in, .all, .regex, .like, .prefix, .text, .fullText, .select,
             .inQuery, .relatedTo, .relationHolds, .aclGrants, .geoIntersects:
            sql = nil
        }
        guard let sql else { return notPushed(predicate, &ctx) }
        return .exact(sql)
    }

    /// The prefilter of a `near` (see ``SQLNearBounds``): the points the
    /// path reaches (lax mode: one array level), taken by a JSON path filter
    /// (objects with number coordinates, out of range or in the bounding
    /// box), then a widened haversine over those in range. Numbers are
    /// compared as `numeric` before any `float8` cast, which 1e400 would fail.
    ///
    /// ```swift
    /// // where loc near geopoint(2, 1) within 10 km  →  EXISTS (SELECT 1 FROM jsonb_path_query(t0."doc", $1::jsonpath) AS g1(p)
    /// //   WHERE CASE WHEN (p->'latitude')::numeric BETWEEN -90 AND 90 AND ... THEN 2 * asin(sqrt(least(1, ...))) <= $5 ELSE TRUE END)
    /// // $1 = lax $."loc" ? (@.type() == "object" && @.latitude.type() == "number" && ... && (!(@.latitude >= -90 && ...) || (@.latitude >= -0.0899... && ...)))
    /// ```
    static func near(_ b: SQLNearBounds, _ ctx: inout SQLContext) -> String? {
        func number(_ d: Double) -> String? { literal(.number(.double(d))) }
        guard let latLo = number(b.latitude.lowerBound), let latHi = number(b.latitude.upperBound) else { return nil }
        var box = ["@.latitude >= \(latLo) && @.latitude <= \(latHi)"]
        if !b.longitudes.isEmpty {
            var ranges: [String] = []
            for r in b.longitudes {
                guard let lo = number(r.lowerBound), let hi = number(r.upperBound) else { return nil }
                ranges.append("(@.longitude >= \(lo) && @.longitude <= \(hi))")
            }
            box.append("(" + ranges.joined(separator: " || ") + ")")
        }
        let valid = "@.latitude >= -90 && @.latitude <= 90 && @.longitude >= -180 && @.longitude <= 180"
        let filter = "@.type() == \"object\" && @.latitude.type() == \"number\" && @.longitude.type() == \"number\" && (!(\(valid)) || (\(box.joined(separator: " && "))))"
        guard let p = path(b.path) else { return nil }
        let points = ctx.bind(.string("\(p) ? (\(filter))"))
        let g = ctx.alias("g")
        let lat = "(p->'latitude')", lng = "(p->'longitude')"
        let phi0 = ctx.bind(.double(b.centerLatitudeRadians))
        let lambda0 = ctx.bind(.double(b.centerLongitudeRadians))
        let cosPhi0 = ctx.bind(.double(b.cosCenterLatitude))
        let a = "power(sin((radians(\(lat)::float8) - \(phi0)::float8) / 2), 2) + \(cosPhi0)::float8 * cos(radians(\(lat)::float8)) "
            + "* power(sin((radians(\(lng)::float8) - \(lambda0)::float8) / 2), 2)"
        let inRange = "\(lat)::numeric BETWEEN -90 AND 90 AND \(lng)::numeric BETWEEN -180 AND 180"
        return "EXISTS (SELECT 1 FROM jsonb_path_query(\(ctx.document), \(points)::jsonpath) AS \(g)(p) WHERE CASE WHEN \(inRange) "
            + "THEN 2 * asin(sqrt(least(1, \(a)))) <= \(ctx.bind(.double(b.maxAngle)))::float8 ELSE TRUE END)"
    }

    /// LIKE as an anchored ARE: literal characters escaped, `%` → `.*`,
    /// `_` → `.`; `nil` for classes (`[..]`) and escapes, which would need
    /// checking against PCRE's reading.
    static func likeRegex(_ like: String) -> String? {
        var out = "^"
        for c in like.unicodeScalars {
            switch c {
            case "%": out += ".*"
            case "_": out += "."
            case "[", "\\", "\0": return nil
            default:
                let isWord = (c >= "a" && c <= "z") || (c >= "A" && c <= "Z") || (c >= "0" && c <= "9") || c.value >= 0x80
                if !isWord { out += "\\" }
                out.unicodeScalars.append(c)
            }
        }
        return out + "$"
    }

    /// The text of the error the ORDER BY raises at an array or object.
    public static let orderFailure = "values order only in cql run"

    public func order(_ key: OrderKey, _ ctx: inout SQLContext) -> [String]? {
        guard !SQLTerms.coercesDates(key.path) else { return nil }
        return valueOrder(key, where: nil, &ctx)
    }

    /// `objectId` by its key column (code-point order, as its index
    /// `("objectId" COLLATE "C")` holds it); `createdAt`/`updatedAt` by their
    /// date column, Dates last when ascending and first when descending (the
    /// evaluator ranks them above every other type), then the other values
    /// in the evaluator's order (only for the rows without a Date).
    public func columnOrder(_ key: OrderKey, column: String, _ ctx: inout SQLContext) -> [String]? {
        let c = "\(ctx.rowAlias).\"\(column)\""
        if column == "objectId" { return ["\(c) COLLATE \"C\"\(key.descending ? " DESC" : "")"] }
        guard let rest = valueOrder(key, where: "\(c) IS NULL", &ctx) else { return nil }
        return [c + (key.descending ? " DESC NULLS LAST" : " ASC NULLS FIRST")] + rest
    }

    /// The rank of a JSON type `t` in the evaluator's order, as the text
    /// that follows each `t` in `CASE WHEN t IS NULL OR t = 'null' THEN 0 ...`.
    static let rankSteps: [StaticString] = [
        " IS NULL OR ", " = 'null' THEN 0 WHEN ", " = 'number' THEN 1 WHEN ", " = 'string' THEN 2 WHEN ", " = 'boolean' THEN 6 ELSE (",
    ]

    /// The ORDER BY terms of the values a key reaches (no Date reading of
    /// createdAt/updatedAt strings), evaluated only for the rows where
    /// `condition` holds when one is given (NULL for the others).
    func valueOrder(_ key: OrderKey, where condition: String?, _ ctx: inout SQLContext) -> [String]? {
        guard PostgreSQLDialect.steps(key.path) != nil else { return nil }
        let steps = key.path.components
        let v: String, t: String
        if steps.count == 1 {
            v = "(\(ctx.document) -> \(sqlLiteral(steps[0])))"
            t = "jsonb_typeof(\(v))"
        } else {
            // The evaluator's sort walk: a missing member, a scalar, null or
            // a typed value before the last step give null; an array on the
            // way fans out, which fails loudly here (as at the key itself).
            var arrays: [String] = [], objects: [String] = []
            for k in 1..<steps.count {
                let prefix = "(\(ctx.document) #> ARRAY[\(steps[0..<k].map(sqlLiteral).joined(separator: ", "))])"
                arrays.append("jsonb_typeof(\(prefix)) = 'array'")
                let opaque = PostgreSQLDialect.opaqueTypes.map(sqlLiteral).joined(separator: ", ")
                objects.append("jsonb_typeof(\(prefix)) = 'object' AND NOT COALESCE(\(prefix) ->> '__type' IN (\(opaque)), FALSE)")
            }
            let whole = "(\(ctx.document) #> ARRAY[\(steps.map(sqlLiteral).joined(separator: ", "))])"
            v = "(CASE WHEN \(objects.joined(separator: " AND ")) THEN \(whole) END)"
            t = "(CASE WHEN \(arrays.joined(separator: " OR ")) THEN 'array' ELSE jsonb_typeof(\(v)) END)"
        }
        // Arrays and objects have no exact SQL order here: the cast fails
        // loudly instead of ordering them differently from the evaluator.
        // Each term is written into one buffer (this runs for every ordered
        // query; `t` and `v` repeat in every term).
        func term(_ write: (inout SQLText) -> Void) -> String {
            var out = SQLText(capacity: 256)
            write(&out)
            if key.descending { out.add(" DESC") }
            return out.string
        }
        func caseOf(_ out: inout SQLText, _ type: StaticString) {
            out.add("(CASE WHEN ")
            if let condition {
                out.add(string: condition)
                out.add(" AND ")
            }
            out.add(string: t)
            out.add(type)
            out.add(" THEN ")
        }
        return [
            term { out in
                if let condition {
                    out.add("(CASE WHEN ")
                    out.add(string: condition)
                    out.add(" THEN ")
                }
                out.add("(CASE WHEN ")
                for step in PostgreSQLDialect.rankSteps {
                    out.add(string: t)
                    out.add(step)
                }
                out.add(string: t)
                out.add(" || ' ")
                out.add(string: PostgreSQLDialect.orderFailure)
                out.add("')::int END)")
                if condition != nil { out.add(" END)") }
            },
            term { out in
                caseOf(&out, " = 'number'")
                out.add("(")
                out.add(string: v)
                out.add(")::numeric END)")
            },
            term { out in
                caseOf(&out, " = 'string'")
                out.add(string: v)
                out.add(" #>> '{}' END) COLLATE \"C\"")
            },
            term { out in
                caseOf(&out, " = 'boolean'")
                out.add("(")
                out.add(string: v)
                out.add(")::boolean END)")
            },
        ]
    }

    public func pointerIn(path: FieldPath, className: String, ids: String, _ ctx: inout SQLContext) -> SQLFragment {
        guard let p = PostgreSQLDialect.path(path) else {
            ctx.note("subquery through \(path.dotted)")
            return .notPushed
        }
        let items = ctx.bind(.string(p + "[*]"))
        let c = ctx.bind(.string(className))
        let alias = ctx.alias("p")
        return .exact(
            "EXISTS (SELECT 1 FROM jsonb_path_query(\(ctx.document), \(items)::jsonpath) AS \(alias)(v) "
                + "WHERE \(alias).v ->> '__type' = 'Pointer' AND \(alias).v ->> 'className' = \(c) AND \(alias).v ->> 'objectId' IN (\(ids)))")
    }
}
