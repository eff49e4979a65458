/// Conditions in `ql` text.
extension UsergridWriter {
    /// Where a condition is written; a looser construct in a tighter place
    /// needs parentheses (`or` < `and` < `not` < comparison).
    enum Place: Int, Comparable {
        case or, and, not
        static func < (a: Place, b: Place) -> Bool { a.rawValue < b.rawValue }
    }

    mutating func condition(_ c: Condition, _ place: Place) throws(QueryError) -> String {
        depth += 1
        defer { depth -= 1 }
        if depth > UsergridFormatter.maxDepth {
            throw QueryError(.limit, "conditions nest deeper than \(UsergridFormatter.maxDepth) levels", range: c.range)
        }
        switch c.predicate {
        case .and(let items):
            if items.isEmpty { throw unsupported("an empty 'and' (always true) inside a condition", c.range) }
            if items.count == 1 { return try condition(items[0], place) }
            var parts: [String] = []
            for item in items { parts.append(try condition(item, .and)) }
            return wrap(parts.joined(separator: " and "), needed: place > .and)
        case .or(let items):
            if items.isEmpty { throw unsupported("an empty 'or' (never true)", c.range) }
            return try disjunction(items, place: place)
        case .not(let inner):
            return "not " + (try condition(inner, .not))
        case .constant:
            throw unsupported("a constant condition ('true' / 'false')", c.range)
        case .compare(let path, let op, let term):
            return try comparison(path, op, term, c.range)
        case .in(let path, let terms, let negated):
            if terms.isEmpty { throw unsupported("an empty 'in' list (it matches nothing)", c.range) }
            var items: [Condition] = []
            for t in terms { items.append(Condition(.compare(path, .equal, t), range: c.range)) }
            if negated { return "not " + (try disjunction(items, place: .not)) }
            return try disjunction(items, place: place)
        case .text(let path, let match, let text):
            return try textMatch(path, match, text, c.range)
        case .near(let path, let point, let min, let max):
            return try near(path, point, min, max, c.range)
        case .all: throw unsupported("'all'", c.range)
        case .size: throw unsupported("'size'", c.range)
        case .exists(_, let present): throw unsupported(present ? "'exists'" : "'not exists'", c.range)
        case .regex: throw unsupported("'regexp'", c.range)
        case .like: throw unsupported("'like'", c.range)
        // Usergrid's `name = 'abc*'` ignores case; a case-sensitive prefix has no form.
        case .prefix: throw unsupported("a case-sensitive prefix match ('like 'abc%'')", c.range)
        case .containedBy: throw unsupported("'$containedBy'", c.range)
        case .elementMatch: throw unsupported("'$elemMatch'", c.range)
        case .type: throw unsupported("'$type'", c.range)
        case .modulo: throw unsupported("'$mod'", c.range)
        case .fullText: throw unsupported("'$text' full-text search", c.range)
        case .select, .inQuery: throw unsupported("a subquery", c.range)
        case .relatedTo: throw unsupported("'related ... to'", c.range)
        case .relationHolds: return try condition(c.writtenAsComparison, place)
        case .withinBox: throw unsupported("a geo box ('within [sw] and [ne]')", c.range)
        case .withinPolygon: throw unsupported("a geo polygon", c.range)
        case .withinCenterSphere: throw unsupported("a geo center sphere", c.range)
        case .geoIntersects: throw unsupported("'$geoIntersects'", c.range)
        case .aclGrants: throw unsupported("an ACL condition", c.range)
        }
    }

    mutating func disjunction(_ items: [Condition], place: Place) throws(QueryError) -> String {
        if items.count == 1 { return try condition(items[0], place) }
        var parts: [String] = []
        for item in items { parts.append(try condition(item, .or)) }
        return wrap(parts.joined(separator: " or "), needed: place > .or)
    }

    func wrap(_ s: String, needed: Bool) -> String { needed ? "(" + s + ")" : s }

    /// `k op v`; `!=` becomes `not k = v`.
    func comparison(_ path: FieldPath, _ op: ComparisonOperator, _ term: Term, _ range: SourceRange?) throws(QueryError)
        -> String
    {
        let key = try property(path)
        guard case .value(let value) = term else {
            throw unsupported("a '?' placeholder or unbound value (bind the query first)", range)
        }
        let text: String
        switch value {
        case .int(let i): text = String(i)
        case .double(let d):
            guard d.isFinite else { throw unsupported("the number \(d)", range) }
            text = JSONWriter.doubleText(d)
        case .bool(let b): text = b ? "true" : "false"
        case .string(let s):
            if UsergridKeywords.isUUID(s) {
                text = s
            } else if op == .equal || op == .notEqual {
                guard literal else {
                    throw unsupported(
                        "exact, case-sensitive string equality ('\(path.dotted)' = '\(s)') (Usergrid's '=' ignores case; use the literal option)",
                        range)
                }
                text = try quotedLiteral(s, range)
            } else {
                guard literal else {
                    throw unsupported(
                        "a case-sensitive string range ('\(path.dotted)' \(op.rawValue) '\(s)') (Usergrid's string ranges ignore case; use the literal option)",
                        range)
                }
                text = try quotedLiteral(s, range)
            }
        case .null: throw unsupported("null", range)
        default: throw unsupported(value.typeDescription + " value", range)
        }
        let symbol: String
        switch op {
        case .equal, .notEqual: symbol = "="
        case .lessThan: symbol = "<"
        case .lessThanOrEqual: symbol = "<="
        case .greaterThan: symbol = ">"
        case .greaterThanOrEqual: symbol = ">="
        }
        return (op == .notEqual ? "not " : "") + key + " " + symbol + " " + text
    }

    /// Usergrid's own string matches.
    func textMatch(_ path: FieldPath, _ match: TextMatch, _ text: String, _ range: SourceRange?) throws(QueryError)
        -> String
    {
        let key = try property(path)
        let hasStar = text.utf8.contains(UInt8(ascii: "*"))
        switch match {
        case .lessThanIgnoringCase, .lessThanOrEqualIgnoringCase, .greaterThanIgnoringCase, .greaterThanOrEqualIgnoringCase:
            let op = match.rangeOperator?.rawValue ?? ""
            if literal {
                throw unsupported(
                    "a case-insensitive string range ('\(path.dotted)' \(op) '\(text)') in literal mode (there ranges are case-sensitive)", range)
            }
            return key + " " + op + " " + (try quotedLiteral(text, range))
        case .equalsIgnoringCase, .wildcard:
            if literal {
                throw unsupported(
                    "case-insensitive matching ('\(path.dotted)' = '\(text)') in literal mode (there '=' is exact)", range)
            }
            if match == .equalsIgnoringCase && hasStar {
                throw unsupported("case-insensitive equality with a text containing '*' (Usergrid reads '*' as a wildcard)", range)
            }
            return key + " = " + (try quotedLiteral(text, range))
        case .word, .wordPrefix:
            if hasStar {
                throw unsupported("a 'contains' word containing '*' (Usergrid reads a final '*' as a prefix match)", range)
            }
            return key + " contains " + (try quotedLiteral(match == .wordPrefix ? text + "*" : text, range))
        }
    }

    /// A string literal the parser reads back as `s`: Usergrid trims them, so
    /// a string with whitespace at either end has no spelling.
    func quotedLiteral(_ s: String, _ range: SourceRange?) throws(QueryError) -> String {
        guard UsergridMeaning.isTrimmed(s) else {
            throw unsupported(
                "the string \(JSONWriter.string(.string(s))) (it has whitespace at an end, and Usergrid trims string literals)", range)
        }
        return Self.quoted(s)
    }

    /// `near` with only a maximum → `k within <meters> of lat, lon`.
    func near(_ path: FieldPath, _ point: Term, _ min: Distance?, _ max: Distance?, _ range: SourceRange?)
        throws(QueryError) -> String
    {
        let key = try property(path)
        if let min, !(min.value.value?.numberValue == 0) {
            throw unsupported("'near' with a minimum distance", range)
        }
        guard let max else { throw unsupported("'near' without a maximum distance", range) }
        guard case .value(.geoPoint(let p)) = point else {
            throw unsupported("a 'near' point that is not a constant GeoPoint", range)
        }
        guard p.isValid else {
            throw QueryError(.invalidValue, "GeoPoint latitude \(p.latitude), longitude \(p.longitude) is out of range", range: range)
        }
        guard case .value(let distance) = max.value, let d = distance.numberValue, d.isFinite, d >= 0 else {
            throw unsupported("a 'near' distance that is not a non-negative constant number", range)
        }
        guard let meters = UsergridDistance.meters(distance, max.unit) else {
            throw unsupported(
                "the distance \(JSONWriter.string(distance)) \(max.unit.rawValue) (it has no exact value in meters under the shared Earth radii)",
                range)
        }
        let metersText: String
        switch meters {
        case .int(let i): metersText = String(i)
        case .double(let m): metersText = JSONWriter.doubleText(m)
        default: metersText = JSONWriter.string(meters)
        }
        return key + " within " + metersText + " of " + JSONWriter.doubleText(p.latitude) + ", "
            + JSONWriter.doubleText(p.longitude)
    }
}
