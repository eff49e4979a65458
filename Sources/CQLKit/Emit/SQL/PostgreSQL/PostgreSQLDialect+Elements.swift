/// MongoDB's operators on whole values and their elements in PostgreSQL:
/// `$size` on any path, `$type`, `$mod`, `$containedBy`, and `$elemMatch`
/// in its operator form.
///
/// Two ways of reading the value a path reaches, both as the evaluator's
/// walk does (one array level per step):
/// - `test(path, filter)`: the lax-mode filter sees the value, or the
///   elements of an array value (what `$type` and `$mod` test);
/// - `whole(path, filter)`: the filter sees the objects holding the last
///   step and reads the value as `@."last"` — a member access, which does not
///   unwrap, so the filter sees an array value as the array (what `$size`,
///   `$containedBy` and `$elemMatch` test).
///
/// A lax-mode filter also unwraps each item of `[*]`, so a nested array
/// element would be read as its elements: element tests either rule nested
/// arrays out first (`.type()` does not unwrap) or take the elements in SQL
/// and test each in strict mode.
extension PostgreSQLDialect {
    /// `lax <objects holding the last step> ? (filter)` with `@."last"` the
    /// value the path reaches, as a `doc @? $n` test; `filter` is given the
    /// member access text (`@."last"`).
    static func whole(_ path: FieldPath, _ ctx: inout SQLContext, _ filter: (String) -> String) -> String? {
        guard let text = wholePath(path, filter) else { return nil }
        return "\(ctx.document) @? \(ctx.bind(.string(text)))::jsonpath"
    }

    /// The JSON path text of ``whole(_:_:_:)``.
    static func wholePath(_ path: FieldPath, _ filter: (String) -> String) -> String? {
        guard let steps = steps(path), let last = steps.last else { return nil }
        let objects = steps.count == 1 ? "lax $" : "lax $." + steps.dropLast().joined(separator: " ? (\(stepsInto)).") + " ? (\(stepsInto))"
        return "\(objects) ? (\(filter("@.\(last)")))"
    }

    /// An integer term as the planner reads one (`2` or `2.0`).
    static func exactInteger(_ term: Term) -> Int64? {
        switch term {
        case .value(.int(let n)): return n
        case .value(.double(let d)) where d == d.rounded() && abs(d) < 9.0e15: return Int64(d)
        default: return nil
        }
    }

    /// `size(k) = n` on any path: the value reached is an array of `n`.
    static func size(_ path: FieldPath, _ term: Term, _ ctx: inout SQLContext) -> String? {
        guard let n = exactInteger(term), n >= 0 else { return nil }
        return whole(path, &ctx) { v in "\(v).type() == \"array\" && \(v).size() == \(n)" }
    }

    /// A JSON path filter: `@` is a plain object the evaluator reads as a
    /// GeoPoint (exactly the two number members), the complement among
    /// plain objects of what `$type: "object"` matches.
    static let isPlainGeoPoint = "(@.\"latitude\".type() == \"number\" && @.\"longitude\".type() == \"number\" "
        + "&& !exists(@.keyvalue() ? (@.key != \"latitude\" && @.key != \"longitude\")))"

    /// The filter on `@` of a `$type` name that is exact on a value that is
    /// not an array (arrays are tested apart), or `nil`: `int` and `double`
    /// are one jsonb `number` (`1e+20` reads back as an integer text).
    static func typeFilter(_ name: String) -> String? {
        func typed(_ t: String) -> String { "@.type() == \"object\" && @.\"__type\".type() == \"string\" && @.\"__type\" == \"\(t)\"" }
        switch name.lowercased() {
        case "null": return "@.type() == \"null\""
        case "bool", "boolean": return "@.type() == \"boolean\""
        case "number": return "@.type() == \"number\""
        case "string": return "@.type() == \"string\""
        case "object": return "@.type() == \"object\" && !\(isOpaque("@")) && !\(isPlainGeoPoint)"
        case "date": return typed("Date")
        case "pointer": return typed("Pointer")
        case "bytes", "bindata": return typed("Bytes")
        case "file": return typed("File")
        case "relation": return typed("Relation")
        case "geopoint": return isGeoPoint
        default: return nil
        }
    }

    /// `$type`: the value reached, or one of its elements, is of the type
    /// (MongoDB); `array` is the value reached being an array. `int` and
    /// `double` are prefiltered as `number`.
    static func type(_ path: FieldPath, _ name: String, _ ctx: inout SQLContext) -> SQLFragment? {
        switch name.lowercased() {
        case "array":
            return whole(path, &ctx) { v in "\(v).type() == \"array\"" }.map(SQLFragment.exact)
        case "int", "long", "integer", "double", "decimal":
            ctx.note(SQLNotes.describe(.type(path, name)))
            return test(path, "@.type() == \"number\"", &ctx).map(SQLFragment.superset)
        default:
            guard let filter = typeFilter(name) else { return nil }
            return test(path, filter, &ctx).map(SQLFragment.exact)
        }
    }

    /// Magnitudes from which the evaluator's `$mod` fails a double (it
    /// truncates to Int64 only below 9.2e18) but not an integer: jsonb has
    /// one number type, so these values pass the prefilter and are re-checked.
    static let moduloLimit = "9.2e18"

    /// `$mod: [d, r]`: the value reached, or a number element, truncated
    /// toward zero, leaves remainder `r` (the sign of the dividend, as
    /// jsonb's `%`). A superset: values of magnitude ≥ 9.2e18 pass, and
    /// `Int64.min` with divisor -1 (an overflow the evaluator fails) too.
    static func modulo(_ path: FieldPath, _ divisor: Term, _ remainder: Term, _ ctx: inout SQLContext) -> String? {
        guard let d = exactInteger(divisor), d != 0, let r = exactInteger(remainder) else { return nil }
        let truncated = "((@ >= 0 && @.floor() % \(d) == \(r)) || (@ < 0 && @.ceiling() % \(d) == \(r)))"
        return test(path, "@.type() == \"number\" && (@ <= -\(moduloLimit) || @ >= \(moduloLimit) || \(truncated))", &ctx)
    }

    /// The filter on a scalar `@`: it equals one of `values` (type-guarded,
    /// so it is never unknown); `nil` when a value has no JSON path literal.
    static func equalsOne(of values: [SQLScalar], item x: String = "@") -> String? {
        if values.isEmpty { return nil }
        var alternatives: [String] = []
        for v in values {
            guard let l = literal(v) else { return nil }
            switch v {
            case .null: alternatives.append("\(x).type() == \"null\"")
            case .bool: alternatives.append("(\(x).type() == \"boolean\" && \(x) == \(l))")
            case .number: alternatives.append("(\(x).type() == \"number\" && \(x) == \(l))")
            case .string: alternatives.append("(\(x).type() == \"string\" && \(x) == \(l))")
            }
        }
        return "(" + alternatives.joined(separator: " || ") + ")"
    }

    /// `$containedBy`: the value reached is an array every element of which
    /// is one of the (scalar) values; an empty array always is. A nested
    /// array element is never a scalar, and is ruled out before the element
    /// filter, which would unwrap it.
    static func containedBy(_ path: FieldPath, _ terms: [Term], _ ctx: inout SQLContext) -> String? {
        guard let values = SQLTerms.scalars(terms) else { return nil }
        guard let member = equalsOne(of: values) else {
            return values.isEmpty ? whole(path, &ctx) { v in "\(v).type() == \"array\" && \(v).size() == 0" } : nil
        }
        return whole(path, &ctx) { v in
            "\(v).type() == \"array\" && !exists(\(v)[*].type() ? (@ == \"array\")) && !exists(\(v)[*] ? (!\(member)))"
        }
    }

    /// The dispatch of `leaf` for the operators of this file.
    func elementLeaf(_ predicate: Predicate, _ ctx: inout SQLContext) -> SQLFragment {
        switch predicate {
        case .size(let path, let term):
            if let sql = PostgreSQLDialect.size(path, term, &ctx) { return .exact(sql) }
        case .type(let path, let name) where !SQLTerms.coercesDates(path):
            if let f = PostgreSQLDialect.type(path, name, &ctx) { return f }
        case .modulo(let path, let divisor, let remainder) where !SQLTerms.coercesDates(path):
            ctx.note(SQLNotes.describe(predicate))
            return .superset(PostgreSQLDialect.modulo(path, divisor, remainder, &ctx))
        case .containedBy(let path, let terms) where !SQLTerms.coercesDates(path):
            if let sql = PostgreSQLDialect.containedBy(path, terms, &ctx) { return .exact(sql) }
        case .elementMatch(let path, let condition) where !SQLTerms.coercesDates(path):
            if let sql = PostgreSQLDialect.elementMatch(path, condition, &ctx) { return .exact(sql) }
            if let sql = PostgreSQLDialect.elementMatchFields(path, condition, &ctx) { return .exact(sql) }
        case .and, .or, .not, .constant, .compare, .in, .all, .exists, .regex, .like, .prefix, .text, .containedBy,
             .elementMatch, .type, .modulo, .fullText, .select, .inQuery, .relatedTo, .relationHolds, .aclGrants, .near, .withinBox,
             .withinPolygon, .withinCenterSphere, .geoIntersects:
            break
        }
        return notPushed(predicate, &ctx)
    }
}

extension PostgreSQLDialect {
    /// Whether a path reads the element itself (`$elemMatch`'s operator form).
    private static func readsElement(_ p: FieldPath) -> Bool { p.components.isEmpty || p.components == [""] }

    /// `$elemMatch` in its operator form (every leaf reads the element):
    /// some element of the array value reached, taken whole, passes. The
    /// arrays come from a JSON path (objects holding the last step, then the
    /// member: an array value is not unwrapped), their elements from
    /// `jsonb_array_elements`, and each element is tested by a strict-mode
    /// path, which does not unwrap a nested array either: `[[5]]` does not
    /// match `{$gt: 4}`. The field form (keys of object elements, arrays as
    /// objects of indexes) is re-checked.
    ///
    /// ```swift
    /// // where tags elemMatch {$gt: 4, $lt: 6}  →  EXISTS (SELECT 1 FROM jsonb_path_query(t0."doc", $1::jsonpath) AS a1(v)
    /// //   CROSS JOIN LATERAL jsonb_array_elements(a1.v) AS a1e(el) WHERE a1e.el @? $2::jsonpath)
    /// // $1 = lax $ ? (@."tags".type() == "array")."tags"
    /// // $2 = strict $ ? (((@.type() == "number" && @ > 4) && (@.type() == "number" && @ < 6)))
    /// ```
    static func elementMatch(_ path: FieldPath, _ condition: Condition, _ ctx: inout SQLContext) -> String? {
        let filter = condition.predicate == .constant(true) ? documentElement : elementFilter(condition.predicate)
        guard let filter, let steps = steps(path), let last = steps.last,
            let holders = wholePath(path, { v in "\(v).type() == \"array\"" })
        else { return nil }
        let arrays = ctx.bind(.string("\(holders).\(last)"))
        let elementTest = ctx.bind(.string("strict $ ? (\(filter))"))
        let a = ctx.alias("a")
        return "EXISTS (SELECT 1 FROM jsonb_path_query(\(ctx.document), \(arrays)::jsonpath) AS \(a)(v) "
            + "CROSS JOIN LATERAL jsonb_array_elements(\(a).v) AS \(a)e(el) WHERE \(a)e.el @? \(elementTest)::jsonpath)"
    }

    /// `{}` (the field form with no condition): an element the evaluator
    /// reads as a document, an array or an object other than a typed Date
    /// or Bytes (Pointer, GeoPoint, File and Relation are objects in REST
    /// form). Strict mode: `__type` is read through `keyvalue()`, which a
    /// missing member does not fail.
    static let documentElement = "(@.type() == \"array\" || (@.type() == \"object\" && !exists(@.keyvalue() ? "
        + "(@.key == \"__type\" && @.value.type() == \"string\" && (@.value == \"Date\" || @.value == \"Bytes\")))))"

    /// A strict-mode filter on an element `@` taken whole that is true
    /// exactly when the evaluator's operator-form test passes, and never
    /// unknown (each comparison is type-guarded; strict mode makes a missing
    /// member an error, so no leaf reads members); `nil` for anything else.
    static func elementFilter(_ p: Predicate) -> String? {
        switch p {
        case .and(let items), .or(let items):
            guard !items.isEmpty else { return nil }
            var parts: [String] = []
            for c in items {
                guard let f = elementFilter(c.predicate) else { return nil }
                parts.append(f)
            }
            if case .and = p { return "(" + parts.joined(separator: " && ") + ")" }
            return "(" + parts.joined(separator: " || ") + ")"
        case .not(let c):
            return elementFilter(c.predicate).map { "!(\($0))" }
        case .compare(let path, let op, .value(.array(let items))) where readsElement(path):
            // Equal to an array constant of scalars: the element is that
            // array (element-wise, 1 == 1.0); ranges on arrays re-checked.
            guard op == .equal || op == .notEqual, let values = SQLTerms.scalars(items.map(Term.value)) else { return nil }
            var parts = ["@.type() == \"array\"", "@.size() == \(values.count)"]
            for (i, v) in values.enumerated() {
                guard let eq = equalsOne(of: [v], item: "@[\(i)]") else { return nil }
                parts.append(eq)
            }
            let equal = "(" + parts.joined(separator: " && ") + ")"
            return op == .equal ? equal : "!\(equal)"
        case .compare(let path, let op, let term) where readsElement(path):
            guard let v = SQLScalar(term) else { return nil }
            switch (op, v) {
            case (.equal, _): return equalsOne(of: [v])
            case (.notEqual, _): return equalsOne(of: [v]).map { "!\($0)" }
            case (.lessThanOrEqual, .null), (.greaterThanOrEqual, .null): return equalsOne(of: [.null])
            case (.lessThan, .null), (.greaterThan, .null): return "!exists(@)"  // false: no range matches null
            case (_, .number), (_, .string):
                guard let l = literal(v) else { return nil }
                return "(@.type() == \"\(SQLTerms.string(term) != nil ? "string" : "number")\" && @ \(op.rawValue) \(l))"
            default: return nil
            }
        case .in(let path, let terms, let negated) where readsElement(path):
            guard let values = SQLTerms.scalars(terms), let member = equalsOne(of: values) else { return nil }
            return negated ? "!\(member)" : member
        case .size(let path, let term) where readsElement(path):
            guard let n = exactInteger(term), n >= 0 else { return nil }
            return "(@.type() == \"array\" && @.size() == \(n))"
        case .elementMatch(let path, let inner) where readsElement(path):
            // A nested operator form: the element is an array some element
            // of which passes, taken whole (strict `[*]` does not unwrap).
            guard inner.predicate != .constant(true), let f = elementFilter(inner.predicate) else { return nil }
            return "(@.type() == \"array\" && exists(@[*] ? (\(f))))"
        case .type(let path, let name) where readsElement(path):
            switch name.lowercased() {
            case "null", "bool", "boolean", "number", "string": return typeFilter(name).map { "(\($0))" }
            case "array": return "@.type() == \"array\""
            default: return nil
            }
        case .constant, .compare, .in, .all, .size, .exists, .regex, .like, .prefix, .text, .containedBy,
             .elementMatch, .type, .modulo, .fullText, .select, .inQuery, .relatedTo, .relationHolds, .aclGrants, .near, .withinBox,
             .withinPolygon, .withinCenterSphere, .geoIntersects:
            return nil
        }
    }
}
