/// The arguments of one NSPredicate parse: `%`-arguments consumed left to
/// right, `$NAME` variables by name. Every error points at the placeholder.
///
/// Arguments are typed values in their REST form (`{"__type":"Date",...}`)
/// or typed ``Value`` cases; an object `{"__type":"Query","className":C,
/// "where":{...}}` or `{"__type":"Query","cql":"select ..."}` is a sub-query.
struct NSPredicateArguments {
    let arguments: [Value]
    let variables: [String: Value]
    var next = 0

    init(arguments: [Value], variables: [String: Value]) {
        self.arguments = arguments
        self.variables = variables
    }

    /// The next `%`-argument, or a missing-argument error at `token`.
    mutating func take(_ token: NSPredicateToken) throws(QueryError) -> Value {
        guard next < arguments.count else {
            throw QueryError(.binding, "no argument for \(token.text): the format's placeholder \(next + 1) has no value "
                             + "(\(arguments.count) given)", range: token.range)
        }
        defer { next += 1 }
        return arguments[next]
    }

    /// `%@`: a constant, an array (for IN / BETWEEN) or a sub-query.
    mutating func value(for token: NSPredicateToken) throws(QueryError) -> NSPredicateOperand {
        try operand(try take(token), token, what: "argument \(next) (\(token.text))")
    }

    /// `$NAME`
    func variable(_ token: NSPredicateToken) throws(QueryError) -> NSPredicateOperand {
        guard let v = variables[token.text] else {
            let known = variables.keys.sorted().map { "$" + $0 }.joined(separator: ", ")
            throw QueryError(.binding, "unbound variable $\(token.text)" + (known.isEmpty ? "; bind it with --vars" : " (bound: \(known))"),
                             range: token.range)
        }
        return try operand(v, token, what: "$\(token.text)")
    }

    /// `%K`: a key path given as a string (`"a.b"` is the path a.b).
    mutating func keyPath(for token: NSPredicateToken) throws(QueryError) -> [String] {
        let v = try take(token)
        guard case .string(let s) = v else {
            throw QueryError(.binding, "%K takes a key path string, argument \(next) is \(v.typeDescription)", range: token.range)
        }
        let path = FieldPath(dotted: s)
        guard !s.isEmpty, !path.components.contains(where: \.isEmpty) else {
            throw QueryError(.binding, "%K: '\(s)' is not a key path (empty step)", range: token.range)
        }
        return path.components
    }

    /// `%d %i %u %ld %lld %x` (an integer) or `%f` (any number, as a double).
    mutating func number(for token: NSPredicateToken, integer: Bool) throws(QueryError) -> NSPredicateOperand {
        let v = try take(token)
        switch v {
        case .int(let i): return .constant(integer ? .int(i) : .double(Double(i)), token.range)
        case .double(let d) where !integer: return .constant(.double(d), token.range)
        default:
            throw QueryError(.binding, "\(token.text) takes \(integer ? "an integer" : "a number"), argument \(next) is \(v.typeDescription)"
                             + (integer && v.numberValue != nil ? "; use %f or %@ for a decimal" : "; use %@ for other values"),
                             range: token.range)
        }
    }

    /// Surplus arguments are an error too (at the end of the format).
    func finish(at end: SourceRange) throws(QueryError) {
        if next < arguments.count {
            throw QueryError(.binding, "\(arguments.count) arguments given but the format has \(next) placeholder\(next == 1 ? "" : "s")",
                             range: end)
        }
    }

    private func operand(_ raw: Value, _ token: NSPredicateToken, what: String) throws(QueryError) -> NSPredicateOperand {
        if case .object(let o) = raw, o["__type"] == .string("Query") {
            return .subquery(try Self.subquery(o, token, what: what), token.range)
        }
        let v: Value
        do throws(QueryError) {
            v = try raw.decodingTypedValues()
        } catch {
            throw QueryError(.binding, "\(what): \(error.message)", range: token.range)
        }
        return .constant(v, token.range)
    }

    /// A sub-query argument: where-JSON with a class, or a CQL `select`.
    static func subquery(_ o: [String: Value], _ token: NSPredicateToken, what: String) throws(QueryError) -> Query {
        var query: Query
        do throws(QueryError) {
            if case .string(let cql)? = o["cql"] {
                guard o.count == 2 else { throw QueryError(.binding, "a CQL sub-query has only \"__type\" and \"cql\"") }
                query = try CQLParser.parse(cql)
                query = try Binder.bind(query, parameters: [])
            } else {
                guard case .string(let c)? = o["className"], !c.isEmpty else {
                    throw QueryError(.binding, "a sub-query needs \"className\" (or \"cql\")")
                }
                var request = o
                request["__type"] = nil
                query = try WhereJSONReader.read(.object(request), className: c)
            }
        } catch {
            throw QueryError(.binding, "\(what): sub-query: \(error.message)", range: token.range)
        }
        // Its ranges point into another text: relocate them to the placeholder.
        query.condition = query.condition.map { relocated($0, token.range) }
        query.range = token.range
        query.source = nil
        return query
    }

    static func relocated(_ c: Condition, _ r: SourceRange) -> Condition {
        // Every node, inside `$elemMatch` too (not in sub-queries: their own text).
        c.transformed(entering: .elementMatch) { node in
            var out = node
            out.range = r
            return out
        } ?? c
    }
}
