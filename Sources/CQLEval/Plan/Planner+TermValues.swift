import CQLKit

/// Turning bound terms into values. The evaluator runs bound queries
/// (`Binder.bind`); whatever is still unresolved is a `.binding` error that
/// points at it.
extension Planner {
    func value(_ term: Term, _ range: SourceRange?) throws(QueryError) -> Value {
        switch term {
        case .value(let v):
            return v
        case .array(let items):
            return .array(try values(items, range))
        case .placeholder(let index, let r):
            throw error(.binding, "placeholder ? #\(index + 1) has no value; bind the parameters before evaluating", r ?? range)
        case .call(let f, _, let r):
            throw error(.binding, "\(f.rawValue)(...) has an unbound argument; bind the parameters before evaluating", r ?? range)
        case .currentTimestamp:
            throw error(.binding, "current_timestamp() has no value; bind the query with a time before evaluating", range)
        case .relativeTime(let text):
            throw error(.binding, "relative time '\(text)' has no value; bind the query with a time before evaluating", range)
        }
    }

    func values(_ terms: [Term], _ range: SourceRange?) throws(QueryError) -> [Value] {
        var out: [Value] = []
        out.reserveCapacity(terms.count)
        for t in terms { out.append(try value(t, range)) }
        return out
    }

    func string(_ term: Term, _ range: SourceRange?, what: String) throws(QueryError) -> String {
        let v = try value(term, range)
        guard case .string(let s) = v else { throw error(.invalidValue, "expected \(what) as a string, found \(describe(v))", range) }
        return s
    }

    func number(_ term: Term, _ range: SourceRange?, what: String) throws(QueryError) -> Double {
        let v = try value(term, range)
        guard let d = v.numberValue else { throw error(.invalidValue, "expected \(what) as a number, found \(describe(v))", range) }
        return d
    }

    /// `an integer (5)`, `a string ('x')`: the type and a short rendering.
    func describe(_ v: Value) -> String {
        var text = JSONWriter.string(v)
        if text.count > 40 { text = String(text.prefix(37)) + "..." }
        return "\(v.typeDescription) \(text)"
    }

    /// A non-negative integer for `skip` / `limit`.
    func count(_ term: Term?, what: String, range: SourceRange?) throws(QueryError) -> Int? {
        guard let term else { return nil }
        let v = try value(term, range)
        guard let n = Numbers.exactInteger(v), n >= 0 else {
            throw error(.invalidValue, "\(what) must be a non-negative integer, found \(describe(v))", range)
        }
        return n > Int64(Int.max) ? Int.max : Int(n)
    }
}
