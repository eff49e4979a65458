/// Comparisons, `contains` and `within`, and the AST mapping of each.
extension UsergridParserState {
    static let operatorList = "=, <, <=, >, >=, eq, lt, lte, gt, gte, contains or within"

    mutating func parseComparison() throws(QueryError) -> Condition {
        let propertyToken = current
        let path = try parseProperty(what: "a condition (a property name, 'not' or '(')")
        let op = current
        switch op.kind {
        case .equal, .less, .lessEqual, .greater, .greaterEqual:
            advance()
            let valueToken = try parseValue(after: op)
            let range = propertyToken.range.union(valueToken.range)
            return Condition(mapComparison(path, op, valueToken), range: range)
        case .contains:
            advance()
            let textToken = current
            guard textToken.kind == .string, case .string(let text)? = textToken.value else {
                throw error("expected a string in single quotes after 'contains', found \(Self.describe(textToken))", textToken)
            }
            advance()
            return Condition(try mapContains(path, text, textToken), range: propertyToken.range.union(textToken.range))
        case .within:
            advance()
            return try parseWithin(path, propertyToken)
        default:
            throw operatorError(propertyToken)
        }
    }

    /// The error for a property not followed by an operator, with hints for
    /// `in`, `from`, `is`, `like`.
    func operatorError(_ property: UsergridToken) -> QueryError {
        let found = current
        if Self.isWord(found, "in") {
            return error(
                "Usergrid has no 'in'; write '\(property.text) = a or \(property.text) = b'", found)
        }
        if Self.isWord(property, "from") {
            return error(
                "Usergrid has no 'from' clause; the collection is the request path (the className option)", property)
        }
        if Self.isWord(property, "limit") {
            return error("Usergrid takes 'limit' as a request parameter, not in ql (use the limit option)", property)
        }
        return error(
            "expected an operator after '\(property.text)' (\(Self.operatorList)), found \(Self.describe(found))", found)
    }

    /// A property name: an identifier with no empty `.` step.
    mutating func parseProperty(what: String) throws(QueryError) -> FieldPath {
        let t = current
        guard t.kind == .identifier, !atOrderBy else {
            if UsergridKeywords.kind(of: t.text) != nil, peek().kind.isOperator {
                throw error("'\(t.text)' is a reserved word in Usergrid and cannot name a property", t)
            }
            if t.kind == .uuid || t.kind == .string || t.kind == .integer || t.kind == .number || t.kind == .boolean,
                peek().kind.isOperator
            {
                throw error("expected a property name, found \(Self.describe(t)); the property comes first", t)
            }
            throw error("expected \(what), found \(Self.describe(t))", t)
        }
        advance()
        return try Self.fieldPath(t)
    }

    static func fieldPath(_ t: UsergridToken) throws(QueryError) -> FieldPath {
        let path = FieldPath(dotted: t.text)
        if path.components.contains(where: \.isEmpty) {
            throw QueryError(.syntax, "'\(t.text)' is not a valid property name: it has an empty '.' step", range: t.range)
        }
        return path
    }

    /// A literal after a comparison operator.
    mutating func parseValue(after op: UsergridToken) throws(QueryError) -> UsergridToken {
        let t = current
        switch t.kind {
        case .string, .integer, .number, .boolean, .uuid:
            advance()
            return t
        case .leftParen:
            throw error("Usergrid has no lists; write each comparison and join them with 'or'", t)
        case .identifier where Self.isWord(t, "null"):
            throw error("Usergrid has no null; a property without a value cannot be matched", t)
        case .identifier:
            throw error(
                "expected a value after '\(op.text)' (a 'string', a number, true, false or a UUID), found \(Self.describe(t)); strings need single quotes",
                t)
        default:
            throw error(
                "expected a value after '\(op.text)' (a 'string', a number, true, false or a UUID), found \(Self.describe(t))",
                t)
        }
    }

    /// `k op v` in the AST (`UsergridMeaning.comparison`):
    /// a quoted string is trimmed, and unless `literal` its `=` and ranges
    /// ignore case; everything else compares.
    func mapComparison(_ path: FieldPath, _ op: UsergridToken, _ valueToken: UsergridToken) -> Predicate {
        UsergridMeaning.comparison(
            path, op.kind.comparison ?? .equal, valueToken.value ?? .null, quoted: valueToken.kind == .string, literal: literal)
    }

    /// `contains 'w'` → word match, `contains 'w*'` → word-prefix match.
    /// A `*` elsewhere could never match a word (words are runs of letters
    /// and digits), so it is an error rather than a silent no-match.
    /// The text is trimmed first, as every string literal (UsergridQL.md).
    func mapContains(_ path: FieldPath, _ text: String, _ token: UsergridToken) throws(QueryError) -> Predicate {
        var bytes = Array(UsergridMeaning.trimmed(text).utf8)
        let prefix = bytes.last == UInt8(ascii: "*")
        if prefix { bytes.removeLast() }
        if bytes.contains(UInt8(ascii: "*")) {
            throw error(
                "'*' in 'contains' is only allowed at the end (a word prefix such as 'bl*')", token, kind: .invalidValue)
        }
        let word = String(decoding: bytes, as: UTF8.self)
        return .text(path, prefix ? .wordPrefix : .word, word)
    }

    /// `within D of LAT, LON`: D meters (non-negative), latitude first.
    mutating func parseWithin(_ path: FieldPath, _ propertyToken: UsergridToken) throws(QueryError) -> Condition {
        let distance = try parseNumber("a distance in meters after 'within'")
        guard at(.of) else {
            throw error("expected 'of' after the distance of 'within', found \(Self.describe(current))", current)
        }
        advance()
        let latitude = try parseNumber("a latitude after 'of'")
        guard at(.comma) else {
            throw error("expected ',' between latitude and longitude, found \(Self.describe(current))", current)
        }
        advance()
        let longitude = try parseNumber("a longitude after ','")
        let meters = distance.value ?? .int(0)
        let d = meters.numberValue ?? 0
        guard d >= 0 else {
            throw error("the distance of 'within' must not be negative, found \(distance.text)", distance, kind: .invalidValue)
        }
        let lat = latitude.value?.numberValue ?? 0
        let lon = longitude.value?.numberValue ?? 0
        let swapHint = (-90.0...90.0).contains(lon) && (-180.0...180.0).contains(lat)
            ? "; 'within' takes the latitude first" : ""
        guard (-90.0...90.0).contains(lat) else {
            throw error("latitude \(latitude.text) is out of range (-90 to 90)\(swapHint)", latitude, kind: .invalidValue)
        }
        guard (-180.0...180.0).contains(lon) else {
            throw error("longitude \(longitude.text) is out of range (-180 to 180)", longitude, kind: .invalidValue)
        }
        let point = GeoPoint(latitude: lat, longitude: lon)
        return Condition(
            .near(path, point: .value(.geoPoint(point)), min: nil, max: Distance(.value(meters), .meters)),
            range: propertyToken.range.union(longitude.range))
    }

    mutating func parseNumber(_ what: String) throws(QueryError) -> UsergridToken {
        let t = current
        guard t.kind == .integer || t.kind == .number else {
            throw error("expected \(what), found \(Self.describe(t))", t)
        }
        advance()
        return t
    }
}
