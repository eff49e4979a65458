/// SQLite: the `UPDATE` of one object (``SQLWriteGenerator``).
///
/// The new document is the stored text edited key by key with `json_set`,
/// `json_remove`, `json_insert` and `json_replace`, which keep the exact
/// text of every value they do not touch. Each op reads the key's old value
/// from the row (`json_type` says missing, integer, real, text, array ...;
/// a key is assigned once per statement), and its precondition goes into
/// the `WHERE`, so that a write an op refuses changes no row.
///
/// ```swift
/// // update T set n = op('Increment', {'amount': 1}) where objectId = 'a'
/// // UPDATE "T" AS t0 SET "doc" = json_set(json_set(t0."doc", '$."n"', json(CASE WHEN ... = 'real'
/// //   THEN (...the double, printed exactly...) ELSE CAST(coalesce(json_extract(t0."doc", '$."n"'), 0) + ?2 AS TEXT) END)),
/// //   '$."updatedAt"', ?5) WHERE t0."objectId" = ?1 AND (...n is a number or missing...) AND (...no overflow...)
/// ```
extension SQLiteDialect {
    static func update(_ plan: SQLUpdatePlan, condition: String?, _ ctx: inout SQLContext) throws(QueryError) -> SQLStatement {
        let table = try ctx.dialect.quote(plan.className)
        let doc = "t0.\"doc\""
        let idArgument = ctx.bind(.string(plan.objectId))
        var expr = doc
        var guards: [String] = []
        for step in plan.steps {
            // SQLWriteGenerator.step checked that the key can be spelled.
            let member = member(step.key) ?? ""
            let p = sqlLiteral("$" + member)
            let kind = "coalesce(json_type(\(doc), \(p)), '')"
            let old = "json_extract(\(doc), \(p))"
            let text = "(\(doc) -> \(p))"
            switch step.change {
            case .set(let v):
                expr = "json_set(\(expr), \(p), json(\(ctx.bind(.string(JSONWriter.string(v))))))"
            case .remove:
                expr = "json_remove(\(expr), \(p))"
            case .increment(let amount, let negate):
                let op = negate ? "-" : "+"
                let a = ctx.bind(amount)
                guards.append("\(kind) IN ('', 'integer', 'real')")
                let zero = negativeZero(amount, negate: negate) ? "CASE WHEN \(kind) = 'real' AND \(text) LIKE '-%' THEN '-0.0' ELSE '0.0' END" : "'0.0'"
                if case .int(let i) = amount {
                    // Integers stay exact: refuse what would overflow 64 bits
                    // (SQLite would silently turn it into a real).
                    let (limitIsUpper, limit) = integerLimit(i, negate: negate)
                    guards.append("(\(kind) = 'real' OR coalesce(\(old), 0) \(limitIsUpper ? "<=" : ">=") \(ctx.bind(.int(limit))))")
                    let double = exactDouble("\(old) \(op) \(a)", zero: zero)
                    guards.append("(\(kind) <> 'real' OR \(double) IS NOT NULL)")
                    expr = "json_set(\(expr), \(p), json(CASE WHEN \(kind) = 'real' THEN \(double) ELSE CAST(coalesce(\(old), 0) \(op) \(a) AS TEXT) END))"
                } else {
                    let double = exactDouble("coalesce(\(old), 0) \(op) \(a)", zero: zero)
                    guards.append("\(double) IS NOT NULL")
                    expr = "json_set(\(expr), \(p), json(\(double)))"
                }
            case .add(let items):
                guards.append("\(kind) IN ('', 'array')")
                var array = "coalesce(\(text), '[]')"
                if !items.isEmpty {
                    array = "json_insert(\(array)" + items.map { ", '$[#]', json(\(ctx.bind(.string(JSONWriter.string($0)))))" }.joined() + ")"
                }
                expr = "json_set(\(expr), \(p), json(\(array)))"
            case .addUnique(let scalars):
                // json_insert does not overwrite: an element already there is
                // "inserted" at $[0], which exists, and nothing changes.
                guards.append("\(kind) IN ('', 'array')")
                var array = "coalesce(\(text), '[]')"
                if !scalars.isEmpty {
                    var pairs = ""
                    for (s, v) in scalars {
                        let e = ctx.alias("e")
                        let present = "EXISTS (SELECT 1 FROM json_each(\(doc), \(p)) AS \(e) WHERE \(elementEquals(e, s, &ctx)))"
                        pairs += ", CASE WHEN \(present) THEN '$[0]' ELSE '$[#]' END, json(\(ctx.bind(.string(JSONWriter.string(v)))))"
                    }
                    array = "json_insert(\(array)\(pairs))"
                }
                expr = "json_set(\(expr), \(p), json(\(array)))"
            case .removeElements(let scalars):
                // json_replace leaves a missing key missing (as in memory).
                guards.append("\(kind) IN ('', 'array')")
                let e = ctx.alias("e")
                let gone = scalars.isEmpty ? "FALSE" : scalars.map { elementEquals(e, $0.0, &ctx) }.joined(separator: " OR ")
                let element = "(\(doc) -> (\(sqlLiteral("$" + member + "[")) || \(e).key || ']'))"
                let kept = "(SELECT json_group_array(json(\(element))) FROM json_each(\(doc), \(p)) AS \(e) WHERE NOT (\(gone)))"
                expr = "json_replace(\(expr), \(p), json(\(kept)))"
            case .relation(let op, let className?, _):
                // Missing, or a Relation of the first Pointer's class (class names by bytes).
                let type = sqlLiteral("$" + member + ".\"__type\""), name = sqlLiteral("$" + member + ".\"className\"")
                guards.append("(\(kind) = '' OR (\(kind) = 'object' AND json_type(\(doc), \(type)) = 'text' AND json_extract(\(doc), \(type)) = 'Relation' "
                    + "AND json_type(\(doc), \(name)) = 'text' AND json_extract(\(doc), \(name)) = \(ctx.bind(.string(className)))))")
                if op == .addRelation {
                    // json_insert leaves an existing Relation alone.
                    expr = "json_insert(\(expr), \(p), json(\(ctx.bind(.string(JSONWriter.string(.relation(className: className)))))))"
                }
            case .relation(_, nil, _):
                break
            case .bit(let kind_, let v):
                guards.append("\(kind) IN ('', 'integer')")
                let x = "coalesce(\(old), 0)", b = ctx.bind(.int(v))
                let value: String
                switch kind_ {
                case .bitAnd: value = "(\(x) & \(b))"
                case .bitOr: value = "(\(x) | \(b))"
                // No XOR in SQLite: (x | v) - (x & v), whose bits are a subset: no overflow.
                default: value = "((\(x) | \(b)) - (\(x) & \(b)))"
                }
                expr = "json_set(\(expr), \(p), \(value))"
            }
        }
        expr = "json_set(\(expr), '$.\"updatedAt\"', \(ctx.bind(.string(plan.updatedAt))))"
        let stamp = ctx.bind(.int(plan.now.millisecondsSince1970))
        var sql = "UPDATE \(table) AS t0 SET \"doc\" = \(expr), \"updatedAt\" = \(stamp) WHERE t0.\"objectId\" = \(idArgument)"
        if let condition { sql += " AND " + condition }
        for g in guards { sql += " AND " + g }
        return SQLStatement(sql: sql, arguments: ctx.arguments)
    }

    /// The JSON text of the double `r`, printed exactly: SQLite 3.40's
    /// `printf('%!.17g')` misses the last digit of some doubles, so the
    /// first of 17, 16, 18, 19, 20 digits that reads back as `r` is taken
    /// (NULL when none does: an infinity, which memory refuses too). Zero
    /// is written apart, with its sign (`zero`), which printf drops.
    static func exactDouble(_ r: String, zero: String) -> String {
        var cases = "WHEN r = 0 THEN \(zero)"
        for digits in [17, 16, 18, 19, 20] {
            let f = "printf('%!.\(digits)g', r)"
            cases += " WHEN CAST(\(f) AS REAL) = r THEN \(f)"
        }
        return "(SELECT CASE \(cases) END FROM (SELECT \(r) AS r))"
    }

    /// Whether `old ± amount` is -0.0 when the old value is the double -0.0
    /// (IEEE: -0 + -0 and -0 - +0 are -0; every other zero sum is +0).
    static func negativeZero(_ amount: Value, negate: Bool) -> Bool {
        guard let d = amount.numberValue, d == 0 else { return false }
        let negativeAmount: Bool
        if case .double(let x) = amount { negativeAmount = x.sign == .minus } else { negativeAmount = false }
        return negate ? !negativeAmount : negativeAmount
    }

    /// The bound an integer old value must keep for `old ± i` to fit in 64
    /// bits: `(true, m)` is old ≤ m, `(false, m)` old ≥ m.
    static func integerLimit(_ i: Int64, negate: Bool) -> (Bool, Int64) {
        if negate {
            return i >= 0 ? (false, Int64.min + i) : (true, Int64.max + i)
        }
        return i >= 0 ? (true, Int64.max - i) : (false, Int64.min - i)
    }

    /// Whether the `json_each` row `e` is semantically equal to the scalar.
    static func elementEquals(_ e: String, _ s: SQLElementScalar, _ ctx: inout SQLContext) -> String {
        switch s {
        case .null: return "\(e).type = 'null'"
        case .bool(let b): return "\(e).type = '\(b ? "true" : "false")'"
        case .string(let v): return "(\(e).type = 'text' AND \(e).value = \(ctx.bind(.string(v))))"
        case .number(let i, let d):
            var parts: [String] = []
            if let i { parts.append("(\(e).type = 'integer' AND \(e).value = \(ctx.bind(.int(i))))") }
            if let d { parts.append("(\(e).type = 'real' AND \(e).value = \(ctx.bind(.double(d))))") }
            return parts.isEmpty ? "FALSE" : "(" + parts.joined(separator: " OR ") + ")"
        }
    }
}
