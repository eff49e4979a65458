/// Reads a LeanCloud REST write request, as ``RESTEmitter`` prints it, back
/// into a ``Statement``: `POST /1.1/classes/T` and `POST /1.1/batch` (of
/// creates in one class with the same keys) are inserts, `PUT
/// /1.1/classes/T/<id>` an update, `DELETE /1.1/classes/T/<id>` a delete;
/// `where` is the extra condition. The `/1.1` prefix is optional.
///
/// JSON objects are unordered: insert columns and update keys come back in
/// the code-point order of their names (the order ``JSONWriter`` prints).
/// Errors name the JSON path of the bad part and point into the text.
///
/// ```swift
/// let s = try RESTReader.read(#"{"method":"PUT","path":"/1.1/classes/Account/a1","body":{"n":{"__op":"Increment","amount":1}},"where":{"n":{"$lt":10}}}"#)
/// try CQLFormatter.format(s)
/// // update Account set n = op('Increment', {'amount': 1}) where objectId = 'a1' and n < 10
/// try RESTReader.read(#"{"method":"PATCH","path":"/1.1/classes/T/a1"}"#)
/// // 1:11: method: expected POST, PUT or DELETE, found 'PATCH'
/// ```
public enum RESTReader {
    public static func read(_ text: String) throws(QueryError) -> Statement {
        let (value, locations) = try JSONReader.parseLocated(text)
        let reading = RESTReading(json: WhereJSONReading(locations: locations, source: text))
        switch try reading.request(value, path: "") {
        case .select(var q): q.source = text; return .select(q)
        case .insert(var s): s.source = text; return .insert(s)
        case .update(var s): s.source = text; return .update(s)
        case .delete(var s): s.source = text; return .delete(s)
        }
    }

    /// Reads a request already parsed (as a server receives it: method and
    /// path from the request line, body and `where` from their JSON). Errors
    /// name the JSON path of the bad part (`body.n`, `where.score.$gt`) but
    /// carry no range.
    ///
    /// ```swift
    /// try RESTReader.read(.object(["method": "DELETE", "path": "/1.1/classes/T/a1"]))
    /// // delete from T where objectId = 'a1'
    /// ```
    public static func read(_ value: Value) throws(QueryError) -> Statement {
        try RESTReading(json: WhereJSONReading(locations: [:], source: nil)).request(value, path: "")
    }

    /// A create as a server has it already routed: the class from its path,
    /// the body as JSON — the statement `read` makes of
    /// `{"method":"POST","path":"/1.1/classes/<className>","body":body}`,
    /// without a path to print and read again.
    ///
    /// ```swift
    /// try RESTReader.create(className: "Note", body: ["text": "hi"])
    /// // insert into Note (text) values ('hi')
    /// ```
    public static func create(className: String, body: [String: Value]) throws(QueryError) -> Statement {
        let row = try RESTReading(json: WhereJSONReading(locations: [:], source: nil)).createBody(.object(body), "body")
        return .insert(InsertStatement(className: className, columns: row.map { NamedKey($0.key) }, rows: [row.map(\.value)], range: nil))
    }

    /// An update of one object as a server has it already routed (the
    /// class and objectId as its path decoded them): what `read` makes of
    /// `{"method":"PUT","path":...,"body":body,"where":condition}`.
    ///
    /// ```swift
    /// try RESTReader.update(className: "T", objectId: "a1", body: ["n": .object(["__op": "Increment", "amount": 1])])
    /// // update T set n = op('Increment', {'amount': 1}) where objectId = 'a1'
    /// ```
    public static func update(className: String, objectId: String, body: [String: Value], where condition: Value? = nil)
        throws(QueryError) -> Statement
    {
        let reading = RESTReading(json: WhereJSONReading(locations: [:], source: nil))
        let assignments = try reading.updateBody(.object(body), "body")
        let c = try condition.flatMap { (w) throws(QueryError) in try reading.whereCondition(w, "where", className: className) }
        return .update(UpdateStatement(className: className, assignments: assignments, objectId: .value(.string(objectId)), condition: c,
                                       range: nil, objectIdRange: nil))
    }

    /// A delete of one object as a server has it already routed: what
    /// `read` makes of `{"method":"DELETE","path":...,"where":condition}`.
    ///
    /// ```swift
    /// try RESTReader.delete(className: "T", objectId: "a1")   // delete from T where objectId = 'a1'
    /// ```
    public static func delete(className: String, objectId: String, where condition: Value? = nil) throws(QueryError) -> Statement {
        let reading = RESTReading(json: WhereJSONReading(locations: [:], source: nil))
        let c = try condition.flatMap { (w) throws(QueryError) in try reading.whereCondition(w, "where", className: className) }
        return .delete(DeleteStatement(className: className, objectId: .value(.string(objectId)), condition: c, range: nil, objectIdRange: nil))
    }
}

struct RESTReading {
    let json: WhereJSONReading

    func fail(_ path: String, _ message: String, kind: QueryError.Kind = .syntax) -> QueryError {
        json.fail(kind, path, message)
    }

    func object(_ v: Value?, _ path: String, what: String) throws(QueryError) -> [String: Value] {
        guard let v else { throw fail(path, "missing '\(path.split(separator: ".").last ?? "")': \(what)") }
        guard case .object(let o) = v else { throw json.expected(what, path, found: v) }
        return o
    }

    func request(_ value: Value, path: String) throws(QueryError) -> Statement {
        let o = try object(value, path, what: "a request object {\"method\", \"path\", \"body\", \"where\"}")
        for (key, _) in WhereJSONReading.sortedMembers(o) where !["method", "path", "body", "where"].contains(key) {
            throw fail(WhereJSONReading.join(path, key), "unknown request member '\(key)' (a request has method, path, body and where)")
        }
        let methodPath = WhereJSONReading.join(path, "method")
        guard case .string(let method)? = o["method"] else {
            throw fail(o["method"] == nil ? path : methodPath, "expected a string method (POST, PUT or DELETE)")
        }
        let (segments, urlPath) = try route(o["path"], WhereJSONReading.join(path, "path"))
        let bodyPath = WhereJSONReading.join(path, "body"), wherePath = WhereJSONReading.join(path, "where")
        switch (method.uppercased(), segments.count) {
        case ("POST", 1) where segments[0] == "batch":
            if o["where"] != nil { throw fail(wherePath, "a batch request has no 'where'") }
            return .insert(try batch(o["body"], bodyPath))
        case ("POST", 2) where segments[0] == "classes":
            if o["where"] != nil { throw fail(wherePath, "a create request has no 'where'") }
            let row = try createBody(o["body"], bodyPath)
            return .insert(InsertStatement(className: segments[1], columns: row.map { NamedKey($0.key) }, rows: [row.map(\.value)],
                                           range: json.exactRange(path)))
        case ("PUT", 3) where segments[0] == "classes":
            let assignments = try updateBody(o["body"], bodyPath)
            let condition = try o["where"].flatMap { (w) throws(QueryError) in try whereCondition(w, wherePath, className: segments[1]) }
            return .update(UpdateStatement(className: segments[1], assignments: assignments, objectId: .value(.string(segments[2])),
                                           condition: condition, range: json.exactRange(path), objectIdRange: json.exactRange(urlPath)))
        case ("DELETE", 3) where segments[0] == "classes":
            if let body = o["body"], body != .object([:]) { throw fail(bodyPath, "a DELETE request has no body") }
            let condition = try o["where"].flatMap { (w) throws(QueryError) in try whereCondition(w, wherePath, className: segments[1]) }
            return .delete(DeleteStatement(className: segments[1], objectId: .value(.string(segments[2])), condition: condition,
                                           range: json.exactRange(path), objectIdRange: json.exactRange(urlPath)))
        case ("POST", _), ("PUT", _), ("DELETE", _):
            throw fail(urlPath, "\(method.uppercased()) needs the path \(method.uppercased() == "POST" ? "/1.1/classes/<Class> or /1.1/batch" : "/1.1/classes/<Class>/<objectId>")")
        default:
            throw fail(methodPath, "expected POST, PUT or DELETE, found '\(CQLToken.clip(method))'")
        }
    }

    /// The decoded segments after `/1.1/` (or `/`): `classes`, `T`, `id`.
    func route(_ v: Value?, _ path: String) throws(QueryError) -> ([String], String) {
        guard case .string(let s)? = v else { throw fail(v == nil ? "" : path, "expected a string 'path' (/1.1/classes/<Class>[/<objectId>])") }
        var rest = Substring(s)
        if rest.hasPrefix(RESTEmitter.prefix + "/") { rest = rest.dropFirst(RESTEmitter.prefix.count) }
        guard rest.hasPrefix("/") else { throw fail(path, "a path starts with '/1.1/' or '/', found '\(CQLToken.clip(s))'") }
        var segments: [String] = []
        for raw in rest.dropFirst().split(separator: "/", omittingEmptySubsequences: false) {
            guard !raw.isEmpty else { throw fail(path, "empty segment in the path '\(CQLToken.clip(s))'") }
            guard let decoded = RESTEmitter.percentDecoded(String(raw)) else {
                throw fail(path, "malformed percent escape in the path '\(CQLToken.clip(s))'")
            }
            segments.append(decoded)
        }
        return (segments, path)
    }

    /// A create body: keys in code-point order with their values.
    func createBody(_ v: Value?, _ path: String) throws(QueryError) -> [(key: String, value: Term)] {
        let o = try object(v, path, what: "the object to create")
        var row: [(key: String, value: Term)] = []
        for (key, raw) in WhereJSONReading.sortedMembers(o) {
            let at = WhereJSONReading.join(path, key)
            try checkKey(key, at)
            if case .object(let m) = raw, m["__op"] != nil {
                throw fail(at, "an operation ('__op') in a create body cannot be expressed as a CQL insert")
            }
            row.append((key, .value(try decoded(raw, at))))
        }
        return row
    }

    /// `{"requests": [{"method": "POST", "path": "/1.1/classes/T", "body": {...}}, ...]}`:
    /// creates in one class with the same keys.
    func batch(_ v: Value?, _ path: String) throws(QueryError) -> InsertStatement {
        let o = try object(v, path, what: "{\"requests\": [...]}")
        let requestsPath = WhereJSONReading.join(path, "requests")
        guard case .array(let requests)? = o["requests"], !requests.isEmpty else {
            throw fail(o["requests"] == nil ? path : requestsPath, "a batch body holds a non-empty array 'requests'")
        }
        var insert: InsertStatement?
        for (i, r) in requests.enumerated() {
            let at = WhereJSONReading.join(requestsPath, index: i)
            guard case .insert(let one) = try request(r, path: at), one.rows.count == 1 else {
                throw fail(at, "a batch is read as one insert: every request must be a create (POST /1.1/classes/<Class>)")
            }
            if var all = insert {
                guard one.className == all.className, one.columns == all.columns else {
                    throw fail(at, "a batch is read as one insert: every create must be in the class '\(all.className)' with the keys \(all.columns.map(\.name).joined(separator: ", "))")
                }
                all.rows.append(one.rows[0])
                insert = all
            } else {
                insert = one
            }
        }
        insert!.range = json.exactRange(path)
        return insert!
    }

    /// An update body: keys in code-point order; `{"__op": ...}` objects are operations.
    func updateBody(_ v: Value?, _ path: String) throws(QueryError) -> [Assignment] {
        let o = try object(v, path, what: "the keys to update")
        guard !o.isEmpty else { throw fail(path, "an update body sets at least one key") }
        var out: [Assignment] = []
        for (key, raw) in WhereJSONReading.sortedMembers(o) {
            let at = WhereJSONReading.join(path, key)
            try checkKey(key, at)
            let r = json.exactRange(at)
            if case .object(let m) = raw, let op = m["__op"] {
                out.append(Assignment(NamedKey(key, range: r), .operation(try operation(op, m, at)), range: r))
            } else {
                out.append(Assignment(NamedKey(key, range: r), .set(.value(try decoded(raw, at))), range: r))
            }
        }
        return out
    }

    /// `{"__op": "Increment", "amount": 1}`.
    func operation(_ name: Value, _ m: [String: Value], _ path: String) throws(QueryError) -> FieldOperation {
        let opPath = WhereJSONReading.join(path, "__op")
        guard case .string(let n) = name, let kind = FieldOperation.Kind.named(n) else {
            throw fail(opPath, "unknown op \(OperandChecks.describe(name)); the ops are \(FieldOperation.Kind.allCases.map(\.rawValue).joined(separator: ", "))")
        }
        for (key, _) in WhereJSONReading.sortedMembers(m) where key != "__op" && key != kind.argumentName {
            throw fail(WhereJSONReading.join(path, key), "the op '\(n)' takes \(kind.argumentName.map { "only '\($0)'" } ?? "no argument"), found '\(key)'")
        }
        guard let argName = kind.argumentName else { return FieldOperation(kind, range: json.exactRange(path)) }
        let argPath = WhereJSONReading.join(path, argName)
        guard let raw = m[argName] else { throw fail(path, "the op '\(n)' needs '\(argName)' (\(kind.argumentDescription))") }
        let v = try decoded(raw, argPath)
        do {
            return FieldOperation(kind, argument: .value(try WriteChecks.argument(kind, v, range: nil)), range: json.exactRange(path))
        } catch {
            throw fail(argPath, error.message, kind: error.kind)
        }
    }

    func whereCondition(_ w: Value, _ path: String, className: String) throws(QueryError) -> Condition? {
        try json.readWhere(w, path: path, scope: WhereJSONReading.Scope(className: className, depth: 0))
    }

    func checkKey(_ key: String, _ path: String) throws(QueryError) {
        do { try WriteChecks.writableKey(key, range: nil) } catch { throw fail(path, error.message, kind: error.kind) }
    }

    /// A JSON value with its REST typed values decoded.
    func decoded(_ raw: Value, _ path: String) throws(QueryError) -> Value {
        do {
            return try raw.decodingTypedValues()
        } catch {
            throw fail(error.path.map { WhereJSONReading.join(path, $0) } ?? path, error.message, kind: error.kind)
        }
    }
}
