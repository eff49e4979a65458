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
/// shapes (sql.md).
///
/// What is not pushed: regex (PCRE is not ARE), Usergrid's case-insensitive
/// matches, typed values, numeric path steps, `= null` through a dotted
/// path, LIKE with classes or escapes, geo. ORDER BY is exact for numbers,
/// strings, booleans, null and missing; an array or object at the order key
/// makes the statement fail ("... values order only in cql run") rather than
/// answer in another order.
///
/// ```swift
/// // where score > 80   →  t0."doc" @? $1::jsonpath
/// // $1 = lax $."score" ? (@.type() == "number" && @ > 80)
/// ```
public struct PostgreSQLDialect: SQLDialect {
    public init() {}
    public var name: SQLDialectName { .postgres }
    public func placeholder(_ index: Int) -> String { "$\(index)" }
    public func inputOrder(_ alias: String) -> String { "\(alias).\"seq\"" }
    /// `raw`: the object's JSON text as loaded (JSONB would print `1e2` as
    /// `100` and lose `-0.0`), so results print byte for byte as `cql eval`.
    public func documentColumn(_ alias: String) -> String { "\(alias).\"raw\" AS \"doc\"" }

    public func paging(limit: String?, offset: String?) -> String {
        var s = ""
        if let limit { s += " LIMIT \(limit)" }
        if let offset { s += " OFFSET \(offset)" }
        return s
    }

    /// A JSON path string literal (`"a\"b"`), or `nil` for NUL (JSONB cannot hold it).
    static func pathString(_ s: String) -> String? {
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

    /// `lax $."a"."b"`, or `nil` for numeric steps (lax mode does not index
    /// arrays by a member step) and keys with NUL.
    /// Dotted paths are not pushed: lax mode steps into typed values
    /// (a GeoPoint's `latitude`), which the evaluator's walk does not.
    static func path(_ p: FieldPath) -> String? {
        guard p.components.count == 1 else { return nil }
        var out = "lax $"
        for step in p.components {
            guard !SQLTerms.isIndex(step), let s = pathString(step) else { return nil }
            out += "." + s
        }
        return out
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
        guard let p = self.path(path) else { return nil }
        let text = filter.map { "\(p) ? (\($0))" } ?? p
        return "\(ctx.document) @? \(ctx.bind(.string(text)))::jsonpath"
    }

    /// `k = v` / `k in (...)`; null matches missing on one-step paths.
    static func membership(_ path: FieldPath, _ values: [SQLScalar], _ ctx: inout SQLContext) -> String? {
        if values.isEmpty { return "FALSE" }
        var alternatives: [String] = []
        for v in values {
            guard let l = literal(v) else { return nil }
            alternatives.append("@ == \(l)")
        }
        let any = alternatives.count == 1 ? alternatives[0] : "(" + alternatives.joined(separator: " || ") + ")"
        guard let present = test(path, "@.type() != \"array\" && \(any)", &ctx) else { return nil }
        guard values.contains(.null) else { return present }
        // Missing counts as null; through a dotted path a branch can end
        // missing while another holds a value: only one-step paths here.
        guard path.components.count == 1, let exists = test(path, nil, &ctx) else { return nil }
        return "(\(present) OR NOT \(exists))"
    }

    public func leaf(_ predicate: Predicate, _ ctx: inout SQLContext) throws(QueryError) -> SQLFragment {
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
                let jsonOp = op.rawValue
                sql = PostgreSQLDialect.test(path, "@.type() == \"\(type)\" && @ \(jsonOp) \(l)", &ctx)
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
            guard let n = SQLTerms.count(term), let key = PostgreSQLDialect.pathString(path.components[0]) else { sql = nil; break }
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
            // `starts with` compares bytes: the code-point prefix of semantics.md.
            guard let l = PostgreSQLDialect.pathString(prefix) else { sql = nil; break }
            sql = PostgreSQLDialect.test(path, "@.type() == \"string\" && @ starts with \(l)", &ctx)
        default:
            sql = nil
        }
        guard let sql else { return notPushed(predicate, &ctx) }
        return .exact(sql)
    }

    private func notPushed(_ p: Predicate, _ ctx: inout SQLContext) -> SQLFragment {
        ctx.note(SQLNotes.describe(p))
        return .notPushed
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
        guard key.path.components.count == 1, !SQLTerms.coercesDates(key.path),
            !SQLTerms.isIndex(key.path.components[0]), !key.path.components[0].utf8.contains(0)
        else { return nil }
        let v = "(\(ctx.document) -> \(sqlLiteral(key.path.components[0])))"
        let t = "jsonb_typeof(\(v))"
        let dir = key.descending ? " DESC" : ""
        // Arrays and objects have no exact SQL order here: the cast fails
        // loudly instead of ordering them differently from the evaluator.
        let rank = "(CASE WHEN \(t) IS NULL OR \(t) = 'null' THEN 0 WHEN \(t) = 'number' THEN 1 WHEN \(t) = 'string' THEN 2 "
            + "WHEN \(t) = 'boolean' THEN 6 ELSE (\(t) || ' \(PostgreSQLDialect.orderFailure)')::int END)"
        return [
            rank + dir,
            "(CASE WHEN \(t) = 'number' THEN (\(v))::numeric END)\(dir)",
            "(CASE WHEN \(t) = 'string' THEN \(v) #>> '{}' END) COLLATE \"C\"\(dir)",
            "(CASE WHEN \(t) = 'boolean' THEN (\(v))::boolean END)\(dir)",
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
