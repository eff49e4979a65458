/// Ranges on a one-step key in a shape a btree expression index serves.
///
/// The JSON path test `doc @? 'lax $."k" ? (@.type() == "number" && @ > 80)'`
/// is exact but no index serves a range through `@?` (GIN `jsonb_path_ops`
/// serves only equality). So a range on a one-step key is written as two
/// branches: the value itself when it is a number (or a string), through an
/// expression that is NULL for every other type, and the path test only
/// when the value is an array (whose elements the evaluator also tries).
/// `cql load --postgres --index k` creates btree indexes on exactly these
/// expressions (``indexedExpressions(forKey:)``), which the planner matches
/// structurally, so `score > 80` becomes a BitmapOr of two index scans.
/// On a key the database showed has no such index
/// (``SQLContext/unindexedKeys``) the path test alone is written: it reads
/// the key once a row, where the branches read it two or three times.
///
/// Exactness: a non-array value is the only value the key reaches, and the
/// expression compares it as the path test does (numbers as `numeric`, the
/// constant bound as the same literal text; strings under `COLLATE "C"`,
/// byte order, which is code-point order in UTF-8, as in jsonpath).
///
/// ```swift
/// // where score > 80  →  ((CASE WHEN jsonb_typeof(t0."doc" -> 'score') = 'number'
/// //   THEN (t0."doc" -> 'score')::numeric END) > $1::numeric
/// //   OR (jsonb_typeof(t0."doc" -> 'score') = 'array' AND t0."doc" @? $2::jsonpath))
/// ```
extension PostgreSQLDialect {
    /// `'key'` as a SQL string literal (quotes doubled): a key is a name in
    /// the SQL text, as SQLite's JSON paths are; `nil` for NUL.
    static func keyLiteral(_ key: String) -> String? {
        key.utf8.contains(0) ? nil : sqlLiteral(key)
    }

    /// The value at one-step `key` of `doc` when it has JSON type `type`
    /// (`number` or `string`), else NULL.
    static func scalar(_ doc: String, _ key: String, _ type: String) -> String? {
        guard !key.utf8.contains(0) else { return nil }
        var out = SQLText(capacity: 128)
        func value(_ out: inout SQLText) {
            out.add(string: doc)
            out.add(" -> ")
            out.literal(key)
        }
        if type == "number" {
            out.add("(CASE WHEN jsonb_typeof(")
            value(&out)
            out.add(") = 'number' THEN (")
            value(&out)
            out.add(")::numeric END)")
        } else {
            out.add("((CASE WHEN jsonb_typeof(")
            value(&out)
            out.add(") = 'string' THEN ")
            out.add(string: doc)
            out.add(" ->> ")
            out.literal(key)
            out.add(" END) COLLATE \"C\")")
        }
        return out.string
    }

    /// `jsonb_typeof(doc -> 'key')`.
    static func typeOf(_ doc: String, _ key: String) -> String? {
        keyLiteral(key).map { "jsonb_typeof(\(doc) -> \($0))" }
    }

    /// The range `key op constant` (one-step key; `literal` is the
    /// constant's JSON path text) with an indexable scalar branch, or `nil`.
    static func indexableRange(
        _ path: FieldPath, _ op: ComparisonOperator, _ value: SQLScalar, literal: String, type: String,
        arrays: String, _ ctx: inout SQLContext
    ) -> String? {
        guard path.components.count == 1, let key = path.components.first,
            let s = scalar(ctx.document, key, type), let t = typeOf(ctx.document, key)
        else { return nil }
        guard let constant = scalarConstant(value, literal: literal, &ctx) else { return nil }
        var out = SQLText(capacity: 512)
        out.add("(")
        out.add(string: s)
        out.add(" ")
        out.add(string: op.rawValue)
        out.add(" ")
        out.add(string: constant)
        out.add(" OR (")
        out.add(string: t)
        out.add(" = 'array' AND ")
        out.add(string: arrays)
        out.add("))")
        return out.string
    }

    /// A string or number constant bound to compare with ``scalar(_:_:_:)``
    /// (a number as its JSON path literal text, cast: the same value the
    /// path test compares).
    static func scalarConstant(_ value: SQLScalar, literal: String, _ ctx: inout SQLContext) -> String? {
        switch value {
        case .string(let str): return ctx.bind(.string(str))
        case .number: return ctx.bind(.string(literal)) + "::numeric"
        default: return nil
        }
    }

    /// The key of a one-step `path` of the queried row that no row holds an
    /// array at (``SQLContext/arrayFreeKeys``): its scalar branch alone is
    /// then the whole test, which the key's btree index serves (and an order
    /// after it, through the index's createdAt column).
    static func arrayFreeKey(_ path: FieldPath, _ ctx: SQLContext) -> String? {
        guard let key = path.singleComponent, ctx.document == "t0.\"doc\"", ctx.arrayFreeKeys.contains(key)
        else { return nil }
        return key
    }

    /// `key = v1 or key = v2 ...` for strings and numbers on an array-free
    /// key, by the indexed scalar expressions; `nil` for other constants.
    static func arrayFreeMembership(_ key: String, _ values: [SQLScalar], _ ctx: inout SQLContext) -> String? {
        var strings: [String] = [], numbers: [String] = []
        for v in values {
            switch v {
            case .string(let str): strings.append(ctx.bind(.string(str)))
            case .number:
                guard let l = literal(v), let c = scalarConstant(v, literal: l, &ctx) else { return nil }
                numbers.append(c)
            default: return nil
            }
        }
        var tests: [String] = []
        if !strings.isEmpty, let s = scalar(ctx.document, key, "string") { tests.append("\(s) IN (\(strings.joined(separator: ", ")))") }
        if !numbers.isEmpty, let n = scalar(ctx.document, key, "number") { tests.append("\(n) IN (\(numbers.joined(separator: ", ")))") }
        return tests.count == 1 ? tests[0] : "(" + tests.joined(separator: " OR ") + ")"
    }

    /// The expressions `cql load --postgres --index key` indexes (btree), over
    /// the column `"doc"`, written as the range shapes write them.
    ///
    /// ```swift
    /// PostgreSQLDialect.indexedExpressions(forKey: "score")
    /// // ["(CASE WHEN jsonb_typeof(\"doc\" -> 'score') = 'number' THEN (\"doc\" -> 'score')::numeric END)",
    /// //  "((CASE WHEN jsonb_typeof(\"doc\" -> 'score') = 'string' THEN \"doc\" ->> 'score' END) COLLATE \"C\")",
    /// //  "jsonb_typeof(\"doc\" -> 'score')"]
    /// ```
    public static func indexedExpressions(forKey key: String) -> [String]? {
        guard let n = scalar("\"doc\"", key, "number"), let s = scalar("\"doc\"", key, "string"),
            let t = typeOf("\"doc\"", key)
        else { return nil }
        return [n, s, t]
    }
}
