extension PostgreSQLDialect {
    /// The keys a typed value of ``opaqueTypes`` holds as the writer writes
    /// it (every stored document is the writer's text): a key read with `->`
    /// steps into a typed value where the evaluator's walk does not, so a
    /// path naming one of these after its first step is left to the path test.
    static let typedValueKeys: Set<String> = ["__type", "iso", "className", "objectId", "latitude", "longitude", "base64", "id", "name", "url"]

    /// `path = v` / `path in (v, ...)` for strings, numbers and booleans on
    /// a class without the GIN index (``SQLContext/documentIndexed``), read
    /// key by key with `->` — what a careful engineer writes — in place of
    /// the path test `doc @? $n::jsonpath`, which PostgreSQL interprets per
    /// row at about three times the cost:
    ///
    /// ```sql
    /// COALESCE(t0."doc" -> 'meta' -> 'source' @> $1::jsonb           -- the value, or an array holding it ($1 = "v")
    ///   OR ((jsonb_typeof(t0."doc" -> 'meta') = 'array')            -- an array on the way:
    ///       AND t0."doc" @? $2::jsonpath), FALSE)                   -- the path test
    /// ```
    ///
    /// (`in`: `@> ANY (ARRAY[$1::jsonb, $2::jsonb])`.) The key is read once:
    /// jsonb containment of a scalar holds for that scalar and for an array
    /// with it as an element (PostgreSQL's one exception to structures
    /// matching), never for a nested array, an object or another scalar.
    ///
    /// Exact, as the path test is: jsonb equality is the evaluator's on
    /// these values (strings byte for byte, numbers by value, no type
    /// matches another); `->` yields nothing past a scalar, a missing key or
    /// an array, and the walk's one-level fan-out over arrays on the way is
    /// the path test's, asked only when an array is there. A typed value is
    /// stepped into only for a key it never holds (``typedValueKeys``).
    /// `nil`: the path test.
    static func keyReadMembership(_ path: FieldPath, _ values: [SQLScalar], _ ctx: inout SQLContext) -> String? {
        guard ctx.document == "t0.\"doc\"", !values.isEmpty, values.count <= 4 else { return nil }
        let steps: [String]
        if let key = path.singleComponent {
            steps = [key]
        } else {
            steps = path.components
            guard steps.count >= 2, steps.count <= 4 else { return nil }
            for step in steps.dropFirst() where typedValueKeys.contains(step) || SQLTerms.isIndex(step) { return nil }
        }
        guard !steps.contains(where: { $0.utf8.contains(0) }) else { return nil }
        var texts: [String] = []
        for v in values {
            switch v {
            case .string(let s):
                // JSONB cannot hold NUL: the path test's own refusal decides.
                guard !s.utf8.contains(0) else { return nil }
                texts.append(JSONWriter.string(.string(s)))
            case .bool(let b): texts.append(b ? "true" : "false")
            case .number:
                guard let l = literal(v) else { return nil }
                texts.append(l)
            case .null: return nil
            }
        }
        let document = ctx.document
        func read(_ out: inout SQLText, _ count: Int) {
            out.add(string: document)
            for step in steps.prefix(count) {
                out.add(" -> ")
                out.literal(step)
            }
        }
        var out = SQLText(capacity: 256)
        out.add("COALESCE(")
        read(&out, steps.count)
        if texts.count == 1 {
            out.add(" @> ")
            out.add(string: ctx.bind(.string(texts[0])))
            out.add("::jsonb")
        } else {
            out.add(" @> ANY (ARRAY[")
            for (i, t) in texts.enumerated() {
                if i > 0 { out.add(", ") }
                out.add(string: ctx.bind(.string(t)))
                out.add("::jsonb")
            }
            out.add("])")
        }
        if steps.count > 1 {
            guard let filter = equalityFilter(values), let walk = test(path, filter, &ctx) else { return nil }
            out.add(" OR ((")
            for k in 1..<steps.count {
                if k > 1 { out.add(" OR ") }
                out.add("jsonb_typeof(")
                read(&out, k)
                out.add(") = 'array'")
            }
            out.add(") AND ")
            out.add(string: walk)
            out.add(")")
        }
        out.add(", FALSE)")
        return out.string
    }
}
