/// Condition objects: field keys, top-level operators (`$or`, `$and`, `$nor`,
/// `$relatedTo`) and the split between equality and operator objects.
extension WhereJSONReading {
    /// A `where`: a condition object or an array of them (their AND). `nil`
    /// when there is no condition at all (`{}` or `[]`).
    func readWhere(_ value: Value, path: String, scope: Scope) throws(QueryError) -> Condition? {
        switch value {
        case .object(let o):
            return try readConditionObject(o, path: path, scope: scope)
        case .array(let items):
            var parts: [Condition] = []
            let inner = try deeper(scope, path)
            for (i, item) in items.enumerated() {
                let p = Self.join(path, index: i)
                guard case .object(let o) = item else { throw expected("a condition object", p, found: item) }
                if let c = try readCompoundElement(o, path: p, scope: inner) { parts.append(c) }
            }
            return parts.isEmpty ? nil : Condition.and(parts, range: exactRange(path))
        default:
            throw expected("a condition object or an array of condition objects", path, found: value)
        }
    }

    /// The members of one condition object, ANDed in key order.
    func readConditionObject(_ o: [String: Value], path: String, scope: Scope) throws(QueryError) -> Condition? {
        var parts: [Condition] = []
        for (key, value) in Self.sortedMembers(o) {
            let p = Self.join(path, key)
            if key.hasPrefix("$") {
                parts.append(try readTopLevelOperator(key, value, path: p, scope: scope))
            } else {
                parts += try readField(key, value, path: p, scope: scope)
            }
        }
        return parts.isEmpty ? nil : Condition.and(parts, range: exactRange(path))
    }

    private func readTopLevelOperator(_ op: String, _ value: Value, path: String, scope: Scope) throws(QueryError) -> Condition {
        let range = exactRange(path)
        switch op {
        case "$or":
            return Condition.or(try readCompound(value, path: path, scope: scope), range: range)
        case "$and":
            return Condition.and(try readCompound(value, path: path, scope: scope), range: range)
        case "$nor":
            return Condition.not(Condition.or(try readCompound(value, path: path, scope: scope), range: range), range: range)
        case "$relatedTo":
            return Condition(try readRelatedTo(value, path: path), range: range)
        case "$not":
            throw fail(.syntax, path, "'$not' applies to a key ({\"k\":{\"$not\":{...}}}); at the top level use '$nor'")
        case "$text":
            throw fail(.unsupported, path, "top-level '$text' (a MongoDB text-index search) is not supported; use a key's '$text' ({\"k\":{\"$text\":{\"$search\":{\"$term\":...}}}})")
        default:
            let hint = Self.fieldOperators.contains(op) ? "; it applies to a key: {\"k\":{\"\(op)\":...}}" : ""
            throw fail(.syntax, path, "unknown top-level operator '\(op)'\(hint)")
        }
    }

    /// The elements of `$or`/`$and`/`$nor`: a non-empty array of condition
    /// objects (an empty element matches everything).
    private func readCompound(_ value: Value, path: String, scope: Scope) throws(QueryError) -> [Condition] {
        guard case .array(let items) = value else { throw expected("an array of condition objects", path, found: value) }
        if items.isEmpty { throw fail(.syntax, path, "expected at least one condition, found an empty array") }
        let inner = try deeper(scope, path)
        var parts: [Condition] = []
        for (i, item) in items.enumerated() {
            let p = Self.join(path, index: i)
            guard case .object(let o) = item else { throw expected("a condition object", p, found: item) }
            parts.append(try readCompoundElement(o, path: p, scope: inner) ?? Condition(.constant(true), range: exactRange(p)))
        }
        return parts
    }

    /// One element of a compound: a condition object, or (recognised like a
    /// top-level request by a `where` or `className` key) a query wrapping
    /// its condition, which may carry nothing but `where` and the class.
    func readCompoundElement(_ o: [String: Value], path: String, scope: Scope) throws(QueryError) -> Condition? {
        if o["where"] != nil || o["className"] != nil {
            return try readRequest(o, path: path, kind: .compound, scope: scope).condition
        }
        return try readConditionObject(o, path: path, scope: scope)
    }

    /// `$relatedTo: {"object": <Pointer>, "key": "likes"}`.
    private func readRelatedTo(_ value: Value, path: String) throws(QueryError) -> Predicate {
        guard case .object(let o) = value else {
            throw expected("{\"object\": <Pointer>, \"key\": \"...\"}", path, found: value)
        }
        try onlyKeys(o, ["object", "key"], path: path, in: "$relatedTo")
        guard let object = o["object"] else { throw fail(.syntax, path, "'$relatedTo' needs an 'object' (a Pointer)") }
        guard let key = o["key"] else { throw fail(.syntax, path, "'$relatedTo' needs a 'key'") }
        let op = Self.join(path, "object")
        guard case .pointer(let pointer) = try decodeValue(object, path: op) else {
            throw expected("a Pointer", op, found: object)
        }
        let kp = Self.join(path, "key")
        guard case .string(let k) = key, !k.isEmpty else { throw expected("a non-empty key string", kp, found: key) }
        return .relatedTo(object: .value(.pointer(pointer)), key: k)
    }

    /// Rejects members of an operator's object other than `allowed`.
    func onlyKeys(_ o: [String: Value], _ allowed: Set<String>, path: String, in what: String) throws(QueryError) {
        for (key, _) in Self.sortedMembers(o) where !allowed.contains(key) {
            let list = allowed.sorted().map { "'\($0)'" }.joined(separator: ", ")
            throw fail(.syntax, Self.join(path, key), "unexpected '\(key)' in '\(what)' (expected \(list))")
        }
    }

    // MARK: Fields

    /// `"k": v` — equality, unless `v` is an operator object.
    func readField(_ key: String, _ value: Value, path: String, scope: Scope) throws(QueryError) -> [Condition] {
        let field = try fieldPath(key, path)
        if case .object(let o) = value, Self.isOperatorObject(o) {
            return try readOperators(field, o, path: path, scope: scope)
        }
        let v = try decodeValue(value, path: path)
        return [Condition(.compare(field, .equal, .value(v)), range: exactRange(path))]
    }

    /// Whether an object is `{"$op": ...}` rather than a value: it has a
    /// `$` key and is neither a typed value (`__type`) nor an extended-JSON
    /// date (`{"$date": ...}`).
    static func isOperatorObject(_ o: [String: Value]) -> Bool {
        if o["__type"] != nil { return false }
        if o.count == 1 && o["$date"] != nil { return false }
        return o.keys.contains { $0.hasPrefix("$") }
    }
}
