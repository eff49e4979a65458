/// SQLite's leaf shapes written inside the walk (SQLiteDialect+Walk.swift):
/// equality and `in`, ranges, prefixes and regexes, each with its type guard
/// (EvaluationSemantics.md: comparisons only within a type class).
extension SQLiteDialect {
    /// `t`/`x` is one of the scalars (the type guard first, so `true` is never 1).
    static func equalsAny(_ values: [SQLScalar], _ ctx: inout SQLContext) -> Test {
        var numbers: [String] = [], strings: [String] = [], fixed: [StaticString] = []
        for v in values {
            switch v {
            case .null: fixed.append("'null'")
            case .bool(let b): fixed.append(b ? "'true'" : "'false'")
            case .number(let n): numbers.append(ctx.bind(n))
            case .string(let s): strings.append(ctx.bind(.string(s)))
            }
        }
        return { out, o in
            var first = true
            func separate(_ out: inout SQLText) {
                if !first { out.add(" OR ") }
                first = false
            }
            func rhs(_ out: inout SQLText, _ placeholders: [String]) {
                if placeholders.count == 1 {
                    out.add(" = ")
                    out.add(string: placeholders[0])
                } else {
                    out.add(" IN (")
                    out.add(joined: placeholders, separator: ", ")
                    out.add(")")
                }
            }
            if !fixed.isEmpty {
                separate(&out)
                addType(&out, o)
                out.add(" IN (")
                for (i, f) in fixed.enumerated() {
                    if i > 0 { out.add(", ") }
                    out.add(f)
                }
                out.add(")")
            }
            if !numbers.isEmpty {
                separate(&out)
                out.add("(")
                addType(&out, o)
                out.add(" IN ('integer', 'real') AND ")
                addValue(&out, o)
                rhs(&out, numbers)
                out.add(")")
            }
            if !strings.isEmpty {
                separate(&out)
                out.add("(")
                addType(&out, o)
                out.add(" = 'text' AND ")
                addValue(&out, o)
                rhs(&out, strings)
                out.add(")")
            }
            if first { out.add("FALSE") }
        }
    }

    /// The walk along `path` with `test` on each value reached or its
    /// elements (``valueOrElement(_:_:_:_:_:)``), written into one buffer.
    static func valueTest(_ path: FieldPath, _ ctx: inout SQLContext, missing: Bool = false, _ test: Test) -> String? {
        var out = SQLText()
        guard walk(path, &ctx, missing: missing, into: &out, { out, doc, p, ctx in
            valueOrElement(doc, p, &ctx, &out, test)
        }) else { return nil }
        return out.string
    }

    /// ` AND x >= lower[ AND x < upper]`: the code-point range of a prefix.
    static func addTextRange(_ out: inout SQLText, _ x: Operand, _ lower: String?, _ upper: String?) {
        if let lower {
            out.add(" AND ")
            addValue(&out, x)
            out.add(" >= ")
            out.add(string: lower)
        }
        if let upper {
            out.add(" AND ")
            addValue(&out, x)
            out.add(" < ")
            out.add(string: upper)
        }
    }

    /// `k = v1 or k = v2 ...` (also `in`): null in the list matches missing.
    static func membership(_ path: FieldPath, _ values: [SQLScalar], _ ctx: inout SQLContext) -> String? {
        if values.isEmpty { return "FALSE" }
        return valueTest(path, &ctx, missing: values.contains(.null), equalsAny(values, &ctx))
    }

    /// `k op v` for a range operator: same type class only (EvaluationSemantics.md).
    static func range(_ path: FieldPath, _ op: ComparisonOperator, _ v: SQLScalar, _ ctx: inout SQLContext) -> String? {
        let guardTypes: StaticString
        let bound: String
        switch v {
        case .null:
            // MongoDB: `<= null` / `>= null` are `= null`; `<` / `>` match nothing.
            return op == .lessThan || op == .greaterThan ? "FALSE" : membership(path, [.null], &ctx)
        case .number(let n): guardTypes = " IN ('integer', 'real') AND "; bound = ctx.bind(n)
        case .string(let s): guardTypes = " = 'text' AND "; bound = ctx.bind(.string(s))
        case .bool(let b): guardTypes = " IN ('true', 'false') AND "; bound = ctx.bind(.int(b ? 1 : 0))
        }
        let operatorText = " " + op.rawValue + " "
        return valueTest(path, &ctx) { out, o in
            out.add("(")
            addType(&out, o)
            out.add(guardTypes)
            addValue(&out, o)
            out.add(string: operatorText)
            out.add(string: bound)
            out.add(")")
        }
    }

    /// A PCRE2 match by the registered evaluator regex, with the literal
    /// prefix of a LIKE as a range (a superset ANDed to the exact match) that
    /// an index on the path can serve.
    static func regex(_ path: FieldPath, _ pattern: String, _ options: String, prefix: String, _ ctx: inout SQLContext) -> String? {
        let p = ctx.bind(.string(pattern)), o = ctx.bind(.string(options))
        var lower: String?, upper: String?
        if !prefix.isEmpty {
            lower = ctx.bind(.string(prefix))
            upper = SQLTerms.prefixUpperBound(prefix).map { ctx.bind(.string($0)) }
        }
        return valueTest(path, &ctx) { out, x in
            out.add("(")
            addType(&out, x)
            out.add(" = 'text'")
            addTextRange(&out, x, lower, upper)
            // As a BLOB: a text argument would reach the function cut at a NUL.
            out.add(" AND cql_regexp(")
            out.add(string: p)
            out.add(", ")
            out.add(string: o)
            out.add(", CAST(")
            addValue(&out, x)
            out.add(" AS BLOB)))")
        }
    }

    /// A string (or array element) starting with `prefix`: the code-point
    /// range `[prefix, successor)`, which is exactly the strings with that
    /// prefix (BINARY collation compares UTF-8 bytes, code-point order) and
    /// which an index on the key's text serves.
    static func prefix(_ path: FieldPath, _ prefix: String, _ ctx: inout SQLContext) -> String? {
        let lower = ctx.bind(.string(prefix))
        let upper = SQLTerms.prefixUpperBound(prefix).map { ctx.bind(.string($0)) }
        return valueTest(path, &ctx) { out, x in
            out.add("(")
            addType(&out, x)
            out.add(" = 'text'")
            addTextRange(&out, x, lower, upper)
            out.add(")")
        }
    }
}
