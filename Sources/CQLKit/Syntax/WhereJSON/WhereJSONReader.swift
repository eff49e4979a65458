/// The front end for REST where-JSON: reads a LeanCloud / Parse / MongoDB
/// query document into the common ``Query`` AST.
///
/// Three input shapes are accepted:
/// - a **request object**, recognised by a `where` or `className` key; its
///   other keys must be request parameters (`where order limit skip keys
///   include count className`), anything else is an error;
/// - a bare **condition object** (`{"score":{"$gte":1000}}`);
/// - a JSON **array** of condition objects, read as their conjunction.
///
/// The operators of all three dialects are understood (leancloud, parse and
/// mongo), and every error names the JSON path of the bad part and points
/// into the text:
///
/// ```swift
/// let q = try WhereJSONReader.read(
///     #"{"className":"GameScore","where":{"score":{"$gte":1000}},"order":"-score","limit":3}"#)
/// q.className   // "GameScore"
/// q.condition?.predicate   // .compare("score", .greaterThanOrEqual, .value(.int(1000)))
/// q.order       // [OrderKey("score", descending: true)]
/// q.limit       // .value(.int(3))
///
/// do { _ = try WhereJSONReader.read(#"{"where":{"score":{"$in":5}}}"#) }
/// catch { print(error.shortDescription) }
/// // 1:26: where.score.$in: expected an array, found an integer
/// ```
///
/// Request parameters: `order` is `"createdAt,-score"` or an array of keys
/// (`-` descending, `+` ascending); `limit`/`skip` are non-negative integers,
/// also as decimal strings (REST query parameters are strings); `keys` is
/// `"a,b.c,-author"` (`-` excludes) or an array; `include` likewise; `count`
/// is `1`/`true`/`"1"` (or `0`/`false`/`"0"`), and with `limit` 0 it means
/// the count only (``CountMode/only``, no limit in the AST).
///
/// Geo points may be REST GeoPoints or MongoDB `[longitude, latitude]`;
/// `$maxDistance`/`$minDistance` are radians, except with a GeoJSON
/// `$geometry` point, where they are meters (as in MongoDB).
///
/// JSON objects are unordered, so the conditions of one object come out
/// in the sorted order of their keys (UTF-8 code points, the order
/// ``JSONWriter`` prints), which keeps the AST deterministic.
public enum WhereJSONReader {
    /// How deeply `$or`/`$and`/`$nor`, `$not`, `$elemMatch` and subqueries
    /// may nest before the reader gives up with a `.limit` error.
    static let maxNesting = 100

    /// Reads a where-JSON document from its text.
    ///
    /// - Parameters:
    ///   - text: a request object, a condition object or an array of conditions.
    ///   - className: the class queried when the document names none (e.g.
    ///     from the REST URL `/classes/GameScore`); `""` means not given. A
    ///     request whose `className` differs from a non-empty `className` is
    ///     an error.
    /// - Throws: ``QueryError`` with the JSON path of the bad part, its byte
    ///   range in `text`, and `text` as source.
    public static func read(_ text: String, className: String = "") throws(QueryError) -> Query {
        let (value, locations) = try JSONReader.parseLocated(text)
        let reading = WhereJSONReading(locations: locations, source: text)
        var query = try reading.readDocument(value, className: className)
        query.source = text
        return query
    }

    /// Reads an already-parsed where-JSON document. Typed values may be given
    /// in their REST form or as typed ``Value`` cases. Errors carry the JSON
    /// path but no range.
    ///
    /// ```swift
    /// try WhereJSONReader.read(.object(["name": "dennis"]), className: "GameScore").condition?.predicate
    /// // .compare("name", .equal, .value(.string("dennis")))
    /// ```
    public static func read(_ value: Value, className: String = "") throws(QueryError) -> Query {
        try WhereJSONReading(locations: [:], source: nil).readDocument(value, className: className)
    }
}

/// The state of one read: where each JSON path lies in the text, for errors
/// and node ranges.
struct WhereJSONReading {
    let locations: [String: SourceRange]
    let source: String?

    /// What is being read, passed down the recursion: the class the
    /// conditions are about and how deep the nesting is.
    struct Scope {
        var className: String
        var depth: Int
    }

    // MARK: Paths

    /// `path` + `.key`, spelled exactly as ``JSONReader/parseLocated(_:maxDepth:)`` records it.
    static func join(_ path: String, _ key: String) -> String {
        path.isEmpty || key.hasPrefix("[") ? path + key : path + "." + key
    }

    static func join(_ path: String, index: Int) -> String { path + "[\(index)]" }

    /// The range of the value at `path`, or of its nearest recorded ancestor
    /// (a missing key points at the object that lacks it).
    func range(_ path: String) -> SourceRange? {
        if locations.isEmpty { return nil }
        var p = Substring(path)
        while true {
            if let r = locations[String(p)] { return r }
            if p.isEmpty { return nil }
            if let cut = p.lastIndex(where: { $0 == "." || $0 == "[" }) {
                p = p[..<cut]
            } else {
                p = ""
            }
        }
    }

    /// The exact range of the value at `path`, for AST nodes.
    func exactRange(_ path: String) -> SourceRange? { locations[path] }

    func fail(_ kind: QueryError.Kind, _ path: String, _ message: String) -> QueryError {
        QueryError(kind, message, range: range(path), path: path.isEmpty ? nil : path, source: source)
    }

    /// "expected X, found <type>" as a syntax error at `path`.
    func expected(_ what: String, _ path: String, found: Value) -> QueryError {
        fail(.syntax, path, "expected \(what), found \(found.typeDescription)")
    }

    /// The scope one level deeper, or a `.limit` error.
    func deeper(_ scope: Scope, _ path: String) throws(QueryError) -> Scope {
        guard scope.depth < WhereJSONReader.maxNesting else {
            throw fail(.limit, path, "conditions nested deeper than \(WhereJSONReader.maxNesting) levels")
        }
        return Scope(className: scope.className, depth: scope.depth + 1)
    }

    /// Object members in the order of their keys' UTF-8 code points (the
    /// order JSONWriter prints), so the AST does not depend on hashing.
    static func sortedMembers(_ o: [String: Value]) -> [(key: String, value: Value)] {
        o.map { (key: $0.key, value: $0.value) }.sorted { $0.key.utf8.lexicographicallyPrecedes($1.key.utf8) }
    }

    /// A dotted key (`post.author.name`) with no empty component.
    func fieldPath(_ dotted: String, _ path: String, what: String = "key") throws(QueryError) -> FieldPath {
        let fp = FieldPath(dotted: dotted)
        if dotted.isEmpty { throw fail(.syntax, path, "empty \(what)") }
        for c in fp.components where c.isEmpty {
            throw fail(.syntax, path, "invalid \(what) '\(dotted)': empty path component")
        }
        return fp
    }

    // MARK: Documents

    func readDocument(_ value: Value, className: String) throws(QueryError) -> Query {
        let scope = Scope(className: className, depth: 0)
        switch value {
        case .object(let o) where o["where"] != nil || o["className"] != nil:
            return try readRequest(o, path: "", kind: .top, scope: scope)
        case .object, .array:
            let condition = try readWhere(value, path: "", scope: scope)
            return Query(className: className, condition: condition, range: exactRange(""))
        default:
            throw expected("a request object, a condition object or an array of conditions", "", found: value)
        }
    }
}
