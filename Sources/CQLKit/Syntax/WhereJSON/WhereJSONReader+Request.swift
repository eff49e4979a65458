/// Request objects: `{"className":..,"where":..,"order":..,"limit":..,...}`,
/// at the top level, as subqueries (`$inQuery`, `$select.query`) and as the
/// elements of `$or`/`$and`/`$nor` that wrap their condition in `where`.
extension WhereJSONReading {
    enum RequestKind {
        /// The document itself: every request parameter.
        case top
        /// `$inQuery` / `$select.query`: needs `className`; no `count`.
        case subquery
        /// An element of `$or`/`$and`/`$nor`: only `where` (and the same
        /// `className`); compound sub-queries carry no limit/skip/order.
        case compound
    }

    static let requestParameters = ["where", "order", "limit", "skip", "keys", "include", "count", "returnACL", "className"]

    func readRequest(_ o: [String: Value], path: String, kind: RequestKind, scope: Scope) throws(QueryError) -> Query {
        var query = Query(className: scope.className, range: exactRange(path))
        var count = false
        var whereMember: (path: String, value: Value)?
        for (key, value) in Self.sortedMembers(o) {
            let p = Self.join(path, key)
            switch key {
            case "where":
                whereMember = (p, value)
            case "className":
                query.className = try readClassName(value, path: p, kind: kind, given: scope.className)
            case "order", "limit", "skip", "keys", "include", "count", "returnACL":
                if kind == .compound {
                    throw fail(.syntax, p, "a compound sub-query ($or/$and/$nor element) carries no '\(key)'")
                }
                if kind == .subquery && (key == "count" || key == "returnACL") {
                    throw fail(.syntax, p, "a subquery carries no '\(key)'")
                }
                switch key {
                case "order": query.order = try readOrder(value, path: p)
                case "limit": query.limit = .value(.int(try readNonNegativeInteger(value, path: p)))
                case "skip": query.skip = .value(.int(try readNonNegativeInteger(value, path: p)))
                case "keys": query.keys = try readKeys(value, path: p)
                case "include": query.includes = try readPathList(value, path: p, what: "include path")
                case "returnACL": query.returnACL = try readReturnACL(value, path: p)
                default: count = try readCount(value, path: p)
                }
            default:
                let known = Self.requestParameters.joined(separator: ", ")
                throw fail(.syntax, p, "unknown request parameter '\(key)' (expected one of \(known))")
            }
        }
        if kind == .subquery && query.className.isEmpty {
            throw fail(.syntax, path, "a subquery needs a 'className'")
        }
        if let w = whereMember {
            // The class is known only now, and the condition's subqueries
            // compare with it (compound sub-queries must stay on this class).
            query.condition = try readWhere(w.value, path: w.path, scope: Scope(className: query.className, depth: scope.depth))
        }
        if count {
            // `count=1&limit=0` asks for the number only; the AST says so with
            // `.only` and no limit (the emitter writes `limit:0` back).
            if case .value(.int(0))? = query.limit {
                query.count = .only
                query.limit = nil
            } else {
                query.count = .withResults
            }
        }
        return query
    }

    private func readClassName(_ value: Value, path: String, kind: RequestKind, given: String) throws(QueryError) -> String {
        guard case .string(let c) = value else { throw expected("a class name string", path, found: value) }
        if c.isEmpty { throw fail(.syntax, path, "empty class name") }
        switch kind {
        case .top where !given.isEmpty && c != given:
            throw fail(.invalidValue, path, "className '\(c)' conflicts with the class '\(given)' the query is for")
        case .compound where c != given:
            throw fail(.invalidValue, path, "a compound sub-query must be on the class '\(given)', found '\(c)'")
        default:
            return c
        }
    }

    /// `"createdAt,-score"` or `["createdAt", "-score"]`; `+` is accepted as
    /// an explicit ascending mark.
    func readOrder(_ value: Value, path: String) throws(QueryError) -> [OrderKey] {
        var keys: [OrderKey] = []
        for (item, p) in try listItems(value, path: path, what: "an order string like \"-score,name\"") {
            var name = Substring(item)
            var descending = false
            if name.hasPrefix("-") {
                descending = true
                name = name.dropFirst()
            } else if name.hasPrefix("+") {
                name = name.dropFirst()
            }
            keys.append(OrderKey(try fieldPath(String(name), p, what: "order key"), descending: descending))
        }
        return keys
    }

    /// `"a,b.c,-author"` or an array of such strings: `-` excludes the key.
    func readKeys(_ value: Value, path: String) throws(QueryError) -> [SelectedKey] {
        var keys: [SelectedKey] = []
        for (item, p) in try listItems(value, path: path, what: "a key list like \"name,-author\"") {
            let excluded = item.hasPrefix("-")
            let name = excluded ? String(item.dropFirst()) : item
            keys.append(SelectedKey(try fieldPath(name, p, what: "key"), excluded: excluded))
        }
        return keys
    }

    func readPathList(_ value: Value, path: String, what: String) throws(QueryError) -> [FieldPath] {
        var paths: [FieldPath] = []
        for (item, p) in try listItems(value, path: path, what: "a comma-separated list like \"post,post.author\"") {
            paths.append(try fieldPath(item, p, what: what))
        }
        return paths
    }

    /// The comma-separated items of a string, or of each string of an array,
    /// trimmed of spaces, each with the JSON path it came from. `""` is the
    /// empty list; an empty item between commas is an error.
    private func listItems(_ value: Value, path: String, what: String) throws(QueryError) -> [(String, String)] {
        var strings: [(String, String)] = []
        switch value {
        case .string(let s):
            if s.isEmpty { return [] }
            strings = [(s, path)]
        case .array(let items):
            for (i, item) in items.enumerated() {
                let p = Self.join(path, index: i)
                guard case .string(let s) = item else { throw expected("a string", p, found: item) }
                strings.append((s, p))
            }
        default:
            throw expected(what, path, found: value)
        }
        var out: [(String, String)] = []
        for (s, p) in strings {
            for piece in s.split(separator: ",", omittingEmptySubsequences: false) {
                var trimmed = piece
                while trimmed.first == " " { trimmed = trimmed.dropFirst() }
                while trimmed.last == " " { trimmed = trimmed.dropLast() }
                let item = String(trimmed)
                if item.isEmpty || item == "-" || item == "+" {
                    throw fail(.syntax, p, "empty item in '\(s)'")
                }
                out.append((item, p))
            }
        }
        return out
    }

    /// `limit` and `skip`: a non-negative integer, or its decimal text (REST
    /// query parameters arrive as strings), or an integral double.
    func readNonNegativeInteger(_ value: Value, path: String) throws(QueryError) -> Int64 {
        let n: Int64?
        switch value {
        case .int(let i): n = i
        case .double(let d): n = Int64(exactly: d)
        case .string(let s) where !s.isEmpty && s.utf8.allSatisfy({ $0 >= 48 && $0 <= 57 }): n = Int64(s)
        default: n = nil
        }
        guard let n, n >= 0 else {
            throw fail(.invalidValue, path, "expected a non-negative integer, found \(JSONWriter.string(value.restJSON))")
        }
        return n
    }

    /// `returnACL`: the LeanCloud SDKs send the string `"true"`; the boolean
    /// `true` (and `false` / `"false"`) mean the same. Anything else is an
    /// error rather than a guess.
    private func readReturnACL(_ value: Value, path: String) throws(QueryError) -> Bool {
        switch value {
        case .bool(true), .string("true"): return true
        case .bool(false), .string("false"): return false
        default:
            throw fail(.invalidValue, path, "expected \"true\" or \"false\" (or a boolean), found \(JSONWriter.string(value))")
        }
    }

    /// `count`: `1`, `true` or `"1"` asks for the count; `0`, `false`, `"0"` not.
    private func readCount(_ value: Value, path: String) throws(QueryError) -> Bool {
        switch value {
        case .int(1), .bool(true), .string("1"), .string("true"): return true
        case .int(0), .bool(false), .string("0"), .string("false"): return false
        default:
            throw fail(.invalidValue, path, "expected 1 or 0 (or true/false), found \(JSONWriter.string(value))")
        }
    }
}
