/// Values inside conditions: REST typed values, MongoDB extended-JSON dates,
/// and operands of operators (which may be `$relativeTime`).
extension WhereJSONReading {
    /// A value with every REST typed value (`{"__type":...}`) and every
    /// `{"$date": ...}` decoded; already-typed cases are checked (a GeoPoint
    /// out of range is an error).
    func decodeValue(_ value: Value, path: String) throws(QueryError) -> Value {
        try decodeValue(value, path: path, depth: 0)
    }

    private func decodeValue(_ value: Value, path: String, depth: Int) throws(QueryError) -> Value {
        // Text input is bounded by the JSON reader's limit; a `Value` built in
        // code is not, so the walk keeps its own.
        guard depth < JSONReader.defaultMaxDepth else {
            throw fail(.limit, path, "value nested deeper than \(JSONReader.defaultMaxDepth) levels")
        }
        switch value {
        case .object(let o):
            if o["__type"] != nil { return try decodeTyped(value, path: path) }
            if o.count == 1, let d = o["$date"] { return .date(try extendedJSONDate(d, path: Self.join(path, "$date"))) }
            var out: [String: Value] = [:]
            for (k, v) in o { out[k] = try decodeValue(v, path: Self.join(path, k), depth: depth + 1) }
            return .object(out)
        case .array(let items):
            var out: [Value] = []
            out.reserveCapacity(items.count)
            for (i, item) in items.enumerated() {
                out.append(try decodeValue(item, path: Self.join(path, index: i), depth: depth + 1))
            }
            return .array(out)
        case .geoPoint(let g):
            try checkGeoPoint(g, path: path)
            return value
        default:
            return value
        }
    }

    /// `{"__type": ...}` through the shared decoder, its relative error path
    /// rebased onto `path`.
    private func decodeTyped(_ value: Value, path: String) throws(QueryError) -> Value {
        do throws(QueryError) {
            return try value.decodingTypedValues()
        } catch {
            let p = error.path.map { Self.join(path, $0) } ?? path
            throw fail(error.kind, p, error.message)
        }
    }

    /// MongoDB extended JSON: `{"$date": "2015-06-21T18:02:52.249Z"}` (relaxed)
    /// or `{"$date": 1434909772249}` / `{"$date": {"$numberLong": "..."}}`
    /// (milliseconds since 1970).
    private func extendedJSONDate(_ value: Value, path: String) throws(QueryError) -> DateValue {
        switch value {
        case .string(let s):
            guard let d = ISODate.parse(s) else { throw fail(.invalidValue, path, "invalid ISO 8601 date '\(s)'") }
            return d
        case .int(let ms):
            return try milliseconds(ms, path: path)
        case .object(let o) where o.count == 1:
            if case .string(let s)? = o["$numberLong"], let ms = Int64(s) { return try milliseconds(ms, path: Self.join(path, "$numberLong")) }
            throw expected("an ISO 8601 string or milliseconds", path, found: value)
        default:
            throw expected("an ISO 8601 string or milliseconds", path, found: value)
        }
    }

    /// A date from milliseconds since 1970, within the years ISO 8601 writes
    /// with four digits (0000...9999), as every backend needs (found by fuzzing).
    private func milliseconds(_ ms: Int64, path: String) throws(QueryError) -> DateValue {
        let d = DateValue(millisecondsSince1970: ms)
        guard ISODate.parse(ISODate.format(d)) == d else {
            throw fail(.invalidValue, path, "the date \(ms) milliseconds since 1970 is outside the years 0000...9999")
        }
        return d
    }

    /// The operand of `$eq`, `$lt`, an `$in` element, ...: a value, or with
    /// `relativeTime` Parse's `{"$relativeTime": "in 2 days"}`. Any other
    /// object with `$` keys is an operator where a value belongs: an error —
    /// except with `literal` (the operand of `$eq`), which MongoDB takes as
    /// the value itself: `{"o":{"$eq":{"$gt":1}}}` is how the emitter writes
    /// equality with such an object.
    func operand(_ value: Value, path: String, relativeTime: Bool = false, literal: Bool = false) throws(QueryError) -> Term {
        if case .object(let o) = value, Self.isOperatorObject(o), !literal || (o.count == 1 && o["$relativeTime"] != nil) {
            if o.count == 1, let rt = o["$relativeTime"] {
                let p = Self.join(path, "$relativeTime")
                guard relativeTime else {
                    throw fail(.syntax, p, "'$relativeTime' is only allowed as the value of $lt, $lte, $gt or $gte")
                }
                guard case .string(let s) = rt, !s.isEmpty else {
                    throw expected("a relative time like \"in 2 days\" or \"3 hours ago\"", p, found: rt)
                }
                // Checked now, so a bad text is reported with its JSON path;
                // the binder resolves it against the query's "now".
                do throws(QueryError) {
                    _ = try RelativeTime.offset(s, range: nil)
                } catch {
                    throw fail(error.kind, p, error.message)
                }
                return .relativeTime(s)
            }
            let ops = Self.sortedMembers(o).map(\.key).filter { $0.hasPrefix("$") }.joined(separator: ", ")
            throw fail(.syntax, path, "expected a value, found an operator object (\(ops))")
        }
        return .value(try decodeValue(value, path: path))
    }

    /// The elements of `$in`, `$nin`, `$all`, `$containedBy`.
    func operandList(_ value: Value, path: String) throws(QueryError) -> [Term] {
        guard case .array(let items) = value else { throw expected("an array", path, found: value) }
        var terms: [Term] = []
        terms.reserveCapacity(items.count)
        for (i, item) in items.enumerated() { terms.append(try operand(item, path: Self.join(path, index: i))) }
        return terms
    }

    /// A number that is at least zero (distances, radii), kept as the literal given.
    func nonNegativeNumber(_ value: Value, path: String) throws(QueryError) -> Value {
        guard let n = value.numberValue else { throw expected("a non-negative number", path, found: value) }
        guard n >= 0 else { throw fail(.invalidValue, path, "expected a non-negative number, found \(JSONWriter.string(value))") }
        return value
    }

    /// A field-level `$op` whose value must be a string.
    func string(_ value: Value, path: String, what: String = "a string") throws(QueryError) -> String {
        guard case .string(let s) = value else { throw expected(what, path, found: value) }
        return s
    }
}
