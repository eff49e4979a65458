/// `ql` text in and out of a ``UsergridQuery``: the parser reads it, the
/// canonical formatter writes it.
extension UsergridQuery {
    /// Adds a whole `ql` query, parsed with ``UsergridParser``: its condition
    /// becomes one clause (as if parenthesized, so `not()`, `and()` and
    /// `or()` treat it like any other clause), its `order by` keys are
    /// appended, and its `select` projection and `direct` names are taken.
    /// The builder's limit and cursor are kept (the SDK dropped them).
    ///
    /// ```swift
    /// try UsergridQuery("pets").fromString("color = 'blue' or age > 3 order by name").limit(5).build()
    /// // where-JSON (parse): {"className":"pets","limit":5,"order":"name","where":{"$or":[
    /// //   {"color":{"$options":"i","$regex":"^\\Qblue\\E$"}},{"age":{"$gt":3}}]}}
    /// ```
    ///
    /// A syntax error in `ql` is thrown by ``build()``, positioned in `ql`.
    public func fromString(_ ql: String) -> UsergridQuery {
        var q = self
        guard q.error == nil else { return q }
        do {
            // As written: the builder applies the request's meaning in build().
            let (parsed, _) = try UsergridParser.parseWritten(ql, literal: literal)
            if let c = parsed.condition { q.items.append(.clause(c)) }
            q.order.append(contentsOf: parsed.order)
            if !parsed.keys.isEmpty { q.keys = parsed.keys }
            if !parsed.direct.isEmpty { q.direct = parsed.direct }
        } catch {
            q.record(error)
        }
        return q
    }

    /// The canonical `ql` text (``UsergridFormatter``), without limit and
    /// cursor, which travel as URL parameters.
    ///
    /// `UsergridQuery("pets").not().eq("name", value: "O'Brien").desc("age").queryString()`
    /// → `select * where not name = 'O\'Brien' order by age desc`
    public func queryString() throws(QueryError) -> String {
        try UsergridFormatter.format(build(), literal: literal)
    }

    /// The URL query of a Usergrid request: `ql`, `limit` and `cursor`, each
    /// percent-encoded (everything but `A-Z a-z 0-9 - . _ ~`), so a `&` or
    /// `#` in a value cannot cut the query short.
    ///
    /// `UsergridQuery("pets").eq("name", value: "A&B").limit(5).urlQuery()`
    /// → `ql=select%20%2A%20where%20name%20%3D%20%27A%26B%27&limit=5`
    public func urlQuery() throws(QueryError) -> String {
        var out = "ql=" + Self.percentEncoded(try queryString())
        if let limit { out += "&limit=\(limit)" }
        if let cursor { out += "&cursor=" + Self.percentEncoded(cursor) }
        return out
    }

    static func percentEncoded(_ text: String) -> String {
        let hex = Array("0123456789ABCDEF".utf8)
        var out: [UInt8] = []
        out.reserveCapacity(text.utf8.count)
        for b in text.utf8 {
            switch b {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"),
                UInt8(ascii: "~"):
                out.append(b)
            default:
                out.append(UInt8(ascii: "%"))
                out.append(hex[Int(b >> 4)])
                out.append(hex[Int(b & 0xF)])
            }
        }
        return String(decoding: out, as: UTF8.self)
    }
}
