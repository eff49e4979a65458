/// PostgreSQL: the `UPDATE` of one object (``SQLWriteGenerator``).
///
/// The new object is built on the `json` (text) form of `raw`, member by
/// member: `json_each` keeps each untouched value's exact text (`jsonb`
/// would print `1e2` as `100` and `-0.0` as `0.0`, which read back as other
/// values), the assigned keys follow with their new values, and `doc` is
/// cast from the new `raw`. An op's precondition goes into the `WHERE`, so
/// that a write it refuses changes no row; the value expressions are
/// guarded by `CASE` so that they cannot fail on a value the `WHERE`
/// refuses. Doubles are printed by `float8out`, exact with PostgreSQL's
/// default `extra_float_digits` (1); an Increment past the double range
/// fails, as in memory.
///
/// ```swift
/// // update T set n = op('Increment', {'amount': 1}) where objectId = 'a'
/// // UPDATE "T" AS t0 SET "raw" = n.r, "doc" = n.r::jsonb FROM (SELECT (SELECT json_object_agg(m.k, m.v ORDER BY m.g, m.o)
/// //   FROM (SELECT 0 AS g, e.o, e.k, e.v FROM json_each(t1."raw"::json) WITH ORDINALITY AS e(k, v, o) WHERE e.k NOT IN ($2::text, 'updatedAt')
/// //   UNION ALL SELECT 1, 1, $2::text, CASE ... END UNION ALL SELECT 1, 2, 'updatedAt', to_json($4::text)) AS m WHERE m.v IS NOT NULL)::text AS r
/// //   FROM "T" AS t1 WHERE t1."objectId" = $1) AS n WHERE t0."objectId" = $1 AND (...n is a number or missing...) AND (...no overflow...)
/// ```
extension PostgreSQLDialect {
    static let integerText = "'^-?[0-9]+$'"

    static func update(_ plan: SQLUpdatePlan, condition: String?, _ ctx: inout SQLContext) throws(QueryError) -> SQLStatement {
        let table = try ctx.dialect.quote(plan.className)
        let idArgument = ctx.bind(.string(plan.objectId))
        var keys: [String] = []
        var members: [String] = []
        var guards: [String] = []
        for (index, step) in plan.steps.enumerated() {
            let key = "\(ctx.bind(.string(step.key)))::text"
            keys.append(key)
            let c = "(t1.\"raw\"::json -> \(key))", g = "(t0.\"raw\"::json -> \(key))"
            let kind = "coalesce(json_typeof(\(g)), '')"
            let value: String?
            switch step.change {
            case .set(let v):
                value = "\(ctx.bind(.string(JSONWriter.string(v))))::json"
            case .remove:
                value = nil
            case .increment(let amount, let negate):
                let op = negate ? "-" : "+"
                guards.append("\(kind) IN ('', 'number')")
                let double = "coalesce(\(c)::text, '0')::float8 \(op) \(ctx.bind(amount))::float8"
                let doubleJSON = "(SELECT (CASE WHEN f.r::text ~ \(integerText) THEN f.r::text || '.0' ELSE f.r::text END)::json FROM (SELECT \(double) AS r) AS f)"
                if case .int(let i) = amount {
                    let a = ctx.bind(.int(i))
                    // Integers stay exact: a sum outside 64 bits refuses (numeric cannot overflow first).
                    let sum = "coalesce(\(g)::text, '0')::numeric \(op) \(a)::numeric"
                    guards.append("CASE WHEN \(g) IS NULL OR \(isInteger(g)) THEN \(sum) BETWEEN -9223372036854775808 AND 9223372036854775807 ELSE TRUE END")
                    value = "CASE WHEN \(c) IS NULL OR \(isInteger(c)) THEN to_json(coalesce(\(c)::text, '0')::numeric \(op) \(a)::numeric) "
                        + "WHEN json_typeof(\(c)) = 'number' THEN \(doubleJSON) END"
                } else {
                    value = "CASE WHEN \(c) IS NULL OR json_typeof(\(c)) = 'number' THEN \(doubleJSON) END"
                }
            case .add(let items):
                guards.append("\(kind) IN ('', 'array')")
                value = "coalesce((SELECT json_agg(a.v ORDER BY a.g, a.o) FROM (\(elements(c)) UNION ALL "
                    + "SELECT 1, x.o, x.v FROM json_array_elements(\(ctx.bind(.string(JSONWriter.string(.array(items)))))::json) WITH ORDINALITY AS x(v, o)) AS a), '[]'::json)"
            case .addUnique(let scalars):
                guards.append("\(kind) IN ('', 'array')")
                var parts = [elements(c)]
                for (j, (s, v)) in scalars.enumerated() {
                    let y = ctx.alias("y")
                    parts.append("SELECT 1, \(j + 1), \(ctx.bind(.string(JSONWriter.string(v))))::json WHERE NOT EXISTS "
                        + "(SELECT 1 FROM json_array_elements(\(array(c))) AS \(y)(v) WHERE \(elementEquals("\(y).v", s, &ctx)))")
                }
                value = "coalesce((SELECT json_agg(a.v ORDER BY a.g, a.o) FROM (\(parts.joined(separator: " UNION ALL "))) AS a), '[]'::json)"
            case .removeElements(let scalars):
                guards.append("\(kind) IN ('', 'array')")
                let x = ctx.alias("x")
                let gone = scalars.isEmpty ? "FALSE" : scalars.map { elementEquals("\(x).v", $0.0, &ctx) }.joined(separator: " OR ")
                // A missing key stays missing (NULL leaves the member out).
                value = "CASE WHEN \(c) IS NOT NULL THEN coalesce((SELECT json_agg(\(x).v ORDER BY \(x).o) FROM json_array_elements(\(array(c))) "
                    + "WITH ORDINALITY AS \(x)(v, o) WHERE NOT (\(gone))), '[]'::json) END"
            case .relation(let op, let className?, _):
                // Missing, or a Relation of the first Pointer's class (class names by bytes).
                guards.append("(\(g) IS NULL OR (json_typeof(\(g)) = 'object' AND json_typeof(\(g) -> '__type') = 'string' AND \(g) ->> '__type' = 'Relation' "
                    + "AND json_typeof(\(g) -> 'className') = 'string' AND \(g) ->> 'className' = \(ctx.bind(.string(className)))::text))")
                value = op == .addRelation ? "coalesce(\(c), \(ctx.bind(.string(JSONWriter.string(.relation(className: className)))))::json)" : c
            case .relation(_, nil, _):
                value = c
            case .bit(let kind_, let v):
                guards.append("(\(g) IS NULL OR \(isInteger(g)))")
                let symbol = kind_ == .bitAnd ? "&" : kind_ == .bitOr ? "|" : "#"
                value = "CASE WHEN \(c) IS NULL OR \(isInteger(c)) THEN to_json(coalesce(\(c)::text, '0')::int8 \(symbol) \(ctx.bind(.int(v)))::int8) END"
            }
            if let value { members.append("SELECT 1, \(index + 1), \(key), \(value)") }
        }
        members.append("SELECT 1, \(plan.steps.count + 1), 'updatedAt', to_json(\(ctx.bind(.string(plan.updatedAt)))::text)")
        let kept = "SELECT 0 AS g, e.o, e.k, e.v FROM json_each(t1.\"raw\"::json) WITH ORDINALITY AS e(k, v, o) "
            + "WHERE e.k NOT IN (\((keys + ["'updatedAt'"]).joined(separator: ", ")))"
        let object = "(SELECT json_object_agg(m.k, m.v ORDER BY m.g, m.o) FROM (\(([kept] + members).joined(separator: " UNION ALL "))) AS m WHERE m.v IS NOT NULL)::text"
        let stamp = ctx.bind(.int(plan.now.millisecondsSince1970))
        var sql = "UPDATE \(table) AS t0 SET \"raw\" = n.r, \"doc\" = n.r::jsonb, \"updatedAt\" = \(stamp) FROM (SELECT \(object) AS r FROM \(table) AS t1 "
            + "WHERE t1.\"objectId\" = \(idArgument)) AS n WHERE t0.\"objectId\" = \(idArgument)"
        if let condition { sql += " AND " + condition }
        for g in guards { sql += " AND " + g }
        return SQLStatement(sql: sql, arguments: ctx.arguments)
    }

    /// Whether the json value `v` is a number written as an integer (how the
    /// reader tells `.int` from `.double`).
    static func isInteger(_ v: String) -> String {
        "(json_typeof(\(v)) = 'number' AND \(v)::text ~ \(integerText))"
    }

    /// The json value `c` if it is an array, else `[]` (the `WHERE` refuses
    /// other values; this keeps the expression from failing on them).
    static func array(_ c: String) -> String { "CASE WHEN json_typeof(\(c)) = 'array' THEN \(c) ELSE '[]'::json END" }

    /// The old array's elements as rows (group 0, position, value).
    static func elements(_ c: String) -> String {
        "SELECT 0 AS g, x.o, x.v FROM json_array_elements(\(array(c))) WITH ORDINALITY AS x(v, o)"
    }

    /// Whether the json element `v` is semantically equal to the scalar:
    /// a stored integer by its exact value, a stored double as a double.
    static func elementEquals(_ v: String, _ s: SQLElementScalar, _ ctx: inout SQLContext) -> String {
        switch s {
        case .null: return "json_typeof(\(v)) = 'null'"
        case .bool(let b): return "(json_typeof(\(v)) = 'boolean' AND \(v)::text = '\(b ? "true" : "false")')"
        case .string(let t): return "(json_typeof(\(v)) = 'string' AND \(v) #>> '{}' = \(ctx.bind(.string(t)))::text)"
        case .number(let i, let d):
            let asInteger = i.map { "\(v)::text::numeric = \(ctx.bind(.int($0)))::numeric" } ?? "FALSE"
            let asDouble = d.map { "\(v)::text::float8 = \(ctx.bind(.double($0)))::float8" } ?? "FALSE"
            return "(json_typeof(\(v)) = 'number' AND CASE WHEN \(v)::text ~ \(integerText) THEN \(asInteger) ELSE \(asDouble) END)"
        }
    }
}
