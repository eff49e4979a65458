/// Typed values in PostgreSQL: `=`, `!=`, `in`, `not in` and `all` against
/// Date, Pointer, GeoPoint, Bytes, File and Relation constants, ranges
/// against all of them but Files, and every scalar comparison on
/// `createdAt`/`updatedAt` (whose ISO strings are Dates, EvaluationSemantics.md), as
/// exact SQL.
///
/// - Pointer, GeoPoint, Bytes, File, Relation: a JSON path filter on the
///   stored REST form (`{"__type":"Pointer",...}`), each member type-guarded
///   (lax mode would unwrap `["Pointer"]`) and strings compared with `==`
///   (bytes, as the evaluator compares them). A GeoPoint is also a plain
///   object holding only numeric `latitude` and `longitude` (Usergrid's
///   `location`); coordinates compare as numbers. A File compares its `id`
///   and `name` (a member that is not a string counts as absent, as in the
///   decoder); `url` is ignored.
/// - Date: the instant, computed in SQL from the ISO text the path reaches
///   (`regexp_match` with ``isoPattern``, then integer arithmetic), compared
///   with the constant's milliseconds. The pattern accepts exactly what
///   `ISODate.parse` accepts (date only, `T`/`t`/space, minutes with or
///   without seconds, any fraction — cut to milliseconds, not rounded —,
///   `Z`/`z`, `±HH:MM`, `±HHMM` or no zone (UTC), seconds up to 60, real
///   calendar days with the Gregorian leap years from 0000 to 9999), so
///   equal instants spelled differently are equal and text that is no date
///   never compares. jsonpath's `.datetime()` is not used: PostgreSQL 15
///   does not read the `Z` every stored Date ends with, nor `±HHMM`,
///   lowercase `t`/`z`, second 60 or fractions past microseconds, and
///   compares zoneless with zoned text only in the `_tz` functions, in the
///   session's time zone.
/// - `createdAt`/`updatedAt`: the top-level string counts as a Date when
///   it parses, and as a string otherwise (an array's strings stay
///   strings): Date constants read both; a string constant that parses
///   can only equal an array element; string ranges exclude a top-level
///   string that parses (`like_regex` of the same pattern). Numbers,
///   booleans and null are unaffected by the coercion and take the plain
///   shapes.
///
/// Ranges against Pointers, GeoPoints, Bytes and Relations follow the
/// evaluator's order of their REST forms (``typedRangeFilter(_:_:)``).
///
/// What stays re-checked: ranges against Files and plain `{latitude,
/// longitude}` constants, objects and arrays as constants, strings holding
/// NUL, booleans in ranges.
///
/// ```swift
/// // where at = date('2011-08-20T02:06:57.931Z')  →  EXISTS (SELECT 1 FROM jsonb_path_query(t0."doc", $1::jsonpath) AS d1(v),
/// //   regexp_match(d1.v #>> '{}', '^(?=...)([0-9]{4})-...$') AS d1r(m) WHERE (...)::bigint * 86400000 + ... IN ($2))
/// // $1 = lax $."at" ? (@.type() == "object" && @."__type".type() == "string" && @."__type" == "Date" && @."iso".type() == "string")."iso"
/// // $2 = 1313806017931
/// // where p = pointer('S', 's1')  →  t0."doc" @? $1::jsonpath
/// // $1 = lax $."p" ? (@.type() == "object" && ((@."__type".type() == "string" && @."__type" == "Pointer") && @."className".type() == "string"
/// //   && @."className" == "S" && @."objectId".type() == "string" && @."objectId" == "s1"))
/// ```
extension PostgreSQLDialect {
    /// The exact SQL of a leaf that compares with typed values or reads
    /// `createdAt`/`updatedAt`; `nil` for every other leaf, and for these
    /// when no exact shape exists (nothing bound then: ``leaf(_:_:)`` goes
    /// on and re-checks them).
    static func typedValueLeaf(_ predicate: Predicate, _ ctx: inout SQLContext) -> SQLFragment? {
        let mark = ctx.mark
        let sql: String?
        switch predicate {
        case .compare(let path, let op, .value(let v)):
            guard involvesTypedValues(path, [v]) else { return nil }
            switch op {
            case .equal: sql = typedMembership(path, [v], &ctx)
            case .notEqual: sql = typedMembership(path, [v], &ctx).map { "NOT COALESCE(\($0), FALSE)" }
            default: sql = typedRange(path, op, v, &ctx)
            }
        case .in(let path, let terms, let negated):
            guard let values = constants(terms), involvesTypedValues(path, values) else { return nil }
            sql = typedMembership(path, values, &ctx).map { negated ? "NOT COALESCE(\($0), FALSE)" : $0 }
        case .all(let path, let terms):
            guard let values = constants(terms), involvesTypedValues(path, values) else { return nil }
            if values.isEmpty { return .exact("FALSE") }
            var parts: [String] = []
            for v in values {
                guard let s = typedMembership(path, [v], &ctx) else { break }
                parts.append(s)
            }
            sql = parts.count == values.count ? "(" + parts.joined(separator: " AND ") + ")" : nil
        case .and, .or, .not, .constant, .compare, .size, .exists, .regex, .like, .prefix, .text, .containedBy,
             .elementMatch, .type, .modulo, .fullText, .select, .inQuery, .relatedTo, .relationHolds, .aclGrants, .near, .withinBox,
             .withinPolygon, .withinCenterSphere, .geoIntersects:
            return nil
        }
        guard let sql else {
            ctx.rollback(to: mark)
            return nil
        }
        return .exact(sql)
    }

    /// The values of a constant list, or `nil` when a term is not a value.
    private static func constants(_ terms: [Term]) -> [Value]? {
        var out: [Value] = []
        for t in terms {
            guard case .value(let v) = t else { return nil }
            out.append(v)
        }
        return out
    }

    /// Whether the leaf is this file's: a typed constant, or a path whose
    /// strings may be Dates.
    private static func involvesTypedValues(_ path: FieldPath, _ values: [Value]) -> Bool {
        SQLTerms.coercesDates(path) || values.contains { typedFilter($0) != nil || $0.isDate }
    }

    /// `k = v1 or k = v2 ...` for scalars, Dates and the other typed values;
    /// `nil` when a value has no exact shape.
    static func typedMembership(_ path: FieldPath, _ values: [Value], _ ctx: inout SQLContext) -> String? {
        if values.isEmpty { return "FALSE" }
        let coerces = SQLTerms.coercesDates(path)
        var scalars: [SQLScalar] = [], dates: [Int64] = [], filters: [String] = [], elementStrings: [String] = []
        for v in values {
            if case .date(let d) = v {
                dates.append(d.millisecondsSince1970)
            } else if let f = typedFilter(v) {
                filters.append(f)
            } else if let s = SQLScalar(value: v) {
                // On createdAt a string that parses is a Date there: only
                // an array's element can equal the string constant.
                if coerces, case .string(let text) = s, ISODate.parse(text) != nil {
                    guard let l = pathString(text) else { return nil }
                    elementStrings.append("@ == \(l)")
                } else {
                    scalars.append(s)
                }
            } else {
                return nil  // objects, arrays, Object pointers, NUL
            }
        }
        var parts: [String] = []
        if !scalars.isEmpty {
            guard let s = membership(path, scalars, &ctx) else { return nil }
            parts.append(s)
        }
        if !filters.isEmpty {
            let any = filters.count == 1 ? filters[0] : "(" + filters.joined(separator: " || ") + ")"
            guard let s = test(path, "@.type() == \"object\" && \(any)", &ctx) else { return nil }
            parts.append(s)
        }
        if !elementStrings.isEmpty {
            guard let key = pathString(path.components[0]) else { return nil }
            let any = elementStrings.count == 1 ? elementStrings[0] : "(" + elementStrings.joined(separator: " || ") + ")"
            let text = "lax $ ? (@.\(key).type() == \"array\").\(key) ? (@.type() == \"string\" && \(any))"
            parts.append("\(ctx.document) @? \(ctx.bind(.string(text)))::jsonpath")
        }
        if !dates.isEmpty {
            guard let s = dateTest(path, op: "IN", dates, &ctx) else { return nil }
            parts.append(s)
        }
        return parts.count == 1 ? parts[0] : "(" + parts.joined(separator: " OR ") + ")"
    }

    /// `<`, `<=`, `>`, `>=`: against a Date, the instants; on
    /// `createdAt`/`updatedAt` against a scalar, the plain shapes with the
    /// strings that are Dates left out. `nil` otherwise (re-checked).
    static func typedRange(_ path: FieldPath, _ op: ComparisonOperator, _ v: Value, _ ctx: inout SQLContext) -> String? {
        if case .date(let d) = v { return dateTest(path, op: op.rawValue, [d.millisecondsSince1970], &ctx) }
        if let f = typedRangeFilter(op, v) { return test(path, "@.type() == \"object\" && \(f)", &ctx) }
        guard SQLTerms.coercesDates(path), let s = SQLScalar(value: v) else { return nil }
        switch (op, s) {
        case (.lessThan, .null), (.greaterThan, .null): return "FALSE"
        case (_, .null): return membership(path, [.null], &ctx)  // `<=`/`>=` null are `= null`
        case (_, .number):
            guard let l = literal(s) else { return nil }
            return test(path, "@.type() == \"number\" && @ \(op.rawValue) \(l)", &ctx)
        case (_, .string(let text)):
            // The top-level string when it is no date, or an array's string.
            guard let l = pathString(text), let key = pathString(path.components[0]),
                let pattern = pathString(isoPattern)
            else { return nil }
            let k = "@.\(key)"
            let text = "lax $ ? ((\(k).type() == \"string\" && !(\(k) like_regex \(pattern) flag \"s\") && \(k) \(op.rawValue) \(l))"
                + " || (\(k).type() == \"array\" && exists(\(k) ? (@.type() == \"string\" && @ \(op.rawValue) \(l)))))"
            return "\(ctx.document) @? \(ctx.bind(.string(text)))::jsonpath"
        default:
            return nil
        }
    }

    /// `@."__type"` is the string `name` (lax mode would unwrap an array).
    private static func isType(_ name: String) -> String {
        "(@.\"__type\".type() == \"string\" && @.\"__type\" == \"\(name)\")"
    }

    /// `@.<key>` is the string `value`; `nil` (any string but that) when
    /// `value` is `nil`: the decoder reads a member that is not a string
    /// as absent.
    private static func stringMember(_ key: String, _ value: String?) -> String? {
        guard let value else { return "!(@.\"\(key)\".type() == \"string\")" }
        guard let l = pathString(value) else { return nil }
        return "@.\"\(key)\".type() == \"string\" && @.\"\(key)\" == \(l)"
    }

    /// The JSON path filter (over an object `@`) that holds exactly when
    /// the stored value equals the typed constant `v` (EvaluationSemantics.md);
    /// `nil` for Dates (see ``dateTest``), other values and NUL.
    static func typedFilter(_ v: Value) -> String? {
        switch v {
        case .pointer(let p):
            guard let c = stringMember("className", p.className), let id = stringMember("objectId", p.objectId) else { return nil }
            return "(\(isType("Pointer")) && \(c) && \(id))"
        case .bytes(let b):
            guard let s = stringMember("base64", b) else { return nil }
            return "(\(isType("Bytes")) && \(s))"
        case .relation(let c):
            guard let s = stringMember("className", c) else { return nil }
            return "(\(isType("Relation")) && \(s))"
        case .file(let f):
            guard let id = stringMember("id", f.id), let name = stringMember("name", f.name) else { return nil }
            return "(\(isType("File")) && \(id) && \(name))"
        case .geoPoint(let g):
            return geoFilter(latitude: g.latitude, longitude: g.longitude)
        case .object(let o):
            // A constant `{latitude, longitude}` is a GeoPoint too.
            guard o.count == 2, let lat = o["latitude"]?.numberValue, let lng = o["longitude"]?.numberValue else { return nil }
            return geoFilter(latitude: lat, longitude: lng)
        default:
            return nil
        }
    }

    /// `<`, `<=`, `>`, `>=` against a Pointer, GeoPoint, Bytes or Relation:
    /// the evaluator brackets by class and orders these by their REST form
    /// (ValueOrder: sorted keys, then values), so Pointers by className then
    /// objectId, GeoPoints by latitude then longitude, Bytes and Relations
    /// by their one string. `nil` for Files (their keys come and go, and the
    /// key set orders them) and plain `{latitude, longitude}` constants (the
    /// evaluator orders them as plain objects).
    static func typedRangeFilter(_ op: ComparisonOperator, _ v: Value) -> String? {
        let o = op.rawValue
        let strict = op == .lessThan || op == .lessThanOrEqual ? "<" : ">"
        /// `first` strictly beyond, or equal and `second` `op`.
        func lexicographic(_ first: String, _ a: String, _ second: String, _ b: String) -> String {
            "(@.\(first) \(strict) \(a) || (@.\(first) == \(a) && @.\(second) \(o) \(b)))"
        }
        switch v {
        case .pointer(let p):
            guard let c = pathString(p.className), let id = pathString(p.objectId) else { return nil }
            return "(\(isType("Pointer")) && @.\"className\".type() == \"string\" && @.\"objectId\".type() == \"string\" && "
                + lexicographic("\"className\"", c, "\"objectId\"", id) + ")"
        case .geoPoint(let g):
            guard let lat = literal(.number(.double(g.latitude))), let lng = literal(.number(.double(g.longitude))) else { return nil }
            let plain = "!exists(@.keyvalue() ? (@.key != \"latitude\" && @.key != \"longitude\"))"
            return "((\(isType("GeoPoint")) || \(plain)) && @.\"latitude\".type() == \"number\" && @.\"longitude\".type() == \"number\" && "
                + lexicographic("\"latitude\"", lat, "\"longitude\"", lng) + ")"
        case .bytes(let b):
            guard let l = pathString(b) else { return nil }
            return "(\(isType("Bytes")) && @.\"base64\".type() == \"string\" && @.\"base64\" \(o) \(l))"
        case .relation(let c):
            guard let l = pathString(c) else { return nil }
            return "(\(isType("Relation")) && @.\"className\".type() == \"string\" && @.\"className\" \(o) \(l))"
        default:
            return nil
        }
    }

    /// A typed GeoPoint, or a plain object with no key but `latitude` and
    /// `longitude`, with these coordinates (numbers compare by value).
    private static func geoFilter(latitude: Double, longitude: Double) -> String? {
        guard let lat = literal(.number(.double(latitude))), let lng = literal(.number(.double(longitude))) else { return nil }
        let plain = "!exists(@.keyvalue() ? (@.key != \"latitude\" && @.key != \"longitude\"))"
        return "((\(isType("GeoPoint")) || \(plain)) && @.\"latitude\".type() == \"number\" && @.\"latitude\" == \(lat)"
            + " && @.\"longitude\".type() == \"number\" && @.\"longitude\" == \(lng))"
    }

    /// Some Date the path reaches (an element of an array too; on
    /// `createdAt`/`updatedAt` also the top-level string) has an instant
    /// that is `op` (`IN`, `<`, ...) the milliseconds given.
    static func dateTest(_ path: FieldPath, op: String, _ millis: [Int64], _ ctx: inout SQLContext) -> String? {
        guard let p = self.path(path), !millis.isEmpty else { return nil }
        let iso = ctx.bind(.string("\(p) ? (@.type() == \"object\" && \(isType("Date")) && @.\"iso\".type() == \"string\").\"iso\""))
        let d = ctx.alias("d")
        var source = "jsonb_path_query(\(ctx.document), \(iso)::jsonpath)"
        if SQLTerms.coercesDates(path) {
            source = "(SELECT \(ctx.document) -> \(sqlLiteral(path.components[0])) UNION ALL SELECT \(source))"
        }
        let constants = millis.map { ctx.bind(.int($0)) }
        let right = op == "IN" ? "IN (\(constants.joined(separator: ", ")))" : "\(op) \(constants[0])"
        return "EXISTS (SELECT 1 FROM \(source) AS \(d)(v), regexp_match(\(d).v #>> '{}', \(sqlLiteral(isoPattern))) AS \(d)r(m) "
            + "WHERE \(instant) \(right))"
    }

    /// The text `ISODate.parse` accepts, anchored, with its fields as groups
    /// 1-10 (year, month, day, hour, minute, second, fraction, offset sign,
    /// hours, minutes); the lookahead admits only real calendar days
    /// (30-day months, February 29 in Gregorian leap years). No backslash
    /// and no quote: the same text is a SQL literal and a JSON path string.
    static let isoPattern: String = {
        let days31 = "(?:0[13578]|1[02])-(?:0[1-9]|[12][0-9]|3[01])"
        let days30 = "(?:0[469]|11)-(?:0[1-9]|[12][0-9]|30)"
        let february = "02-(?:0[1-9]|1[0-9]|2[0-8])"
        let leapYear = "(?:[0-9]{2}(?:0[48]|[2468][048]|[13579][26])|(?:[02468][048]|[13579][26])00)"
        let end = "(?:[Tt ]|$)"
        let calendar = "(?=[0-9]{4}-(?:\(days31)|\(days30)|\(february))\(end)|\(leapYear)-02-29\(end))"
        let hours = "([01][0-9]|2[0-3])"
        let time = "(?:[Tt ]\(hours):([0-5][0-9])(?::([0-5][0-9]|60)(?:[.]([0-9]+))?)?(?:[Zz]|([+-])([01][0-9]|2[0-3]):?([0-5][0-9]))?)?"
        return "^\(calendar)([0-9]{4})-([0-9]{2})-([0-9]{2})\(time)$"
    }()

    /// The milliseconds since 1970 of the fields `m` of ``isoPattern``
    /// (days from the civil date as Howard Hinnant's algorithm counts them,
    /// the year moved on by 400 so that every division is of a
    /// non-negative number; fractions cut to three digits).
    static let instant: String = {
        let year = "(m[1]::int + 399 + (m[2]::int + 9) / 12)"
        let days = "365 * \(year) + \(year) / 4 - \(year) / 100 + \(year) / 400 + (153 * ((m[2]::int + 9) % 12) + 2) / 5 + m[3]::int - 865566"
        return "(\(days))::bigint * 86400000 + COALESCE(m[4]::int * 3600000 + m[5]::int * 60000, 0) + COALESCE(m[6]::int * 1000, 0)"
            + " + COALESCE(substr(m[7] || '00', 1, 3)::int, 0) - COALESCE((m[8] || '1')::int * (m[9]::int * 60 + m[10]::int), 0) * 60000"
    }()
}

extension Value {
    fileprivate var isDate: Bool {
        if case .date = self { return true }
        return false
    }
}
