/// The REST backend of writes: the request a bound write statement means in
/// LeanCloud's REST API (CQL.md, "Writes: insert, update, delete"), as a JSON object
/// `{"method": ..., "path": ..., "body": {...}, "where": {...}}`.
///
/// | statement | request |
/// |---|---|
/// | `insert` of one row | `POST /1.1/classes/T` with the object as body |
/// | `insert` of several rows | one `POST /1.1/batch` whose body holds a `POST /1.1/classes/T` per row |
/// | `update` | `PUT /1.1/classes/T/<objectId>`; ops as `{"__op": ...}`; the extra condition as `where` |
/// | `delete` | `DELETE /1.1/classes/T/<objectId>` (+ `where`) |
///
/// Class names and objectIds are percent-encoded in the path (RFC 3986:
/// all but `A-Z a-z 0-9 - . _ ~ :` and `@`). Print the result with
/// ``JSONWriter`` (sorted keys). ``RESTReader`` reads it back.
///
/// ```swift
/// let s = try CQLParser.parseStatement("update Account set account=op('Decrement', {'amount': 50}) where objectId='558e20cbe4b060308e3eb36c' and amount>=100")
/// JSONWriter.string(try RESTEmitter.emit(s))
/// // {"body":{"account":{"__op":"Decrement","amount":50}},"method":"PUT","path":"/1.1/classes/Account/558e20cbe4b060308e3eb36c","where":{"amount":{"$gte":100}}}
/// ```
public enum RESTEmitter {
    /// The API version prefix of every path.
    public static let prefix = "/1.1"

    /// The request of a write (bind it first: placeholders, `current_timestamp()`).
    ///
    /// - Parameters:
    ///   - statement: a bound insert, update or delete.
    ///   - dialect: the where-JSON dialect of the `where` condition.
    /// - Throws: `.binding` for an unbound `?` or `current_timestamp()`;
    ///   `.unsupported` for a `select` (translate queries `--to where`) or a
    ///   condition the dialect cannot express.
    public static func emit(_ statement: Statement, dialect: WhereJSONDialect = .leancloud) throws(QueryError) -> Value {
        do throws(QueryError) {
            return try request(statement, dialect: dialect)
        } catch {
            throw statement.source.map { error.withSource($0) } ?? error
        }
    }

    private static func request(_ statement: Statement, dialect: WhereJSONDialect) throws(QueryError) -> Value {
        switch statement {
        case .select(let q):
            throw QueryError(.unsupported, "a select is a query, not a write: translate it --to where (its REST request parameters)", range: q.range)
        case .insert(let s):
            let classPath = prefix + "/classes/" + percentEncoded(s.className)
            var creates: [Value] = []
            for i in s.rows.indices {
                var body: [String: Value] = [:]
                for (column, t) in zip(s.columns, s.rows[i]) { body[column.name] = try value(t, at: s.range) }
                creates.append(.object(["method": "POST", "path": .string(classPath), "body": .object(body)]))
            }
            if creates.count == 1 { return creates[0] }
            return .object(["method": "POST", "path": .string(prefix + "/batch"), "body": .object(["requests": .array(creates)])])
        case .update(let s):
            var body: [String: Value] = [:]
            for a in s.assignments {
                switch a.change {
                case .set(let t): body[a.key.name] = try value(t, at: a.range)
                case .operation(let op): body[a.key.name] = try operation(op, at: a.range)
                }
            }
            var o = try target(s.className, s.objectId, s.condition, idRange: s.objectIdRange, dialect: dialect)
            o["method"] = "PUT"
            o["body"] = .object(body)
            return .object(o)
        case .delete(let s):
            var o = try target(s.className, s.objectId, s.condition, idRange: s.objectIdRange, dialect: dialect)
            o["method"] = "DELETE"
            return .object(o)
        }
    }

    /// `path` (`/1.1/classes/T/<id>`) and `where` of an update or delete.
    private static func target(_ className: String, _ objectId: Term, _ condition: Condition?, idRange: SourceRange?,
                               dialect: WhereJSONDialect) throws(QueryError) -> [String: Value] {
        guard case .string(let id) = try value(objectId, at: idRange) else {
            throw QueryError(.invalidValue, "objectId must be a string", range: idRange)
        }
        var o: [String: Value] = ["path": .string(prefix + "/classes/" + percentEncoded(className) + "/" + percentEncoded(id))]
        if let condition {
            let request = try WhereJSONEmitter.emit(Query(className: className, condition: condition), dialect: dialect)
            if let w = request["where"] { o["where"] = w }
        }
        return o
    }

    /// `{"__op": "Increment", "amount": 1}`.
    static func operation(_ op: FieldOperation, at r: SourceRange?) throws(QueryError) -> Value {
        var o: [String: Value] = ["__op": .string(op.kind.rawValue)]
        if let name = op.kind.argumentName, let arg = op.argument { o[name] = try value(arg, at: op.range ?? r) }
        return .object(o)
    }

    /// A bound term's value.
    static func value(_ t: Term, at r: SourceRange?) throws(QueryError) -> Value {
        switch t {
        case .value(let v): return v
        case .placeholder(let i, let pr):
            throw QueryError(.binding, "the \(TypedFunctions.ordinal(i + 1)) '?' has no value (give the values with --params)", range: pr ?? r)
        case .call(_, _, let cr):
            throw QueryError(.binding, "this call has a '?' without a value (give the values with --params)", range: cr ?? r)
        case .currentTimestamp, .relativeTime:
            throw QueryError(.binding, "current_timestamp() has no value until the statement is bound with the current time", range: r)
        case .array(let items):
            var out: [Value] = []
            for x in items { out.append(try value(x, at: r)) }
            return .array(out)
        }
    }

    /// `s` with every byte outside `A-Z a-z 0-9 - . _ ~ : @` as `%XX`.
    public static func percentEncoded(_ s: String) -> String {
        var out: [UInt8] = []
        let hex = Array("0123456789ABCDEF".utf8)
        for b in s.utf8 {
            switch b {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
                 UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"), UInt8(ascii: ":"), UInt8(ascii: "@"):
                out.append(b)
            default:
                out += [UInt8(ascii: "%"), hex[Int(b >> 4)], hex[Int(b & 0xF)]]
            }
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// The text of a percent-encoded path segment, or `nil` when an escape
    /// is malformed or the bytes are not UTF-8.
    public static func percentDecoded(_ s: String) -> String? { percentDecoded(Substring(s)) }

    /// The text of percent-encoded `s` (with `plusAsSpace`, a query string's
    /// `+` is a space), or `nil` when an escape is malformed or the bytes are
    /// not UTF-8.
    ///
    /// ```swift
    /// RESTEmitter.percentDecoded("a%2Fb+c", plusAsSpace: true)  // "a/b c"
    /// RESTEmitter.percentDecoded("%zz")                          // nil
    /// ```
    public static func percentDecoded(_ s: Substring, plusAsSpace: Bool = false) -> String? {
        let u = s.utf8
        // Most path segments and parameter names need no decoding.
        if !u.contains(where: { $0 == UInt8(ascii: "%") || (plusAsSpace && $0 == UInt8(ascii: "+")) }) { return String(s) }
        var out: [UInt8] = []
        out.reserveCapacity(u.count)
        var i = u.startIndex
        while i != u.endIndex {
            let b = u[i]
            if b == UInt8(ascii: "%") {
                let h = u.index(after: i)
                guard h != u.endIndex, u.index(after: h) != u.endIndex, let high = hexDigit(u[h]), let low = hexDigit(u[u.index(after: h)])
                else { return nil }
                out.append(high << 4 | low)
                i = u.index(h, offsetBy: 2)
            } else {
                out.append(plusAsSpace && b == UInt8(ascii: "+") ? UInt8(ascii: " ") : b)
                i = u.index(after: i)
            }
        }
        return String(validating: out, as: UTF8.self)
    }

    private static func hexDigit(_ b: UInt8) -> UInt8? {
        switch b {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): b - UInt8(ascii: "0")
        case UInt8(ascii: "A")...UInt8(ascii: "F"): b - UInt8(ascii: "A") + 10
        case UInt8(ascii: "a")...UInt8(ascii: "f"): b - UInt8(ascii: "a") + 10
        default: nil
        }
    }
}
