/// Operator objects on one key: `{"score": {"$gte": 10, "$lt": 20}}`. Each
/// operator becomes one predicate (several are ANDed in key order), except
/// the companions read with their lead: `$options` with `$regex`, and the
/// `$maxDistance*`/`$minDistance*` family with `$nearSphere`.
extension WhereJSONReading {
    static let comparisonOperators: [String: ComparisonOperator] = [
        "$eq": .equal, "$ne": .notEqual, "$lt": .lessThan, "$lte": .lessThanOrEqual,
        "$gt": .greaterThan, "$gte": .greaterThanOrEqual,
    ]

    /// Every operator a key's object may hold (for messages).
    static let fieldOperators: Set<String> = Set(comparisonOperators.keys).union([
        "$in", "$nin", "$all", "$containedBy", "$size", "$exists", "$type", "$mod", "$regex", "$options",
        "$select", "$dontSelect", "$inQuery", "$notInQuery", "$nearSphere", "$within", "$geoWithin",
        "$geoIntersects", "$not", "$elemMatch", "$text",
    ]).union(distanceOperators.keys)

    /// Regex options MongoDB, LeanCloud and Parse all accept.
    static let regexOptions: Set<Character> = ["i", "m", "x", "s"]

    func readOperators(_ field: FieldPath, _ o: [String: Value], path: String, scope: Scope) throws(QueryError) -> [Condition] {
        var parts: [Condition] = []
        for (key, value) in Self.sortedMembers(o) {
            let p = Self.join(path, key)
            let range = exactRange(p)
            guard key.hasPrefix("$") else {
                throw fail(.syntax, p, "expected an operator, found the plain key '\(key)' (an object of operators holds nothing else)")
            }
            if let op = Self.comparisonOperators[key] {
                let relative = op != .equal && op != .notEqual
                let term = try operand(value, path: p, relativeTime: relative, literal: op == .equal)
                parts.append(Condition(.compare(field, op, term), range: range))
                continue
            }
            if Self.distanceOperators[key] != nil {
                guard o["$nearSphere"] != nil else { throw fail(.syntax, p, "'\(key)' needs '$nearSphere' beside it") }
                continue
            }
            let predicate: Predicate
            switch key {
            case "$in", "$nin":
                predicate = .in(field, try operandList(value, path: p), negated: key == "$nin")
            case "$all":
                if let matches = try readAllOfElementMatches(field, value, path: p, scope: scope) {
                    parts += matches
                    continue
                }
                predicate = .all(field, try operandList(value, path: p))
            case "$containedBy":
                predicate = .containedBy(field, try operandList(value, path: p))
            case "$size":
                // MongoDB also takes a whole double (`2.0`), as the evaluator does.
                guard case .int(let n) = OperandChecks.wholeCount(value), n >= 0 else {
                    throw fail(.invalidValue, p, "expected a non-negative integer, found \(JSONWriter.string(value.restJSON))")
                }
                predicate = .size(field, .value(value))
            case "$exists":
                // MongoDB reads the operand's truth value: a number counts,
                // 0 (or -0.0) is false, any other number true.
                switch value {
                case .bool(let b): predicate = .exists(field, b)
                case .int(let n): predicate = .exists(field, n != 0)
                case .double(let d): predicate = .exists(field, d != 0)
                default: throw expected("true, false or a number", p, found: value)
                }
            case "$type":
                parts.append(try readType(field, value, path: p))
                continue
            case "$mod":
                predicate = try readModulo(field, value, path: p)
            case "$regex":
                predicate = try readRegex(field, value, options: o["$options"], path: path)
            case "$options":
                guard o["$regex"] != nil else { throw fail(.syntax, p, "'$options' needs '$regex' beside it") }
                continue
            case "$select", "$dontSelect":
                predicate = try readSelect(field, value, negated: key == "$dontSelect", path: p, scope: scope)
            case "$inQuery", "$notInQuery":
                let query = try readSubquery(value, path: p, scope: scope)
                predicate = .inQuery(field, query: query, negated: key == "$notInQuery")
            case "$nearSphere":
                predicate = try readNear(field, o, path: path)
            case "$within", "$geoWithin":
                predicate = try readGeoWithin(field, value, path: p)
            case "$geoIntersects":
                predicate = try readGeoIntersects(field, value, path: p)
            case "$not":
                guard case .object(let inner) = value, Self.isOperatorObject(inner) else {
                    throw expected("an operator object like {\"$gt\": 5}", p, found: value)
                }
                let negated = try readOperators(field, inner, path: p, scope: try deeper(scope, p))
                parts.append(Condition.not(Condition.and(negated, range: range), range: range))
                continue
            case "$elemMatch":
                predicate = .elementMatch(field, try readElementMatch(value, path: p, scope: scope))
            case "$text":
                predicate = .fullText(field, try readFullText(value, path: p))
            case "$relativeTime":
                throw fail(.syntax, p, "'$relativeTime' is only allowed as the value of $lt, $lte, $gt or $gte")
            case "$or", "$and", "$nor", "$relatedTo":
                throw fail(.syntax, p, "'\(key)' is a top-level operator and cannot apply to the key '\(field.dotted)'")
            default:
                throw fail(.syntax, p, "unknown operator '\(key)'")
            }
            parts.append(Condition(predicate, range: range))
        }
        return parts
    }

    /// `$regex` (a string) with its optional `$options` drawn from `imxs`.
    private func readRegex(_ field: FieldPath, _ value: Value, options: Value?, path: String) throws(QueryError) -> Predicate {
        let pattern = try string(value, path: Self.join(path, "$regex"), what: "a pattern string")
        var opts = ""
        if let options {
            let op = Self.join(path, "$options")
            opts = try string(options, path: op, what: "an options string")
            for c in opts where !Self.regexOptions.contains(c) {
                throw fail(.pattern, op, "invalid regex option '\(c)' in '\(opts)' (allowed: i, m, x, s)")
            }
        }
        return .regex(field, pattern: .value(.string(pattern)), options: opts)
    }

    /// MongoDB's `$type`: an alias, a numeric code, or an array of them (any of).
    private func readType(_ field: FieldPath, _ value: Value, path: String) throws(QueryError) -> Condition {
        func one(_ v: Value, _ p: String) throws(QueryError) -> Condition {
            switch v {
            case .string(let s) where Self.typeAliases.contains(s):
                return Condition(.type(field, s), range: exactRange(p))
            case .int(let code):
                guard let s = Self.typeCodes[code] else { throw fail(.invalidValue, p, "unknown BSON type code \(code)") }
                return Condition(.type(field, s), range: exactRange(p))
            case .string(let s):
                throw fail(.invalidValue, p, "unknown type '\(s)' (expected a MongoDB type alias such as 'string', 'number', 'array')")
            default:
                throw expected("a type alias or code", p, found: v)
            }
        }
        guard case .array(let items) = value else { return try one(value, path) }
        if items.isEmpty { throw fail(.syntax, path, "expected at least one type, found an empty array") }
        var alternatives: [Condition] = []
        for (i, item) in items.enumerated() { alternatives.append(try one(item, Self.join(path, index: i))) }
        return Condition.or(alternatives, range: exactRange(path))
    }

    static let typeCodes: [Int64: String] = [
        1: "double", 2: "string", 3: "object", 4: "array", 5: "binData", 6: "undefined", 7: "objectId",
        8: "bool", 9: "date", 10: "null", 11: "regex", 12: "dbPointer", 13: "javascript", 14: "symbol",
        15: "javascriptWithScope", 16: "int", 17: "timestamp", 18: "long", 19: "decimal", -1: "minKey", 127: "maxKey",
    ]
    static let typeAliases: Set<String> = Set(typeCodes.values).union(["number"])

    /// `$mod: [divisor, remainder]`, numbers, divisor not zero.
    private func readModulo(_ field: FieldPath, _ value: Value, path: String) throws(QueryError) -> Predicate {
        guard case .array(let items) = value, items.count == 2 else {
            throw fail(.syntax, path, "expected [divisor, remainder], found \(JSONWriter.string(value.restJSON))")
        }
        let dp = Self.join(path, index: 0), rp = Self.join(path, index: 1)
        guard let d = items[0].numberValue else { throw expected("a number", dp, found: items[0]) }
        guard items[1].numberValue != nil else { throw expected("a number", rp, found: items[1]) }
        if d == 0 { throw fail(.invalidValue, dp, "the divisor of '$mod' must not be zero") }
        return .modulo(field, divisor: .value(items[0]), remainder: .value(items[1]))
    }

    /// `$elemMatch`: operators on the element itself (`{"$gte": 80}`, empty
    /// path) or a condition object on its members (`{"name": "x"}`).
    private func readElementMatch(_ value: Value, path: String, scope: Scope) throws(QueryError) -> Condition {
        guard case .object(let o) = value else { throw expected("an object", path, found: value) }
        let inner = try deeper(scope, path)
        let logical: Set<String> = ["$or", "$and", "$nor", "$relatedTo"]
        if Self.isOperatorObject(o) && o.keys.allSatisfy({ $0.hasPrefix("$") && !logical.contains($0) }) {
            return Condition.and(try readOperators(FieldPath([]), o, path: path, scope: inner), range: exactRange(path))
        }
        return try readConditionObject(o, path: path, scope: inner) ?? Condition(.constant(true), range: exactRange(path))
    }

    /// MongoDB's `{"$all": [{"$elemMatch": ...}, ...]}`: every `$elemMatch`
    /// matches (each by some element), read as one `elementMatch` per item,
    /// which the caller ANDs. `nil` when no item is an `$elemMatch` object
    /// (a list of values); items mixing both are an error, as in MongoDB.
    private func readAllOfElementMatches(_ field: FieldPath, _ value: Value, path: String, scope: Scope) throws(QueryError) -> [Condition]? {
        guard case .array(let items) = value else { return nil }
        func isElementMatch(_ item: Value) -> Bool {
            if case .object(let o) = item, o.count == 1, o["$elemMatch"] != nil { return true }
            return false
        }
        guard let first = items.firstIndex(where: isElementMatch) else { return nil }
        var matches: [Condition] = []
        for (i, item) in items.enumerated() {
            let ip = Self.join(path, index: i)
            guard case .object(let o) = item, o.count == 1, let body = o["$elemMatch"] else {
                throw fail(.syntax, ip, "'$all' mixes values with '$elemMatch' objects (item \(first) is one); its items must be all values or all '$elemMatch' objects")
            }
            let ep = Self.join(ip, "$elemMatch")
            matches.append(Condition(.elementMatch(field, try readElementMatch(body, path: ep, scope: scope)), range: exactRange(ip)))
        }
        return matches
    }

    /// Parse's `$text: {"$search": {"$term": "...", "$language": ..., "$caseSensitive": ..., "$diacriticSensitive": ...}}`.
    private func readFullText(_ value: Value, path: String) throws(QueryError) -> FullTextSearch {
        guard case .object(let o) = value else { throw expected("{\"$search\": {\"$term\": ...}}", path, found: value) }
        try onlyKeys(o, ["$search"], path: path, in: "$text")
        let sp = Self.join(path, "$search")
        guard case .object(let search)? = o["$search"] else {
            throw expected("{\"$search\": {\"$term\": ...}}", o["$search"] == nil ? path : sp, found: o["$search"] ?? value)
        }
        try onlyKeys(search, ["$term", "$language", "$caseSensitive", "$diacriticSensitive"], path: sp, in: "$search")
        guard let termValue = search["$term"] else { throw fail(.syntax, sp, "'$search' needs a '$term'") }
        var text = FullTextSearch(term: try string(termValue, path: Self.join(sp, "$term")))
        if let v = search["$language"] { text.language = try string(v, path: Self.join(sp, "$language")) }
        for key in ["$caseSensitive", "$diacriticSensitive"] {
            guard let v = search[key] else { continue }
            guard case .bool(let b) = v else { throw expected("true or false", Self.join(sp, key), found: v) }
            if key == "$caseSensitive" { text.caseSensitive = b } else { text.diacriticSensitive = b }
        }
        return text
    }

    // MARK: Subqueries

    /// `$select: {"query": {"className": C, "where": {...}}, "key": "f"}`.
    private func readSelect(_ field: FieldPath, _ value: Value, negated: Bool, path: String, scope: Scope) throws(QueryError) -> Predicate {
        let what = negated ? "$dontSelect" : "$select"
        guard case .object(let o) = value else {
            throw expected("{\"query\": {\"className\": ..., \"where\": ...}, \"key\": ...}", path, found: value)
        }
        try onlyKeys(o, ["query", "key"], path: path, in: what)
        guard let queryValue = o["query"] else { throw fail(.syntax, path, "'\(what)' needs a 'query'") }
        guard let keyValue = o["key"] else { throw fail(.syntax, path, "'\(what)' needs a 'key'") }
        let kp = Self.join(path, "key")
        let key = try fieldPath(try string(keyValue, path: kp, what: "a key string"), kp)
        let query = try readSubquery(queryValue, path: Self.join(path, "query"), scope: scope)
        return .select(field, key: key, query: query, negated: negated)
    }

    /// A subquery request: needs its own `className`.
    private func readSubquery(_ value: Value, path: String, scope: Scope) throws(QueryError) -> Query {
        guard case .object(let o) = value else {
            throw expected("a subquery object {\"className\": ..., \"where\": ...}", path, found: value)
        }
        let inner = try deeper(scope, path)
        return try readRequest(o, path: path, kind: .subquery, scope: Scope(className: "", depth: inner.depth))
    }
}
