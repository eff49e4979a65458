/// Canonical CQL text of a ``Query``: lowercase keywords, `limit` before
/// `order by`, only the parentheses precedence needs, typed values through
/// their functions, strings in single quotes. `CQLParser.parse(format(q)) == q`
/// for every query the parser produces.
///
/// Constructs CQL has no syntax for (`$elemMatch`, `$type`, `$mod`, `$text`,
/// `$containedBy`, `$polygon`, `$centerSphere`, `$geoIntersects`, excluded
/// keys, aliases, `direct`) are `.unsupported` errors naming them. Usergrid's
/// case-insensitive matches become the equivalent `regexp '(?i)…'`.
///
/// ```swift
/// let q = try CQLParser.parse("SELECT * FROM GameScore WHERE score>80 AND (name='a' OR name=\"b\") ORDER BY score DESC LIMIT 10")
/// try CQLFormatter.format(q)
/// // select * from GameScore where score > 80 and (name = 'a' or name = 'b') limit 10 order by -score
/// ```
public enum CQLFormatter {
    /// The canonical text of `query`; placeholders print as `?`.
    public static func format(_ query: Query) throws(QueryError) -> String {
        do throws(QueryError) {
            return try text(query)
        } catch {
            throw query.source.map { error.withSource($0) } ?? error
        }
    }

    private static func text(_ query: Query) throws(QueryError) -> String {
        var w = CQLWriter()
        try w.statement(query, .top, depth: 0)
        // `?`s are numbered by position: the text must meet them in index order.
        if w.placeholders != Array(0..<w.placeholders.count) {
            throw QueryError(.unsupported, "the placeholders are not in text order (\(w.placeholders.map { "#\($0 + 1)" }.joined(separator: ", "))), which CQL's positional '?' cannot express",
                             range: query.range)
        }
        return w.out
    }
}

struct CQLWriter {
    var out = ""
    /// Indexes of the placeholders in the order they were written.
    var placeholders: [Int] = []

    static let maxDepth = 400

    static func unsupported(_ construct: String, _ range: SourceRange?) -> QueryError {
        QueryError(.unsupported, "'\(construct)' cannot be expressed in CQL", range: range)
    }

    /// Which field list a statement gets.
    enum Fields {
        /// The query's own: count, includes, keys.
        case top
        /// A subquery selects its key (`$select`) or `*` (`$inQuery`, `nil`).
        case subquery(key: FieldPath?)
    }

    /// `select ... from C [where ...] [limit ...] [order by ...]`.
    mutating func statement(_ q: Query, _ kind: Fields, depth: Int) throws(QueryError) {
        guard !q.className.isEmpty else {
            throw QueryError(.unsupported, "CQL needs a class name", range: q.range)
        }
        guard q.direct.isEmpty else { throw CQLWriter.unsupported("direct", q.range) }
        var fields: [String] = []
        switch kind {
        case .subquery(let key):
            guard q.keys.isEmpty, q.includes.isEmpty, q.count == .none else {
                throw QueryError(.unsupported, "a subquery's own keys, include or count cannot be expressed in CQL", range: q.range)
            }
            if let key { fields.append(try CQLLiterals.path(key, range: q.range)) } else { fields.append("*") }
        case .top:
            // LeanCloud's request parameter has no CQL spelling; dropping it
            // would silently drop the ACLs from the results.
            if q.returnACL { throw CQLWriter.unsupported("returnACL", q.range) }
            if q.count != .none { fields.append("count(*)") }
            for p in q.includes { fields.append("include " + (try CQLLiterals.path(p, range: q.range))) }
            // The count alone returns no objects, so keys select nothing; and
            // written out they would turn `count(*)` into `count(*), keys`
            // (count *and* results).
            for k in q.keys where q.count != .only {
                if k.excluded { throw QueryError(.unsupported, "the excluded key '-\(k.path.dotted)' cannot be expressed in CQL", range: q.range) }
                if let alias = k.alias {
                    throw QueryError(.unsupported, "the key alias '\(alias)' (of '\(k.path.dotted)') cannot be expressed in CQL", range: q.range)
                }
                fields.append(try CQLLiterals.path(k.path, range: q.range))
            }
            if q.keys.isEmpty && q.count != .only { fields.append("*") }
        }
        out += "select " + fields.joined(separator: ", ") + " from " + (try CQLLiterals.name(q.className, range: q.range))
        if let c = q.condition {
            out += " where "
            try condition(c, depth: depth + 1)
        }
        if let limit = q.limit {
            out += " limit "
            if let skip = q.skip {
                try count(skip, at: q.range)
                out += ", "
            }
            try count(limit, at: q.range)
        } else if q.skip != nil {
            throw QueryError(.unsupported, "a skip without a limit cannot be expressed in CQL ('limit skip, count')", range: q.range)
        }
        if !q.order.isEmpty {
            var keys: [String] = []
            for k in q.order { keys.append((k.descending ? "-" : "") + (try CQLLiterals.path(k.path, range: q.range))) }
            out += " order by " + keys.joined(separator: ", ")
        }
    }

    // MARK: Conditions

    /// `or` < `and` < `not` < predicate: only an `or` inside an `and` needs
    /// parentheses; `not` writes them around anything but another `not`.
    mutating func condition(_ c: Condition, depth: Int) throws(QueryError) {
        guard depth < CQLWriter.maxDepth else {
            throw QueryError(.limit, "the condition is nested more than \(CQLWriter.maxDepth) levels deep", range: c.range)
        }
        switch c.predicate {
        case .and(let items):
            guard !items.isEmpty else { throw CQLWriter.unsupported("true", c.range) }
            for (i, item) in items.enumerated() {
                if i > 0 { out += " and " }
                if case .or(let inner) = item.predicate, inner.count > 1 {
                    out += "("
                    try condition(item, depth: depth + 1)
                    out += ")"
                } else {
                    try condition(item, depth: depth + 1)
                }
            }
        case .or(let items):
            guard !items.isEmpty else { throw CQLWriter.unsupported("false", c.range) }
            for (i, item) in items.enumerated() {
                if i > 0 { out += " or " }
                try condition(item, depth: depth + 1)
            }
        case .not(let inner):
            // A `not` of a `not` is written without parentheses (`not not (a = 1)`):
            // each pair would be one more nesting level for the reader, and a chain
            // of NSPredicate's 128 `!`s would not read back under CQL's 200.
            if case .not = inner.predicate {
                out += "not "
                try condition(inner, depth: depth + 1)
            } else {
                out += "not ("
                try condition(inner, depth: depth + 1)
                out += ")"
            }
        case .constant, .compare, .in, .all, .size, .exists, .regex, .like, .prefix, .text, .containedBy,
             .elementMatch, .type, .modulo, .fullText, .select, .inQuery, .relatedTo, .relationHolds, .aclGrants, .near, .withinBox,
             .withinPolygon, .withinCenterSphere, .geoIntersects:
            try predicate(c, depth: depth)
        }
    }

    mutating func predicate(_ c: Condition, depth: Int) throws(QueryError) {
        let r = c.range
        func path(_ p: FieldPath) throws(QueryError) -> String { try CQLLiterals.path(p, range: r) }
        switch c.predicate {
        case .and, .or, .not:
            try condition(c, depth: depth)
        case .constant(let b):
            // CQL has no `true`/`false`; `in ()` matches nothing (EvaluationSemantics.md),
            // as where-JSON's `{"objectId":{"$in":[]}}` does, and `not in ()`
            // everything. The optimizer folds conditions into these constants.
            out += b ? "objectId not in ()" : "objectId in ()"
        case .compare(let p, let op, let t):
            out += try path(p) + " " + op.rawValue + " "
            try term(t, at: r)
        case .in(let p, let terms, let negated):
            out += try path(p) + (negated ? " not in " : " in ")
            try list(terms, "(", ")", at: r)
        case .all(let p, let terms):
            out += try path(p) + " all "
            try list(terms, "(", ")", at: r)
        case .size(let p, let t):
            out += "size(" + (try path(p)) + ") = "
            try count(t, at: r)
        case .exists(let p, let present):
            out += try path(p) + (present ? " is exists" : " is not exists")
        case .regex(let p, let pattern, let options):
            if options.contains("d") {
                throw QueryError(.unsupported, "diacritic-insensitive matching (NSPredicate's [d]) cannot be expressed in CQL", range: r)
            }
            out += try path(p) + " regexp "
            if options.isEmpty {
                try term(pattern, at: r)
            } else if case .value(.string(let s)) = pattern {
                // CQL has no option syntax: a leading inline group carries them (CQL.md, "`like` and `regexp`").
                // Sorted and without repeats, as the parser lifts them back.
                out += CQLLiterals.string("(?" + OperandChecks.mergeOptions(options, "") + ")" + s)
            } else {
                throw QueryError(.unsupported, "regexp options ('\(options)') on a pattern that is not a string constant cannot be expressed in CQL", range: r)
            }
        case .like(let p, let pattern):
            out += try path(p) + " like "
            try term(pattern, at: r)
        case .prefix(let p, let prefix):
            out += try path(p) + " like " + CQLLiterals.string(LikePattern.escaped(prefix) + "%")
        case .text(let p, let match, let text):
            guard let (pattern, options) = TextRegex.regex(match, text) else {
                throw TextRegex.rangeUnsupported(p, match, text, target: "CQL", range: r)
            }
            out += try path(p) + " regexp " + CQLLiterals.string("(?" + options + ")" + pattern)
        case .select(let p, let key, let query, let negated):
            out += try path(p) + (negated ? " not in (" : " in (")
            try statement(query, .subquery(key: key), depth: depth + 1)
            out += ")"
        case .inQuery(let p, let query, let negated):
            out += try path(p) + (negated ? " not in (" : " in (")
            try statement(query, .subquery(key: nil), depth: depth + 1)
            out += ")"
        case .relationHolds:
            try condition(c.writtenAsComparison, depth: depth)
        case .relatedTo(let object, let key):
            out += "related " + (try CQLLiterals.name(key, range: r)) + " to "
            try term(object, at: r)
        case .near(let p, let point, let min, let max):
            out += try path(p) + " near "
            try term(point, at: r)
            if let min { try distance(" min ", min, at: r) }
            if let max { try distance(" max ", max, at: r) }
        case .withinBox(let p, let sw, let ne):
            out += try path(p) + " within "
            try term(sw, at: r)
            out += " and "
            try term(ne, at: r)
        case .containedBy, .elementMatch, .type, .modulo, .fullText, .withinPolygon, .withinCenterSphere, .geoIntersects, .aclGrants:
            throw CQLWriter.unsupported(c.predicate.constructName, r)
        }
    }

    /// ` max 1 km`; meters (from Usergrid) become kilometers.
    mutating func distance(_ word: String, _ d: Distance, at r: SourceRange?) throws(QueryError) {
        out += word
        switch d.unit {
        case .meters:
            guard case .value(let v) = d.value, let x = v.numberValue else {
                throw QueryError(.unsupported, "a distance in meters that is not a constant cannot be expressed in CQL (it has no 'meters' unit)", range: r)
            }
            out += try CQLLiterals.double(x / 1000, range: r) + " km"
        case .kilometers, .miles, .radians:
            try term(d.value, at: r)
            out += d.unit == .kilometers ? " km" : d.unit == .miles ? " miles" : " radians"
        }
    }

    // MARK: Terms

    mutating func term(_ t: Term, at r: SourceRange?) throws(QueryError) {
        switch t {
        case .value(let v): out += try CQLLiterals.value(v, range: r)
        case .placeholder(let i, _):
            out += "?"
            placeholders.append(i)
        case .array(let items): try list(items, "[", "]", at: r)
        case .call(let f, let args, let cr):
            out += f.rawValue
            try list(args, "(", ")", at: cr ?? r)
        case .currentTimestamp: out += "current_timestamp()"
        case .relativeTime: throw CQLWriter.unsupported("$relativeTime", r)
        }
    }

    /// A count (`limit`, `skip`, `size(k) = n`): a whole double is written
    /// as the integer, which is what the parser accepts there.
    mutating func count(_ t: Term, at r: SourceRange?) throws(QueryError) {
        if case .value(let v) = t {
            try term(.value(OperandChecks.wholeCount(v)), at: r)
        } else {
            try term(t, at: r)
        }
    }

    mutating func list(_ items: [Term], _ open: String, _ close: String, at r: SourceRange?) throws(QueryError) {
        out += open
        for (i, item) in items.enumerated() {
            if i > 0 { out += ", " }
            try term(item, at: r)
        }
        out += close
    }
}
