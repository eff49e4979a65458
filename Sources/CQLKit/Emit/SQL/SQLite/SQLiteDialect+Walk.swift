/// SQLite's walk along a key path: the object branch and the array branch
/// of every step (the evaluator's one-level fan-out per step), and at the
/// end the value itself or, when it is an array, some element of it. The
/// leaf shapes (SQLiteDialect+Shapes.swift) write their tests inside it.
extension SQLiteDialect {
    /// Writes `present(out, doc, path, ctx)` for a value at `path` of the
    /// JSON document expression `doc`.
    typealias Present = (inout SQLText, String, String, inout SQLContext) -> Void

    /// The SQL that some value reached by `path` satisfies `present` (given
    /// the JSON document expression and the path to the value in it), or,
    /// with `missing`, that some branch of the walk ends missing.
    static func walk(
        _ path: FieldPath, _ ctx: inout SQLContext, missing: Bool,
        _ present: (String, String, inout SQLContext) -> String
    ) -> String? {
        var out = SQLText()
        guard walk(path, &ctx, missing: missing, into: &out, { out, doc, p, ctx in out.add(string: present(doc, p, &ctx)) })
        else { return nil }
        return out.string
    }

    /// ``walk(_:_:missing:_:)`` written into `out`; `false` (nothing
    /// written) when the path cannot be spelled.
    static func walk(
        _ path: FieldPath, _ ctx: inout SQLContext, missing: Bool, into out: inout SQLText, _ present: Present
    ) -> Bool {
        guard canSpell(path) else { return false }
        guard walkCost(path) <= maxWalkCost else {
            ctx.note("\(path.dotted): too many steps through possible arrays to write in SQL")
            return false
        }
        if let key = path.singleComponent {
            walk(ctx.document, "$.\"\(key)\"", [], &ctx, missing, &out, present)
        } else {
            let steps = path.components
            walk(ctx.document, "$.\"\(steps[0])\"", steps.dropFirst(), &ctx, missing, &out, present)
        }
        return true
    }

    /// The most branches one path may write (see ``walkCost(_:)``): the SQL
    /// doubles with every step after the first (the object branch and the
    /// array branch) and triples with a numeric one, so a 16-step path would
    /// be 50 MB of SQL. Longer paths are re-checked by the evaluator.
    static let maxWalkCost = 16

    static func walkCost(_ path: FieldPath) -> Int {
        if path.componentCount == 1 { return 1 }
        var cost = 1
        for step in path.components.dropFirst() {
            cost *= SQLTerms.isIndex(step) ? 3 : 2
            if cost > maxWalkCost { return cost }
        }
        return cost
    }

    /// `json_type(doc, 'path')`.
    private static func addType(_ out: inout SQLText, _ doc: String, _ path: String) {
        out.add("json_type(")
        out.add(string: doc)
        out.add(", ")
        out.literal(path)
        out.add(")")
    }

    private static func walk(
        _ doc: String, _ path: String, _ steps: ArraySlice<String>, _ ctx: inout SQLContext, _ missing: Bool,
        _ out: inout SQLText, _ present: Present
    ) {
        guard let step = steps.first else {
            if missing {
                out.add("(")
                addType(&out, doc, path)
                out.add(" IS NULL OR ")
                present(&out, doc, path, &ctx)
                out.add(")")
            } else {
                present(&out, doc, path, &ctx)
            }
            return
        }
        let rest = steps.dropFirst()
        let m = member(step)!
        // Typed values (Date, Pointer, GeoPoint, ...) are values, not
        // objects: the evaluator's walk does not step into them.
        out.add("((")
        addType(&out, doc, path)
        out.add(" = 'object' AND NOT ")
        addTyped(&out, doc, path)
        out.add(" AND ")
        walk(doc, path + m, rest, &ctx, missing, &out, present)
        out.add(") OR (")
        addType(&out, doc, path)
        out.add(" = 'array' AND ")
        // On an array the step applies to every object element (a numeric
        // step too: it names the field "1" of each object element) ...
        let index = SQLTerms.isIndex(step)
        if index { out.add("(") }
        let e = ctx.alias("e")
        out.add("EXISTS (SELECT 1 FROM json_each(")
        out.add(string: doc)
        out.add(", ")
        out.literal(path)
        out.add(") AS ")
        out.add(string: e)
        out.add(" WHERE ")
        out.add(string: e)
        out.add(".type = 'object' AND NOT ")
        addTyped(&out, e + ".value", "$")
        out.add(" AND ")
        walk(e + ".value", "$" + m, rest, &ctx, missing, &out, present)
        out.add(")")
        if index {
            // ... and a numeric step also reaches the element at that index;
            // past the end it reaches nothing (not a missing branch), and a
            // scalar there has no keys for the rest of the path.
            let at = path + "[\(step)]"
            out.add(" OR ")
            if rest.isEmpty {
                out.add("(")
                addType(&out, doc, at)
                out.add(" IS NOT NULL AND ")
                present(&out, doc, at, &ctx)
                out.add(")")
            } else {
                out.add("((")
                addType(&out, doc, at)
                out.add(" = 'array' OR (")
                addType(&out, doc, at)
                out.add(" = 'object' AND NOT ")
                addTyped(&out, doc, at)
                out.add(")) AND ")
                walk(doc, at, rest, &ctx, missing, &out, present)
                out.add(")")
            }
            out.add(")")
        }
        out.add(")")
        if missing {
            out.add(" OR (")
            addType(&out, doc, path)
            out.add(" IS NULL OR ")
            addType(&out, doc, path)
            out.add(" NOT IN ('object', 'array') OR (")
            addType(&out, doc, path)
            out.add(" = 'object' AND ")
            addTyped(&out, doc, path)
            out.add("))")
        }
        out.add(")")
    }

    /// Whether the object at `path` is a typed value (its `__type` names one).
    private static func addTyped(_ out: inout SQLText, _ doc: String, _ path: String) {
        out.add("COALESCE(json_extract(")
        out.add(string: doc)
        out.add(", ")
        out.literal(path, ".\"__type\"")
        out.add(") IN ('Date', 'Pointer', 'GeoPoint', 'Bytes', 'File', 'Relation'), FALSE)")
    }

    /// Where a value-or-element test reads: the value at a path of a
    /// document (`json_type(doc, 'p')`, `json_extract(doc, 'p')`) or one
    /// element of `json_each` (`e1.type`, `e1.value`).
    enum Operand {
        case extracted(doc: String, path: String)
        case element(String)
    }

    /// Writes the JSON type of the operand.
    static func addType(_ out: inout SQLText, _ o: Operand) {
        switch o {
        case .extracted(let doc, let path): addType(&out, doc, path)
        case .element(let e): out.add(string: e); out.add(".type")
        }
    }

    /// Writes the SQL value of the operand.
    static func addValue(_ out: inout SQLText, _ o: Operand) {
        switch o {
        case .extracted(let doc, let path):
            out.add("json_extract(")
            out.add(string: doc)
            out.add(", ")
            out.literal(path)
            out.add(")")
        case .element(let e): out.add(string: e); out.add(".value")
        }
    }

    /// Writes a test of one operand (a type guard and a comparison).
    typealias Test = (inout SQLText, Operand) -> Void

    /// `test(type, value)` on the reached value itself or on some element of
    /// it when it is an array (the evaluator's one-level fan-out).
    static func valueOrElement(
        _ doc: String, _ path: String, _ ctx: inout SQLContext, _ out: inout SQLText, _ test: Test
    ) {
        if !ctx.arrayFreeKeys.isEmpty, doc == "t0.\"doc\"", ctx.arrayFreeKeys.contains(where: { member($0).map { "$" + $0 } == path }) {
            // No row holds an array there (SQLContext.arrayFreeKeys).
            out.add("(")
            test(&out, .extracted(doc: doc, path: path))
            out.add(")")
            return
        }
        out.add("((")
        test(&out, .extracted(doc: doc, path: path))
        out.add(") OR (")
        addType(&out, doc, path)
        out.add(" = 'array' AND EXISTS (SELECT 1 FROM json_each(")
        out.add(string: doc)
        out.add(", ")
        out.literal(path)
        out.add(") AS ")
        let e = ctx.alias("e")
        out.add(string: e)
        out.add(" WHERE ")
        test(&out, .element(e))
        out.add(")))")
    }
}
