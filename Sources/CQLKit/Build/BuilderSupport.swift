/// Checks and conversions the two builders share. Builders have no query
/// text, so their errors carry no range: the message names the call instead.
enum BuilderSupport {
    /// Deeper values than this are rejected (the checks below recurse).
    static let maxValueDepth = 256

    static func invalid(_ message: String) -> QueryError {
        QueryError(.invalidValue, message)
    }

    /// `a.b.c` as a path; empty keys and empty steps (`a..b`) are errors.
    static func path(_ key: String) throws(QueryError) -> FieldPath {
        let path = FieldPath(dotted: key)
        if key.isEmpty { throw invalid("a key must not be empty") }
        if path.components.contains(where: \.isEmpty) {
            throw invalid("the key '\(key)' has an empty step")
        }
        return path
    }

    /// Converts `value` and checks what a REST request could not carry
    /// (non-finite doubles) or a backend would reject (GeoPoints out of range).
    static func value(_ value: some ValueConvertible) throws(QueryError) -> Value {
        let v = try value.queryValue()
        try check(v, depth: 0)
        return v
    }

    /// Like ``value(_:)`` for heterogeneous lists (`[1, "a"]`).
    static func values(_ list: [any ValueConvertible]) throws(QueryError) -> [Value] {
        var out: [Value] = []
        out.reserveCapacity(list.count)
        for item in list {
            let v = try item.queryValue()
            try check(v, depth: 0)
            out.append(v)
        }
        return out
    }

    private static func check(_ v: Value, depth: Int) throws(QueryError) {
        guard depth < maxValueDepth else {
            throw QueryError(.limit, "the value nests deeper than \(maxValueDepth) levels")
        }
        switch v {
        case .double(let d):
            if !d.isFinite { throw invalid("\(d) is not a finite number") }
        case .geoPoint(let p):
            try checkPoint(p)
        case .array(let items):
            for item in items { try check(item, depth: depth + 1) }
        case .object(let fields), .typedObject(_, let fields):
            for (_, item) in fields { try check(item, depth: depth + 1) }
        default:
            break
        }
    }

    static func checkPoint(_ p: GeoPoint) throws(QueryError) {
        guard p.latitude.isFinite, (-90.0...90.0).contains(p.latitude) else {
            throw invalid("invalid GeoPoint: latitude \(p.latitude) is outside -90...90")
        }
        guard p.longitude.isFinite, (-180.0...180.0).contains(p.longitude) else {
            throw invalid("invalid GeoPoint: longitude \(p.longitude) is outside -180...180")
        }
    }

    /// A distance bound must be a finite, non-negative number.
    static func checkDistance(_ d: Distance?, _ what: String) throws(QueryError) {
        guard let d else { return }
        switch d.value {
        case .value(.int(let i)):
            if i < 0 { throw invalid("the \(what) distance must not be negative, found \(i)") }
        case .value(.double(let x)):
            if !x.isFinite { throw invalid("the \(what) distance must be a finite number, found \(x)") }
            if x < 0 { throw invalid("the \(what) distance must not be negative, found \(JSONWriter.doubleText(x))") }
        default:
            throw invalid("the \(what) distance must be a number")
        }
    }

    /// `limit` / `skip`: a non-negative count.
    static func count(_ n: Int, _ what: String) throws(QueryError) -> Term {
        guard n >= 0 else { throw invalid("\(what) must not be negative, found \(n)") }
        return .value(.int(Int64(n)))
    }

    static func exactInteger(_ n: some BinaryInteger) throws(QueryError) -> Value {
        guard let i = Int64(exactly: n) else { throw invalid("the integer \(n) does not fit in 64 bits") }
        return .int(i)
    }
}
