/// A node of the condition tree (`where`): a predicate and the source text it
/// came from.
///
/// Equality and hashing ignore `range`. Build trees with the smart
/// constructors (``and(_:range:)``, ``or(_:range:)``, ``not(_:range:)``),
/// which flatten nested AND/OR but never change meaning.
///
/// ```swift
/// let c = Condition.and([
///     Condition(.exists("name", true)),
///     Condition(.compare("score", .greaterThan, .value(.int(80)))),
/// ])
/// // where-JSON: {"name":{"$exists":true},"score":{"$gt":80}}
/// ```
public struct Condition: Hashable, Sendable {
    public var predicate: Predicate
    public var range: SourceRange?

    public init(_ predicate: Predicate, range: SourceRange? = nil) {
        self.predicate = predicate
        self.range = range
    }

    public static func == (a: Condition, b: Condition) -> Bool { a.predicate == b.predicate }
    public func hash(into h: inout Hasher) { h.combine(predicate) }

    /// Conjunction; nested `and`s are flattened, a single operand is returned as is.
    public static func and(_ items: [Condition], range: SourceRange? = nil) -> Condition {
        // Nothing to flatten (the usual case): the items as they are, no copy.
        if items.count > 1 && !items.contains(where: \.isAnd) { return Condition(.and(items), range: range ?? Condition.span(items)) }
        var flat: [Condition] = []
        for c in items {
            if case .and(let inner) = c.predicate { flat.append(contentsOf: inner) } else { flat.append(c) }
        }
        if flat.count == 1 { return flat[0] }
        return Condition(.and(flat), range: range ?? Condition.span(items))
    }

    /// Disjunction; nested `or`s are flattened, a single operand is returned as is.
    public static func or(_ items: [Condition], range: SourceRange? = nil) -> Condition {
        if items.count > 1 && !items.contains(where: \.isOr) { return Condition(.or(items), range: range ?? Condition.span(items)) }
        var flat: [Condition] = []
        for c in items {
            if case .or(let inner) = c.predicate { flat.append(contentsOf: inner) } else { flat.append(c) }
        }
        if flat.count == 1 { return flat[0] }
        return Condition(.or(flat), range: range ?? Condition.span(items))
    }

    /// Negation, kept as a node (no rewriting).
    public static func not(_ item: Condition, range: SourceRange? = nil) -> Condition {
        Condition(.not(item), range: range ?? item.range)
    }

    private var isAnd: Bool {
        if case .and = predicate { return true }
        return false
    }

    /// Whether this is an ACL test (``Predicate/aclGrants(_:grantees:)``):
    /// every backend tests it before the other conjuncts of its `and` that
    /// can fail (no error may depend on an object the caller cannot read).
    public var isACLGrant: Bool {
        if case .aclGrants = predicate { return true }
        return false
    }

    private var isOr: Bool {
        if case .or = predicate { return true }
        return false
    }

    static func span(_ items: [Condition]) -> SourceRange? {
        var r: SourceRange?
        for c in items { if let cr = c.range { r = r.map { $0.union(cr) } ?? cr } }
        return r
    }
}

/// The six comparison operators.
///
/// ```swift
/// ComparisonOperator(rawValue: "<=")   // .lessThanOrEqual
/// // CQL's `<>` parses as .notEqual too.
/// ```
public enum ComparisonOperator: String, Hashable, Sendable, CaseIterable {
    case equal = "="
    case notEqual = "!="
    case lessThan = "<"
    case lessThanOrEqual = "<="
    case greaterThan = ">"
    case greaterThanOrEqual = ">="
}

/// Usergrid's string matches (<doc:UsergridQL>), compared with Unicode simple
/// case folding.
///
/// The four ranges are Usergrid's string `<`, `<=`, `>`, `>=`: its server
/// lowercases the value and the literal before comparing, so
/// `name < 'delta'` takes `"Alpha"` and `"bravo"` but not `"Echo"`. They
/// compare the case-folded strings by code point; no regex says that, so
/// where-JSON and CQL cannot express them (an
/// ``QueryError/Kind/unsupported`` error) — the Usergrid `literal` option
/// gives a case-sensitive ``Predicate/compare(_:_:_:)`` instead.
///
/// ```swift
/// let q = try UsergridParser.parse("name = 'Morg*'", options: UsergridOptions(className: "users"))
/// q.condition?.predicate   // .text("name", .wildcard, "Morg*")
/// try UsergridParser.parse("name < 'delta'").condition?.predicate
/// // .text("name", .lessThanIgnoringCase, "delta")
/// TextMatch.lessThanIgnoringCase.rangeOperator   // .lessThan
/// ```
public enum TextMatch: String, Hashable, Sendable, CaseIterable {
    /// `name = 'Morgan'`: the whole value equals, ignoring case.
    case equalsIgnoringCase
    /// `name = 'Morg*n*'`: `*` matches any run; the whole value, ignoring case.
    case wildcard
    /// `text contains 'blue'`: some word (maximal run of letters and digits) equals, ignoring case.
    case word
    /// `text contains 'bl*'`: some word starts with the text, ignoring case.
    case wordPrefix
    /// `name < 'delta'`: the case-folded value sorts before the case-folded text.
    case lessThanIgnoringCase
    /// `name <= 'delta'`, ignoring case.
    case lessThanOrEqualIgnoringCase
    /// `name > 'delta'`, ignoring case.
    case greaterThanIgnoringCase
    /// `name >= 'delta'`, ignoring case.
    case greaterThanOrEqualIgnoringCase

    /// The comparison of a case-insensitive range; `nil` for the other matches.
    public var rangeOperator: ComparisonOperator? {
        switch self {
        case .lessThanIgnoringCase: return .lessThan
        case .lessThanOrEqualIgnoringCase: return .lessThanOrEqual
        case .greaterThanIgnoringCase: return .greaterThan
        case .greaterThanOrEqualIgnoringCase: return .greaterThanOrEqual
        case .equalsIgnoringCase, .wildcard, .word, .wordPrefix: return nil
        }
    }

    /// The case-insensitive range for `<`, `<=`, `>`, `>=`; `nil` for `=` and `!=`.
    public static func ignoringCase(_ op: ComparisonOperator) -> TextMatch? {
        switch op {
        case .lessThan: return .lessThanIgnoringCase
        case .lessThanOrEqual: return .lessThanOrEqualIgnoringCase
        case .greaterThan: return .greaterThanIgnoringCase
        case .greaterThanOrEqual: return .greaterThanOrEqualIgnoringCase
        case .equal, .notEqual: return nil
        }
    }
}

/// Parse Server's `$text: {$search: {...}}`.
///
/// ```swift
/// let q = try WhereJSONReader.read(#"{"title":{"$text":{"$search":{"$term":"coffee"}}}}"#, className: "Post")
/// q.condition?.predicate   // .fullText("title", FullTextSearch(term: "coffee"))
/// ```
public struct FullTextSearch: Hashable, Sendable {
    public var term: String
    public var language: String?
    public var caseSensitive: Bool?
    public var diacriticSensitive: Bool?
    public init(term: String, language: String? = nil, caseSensitive: Bool? = nil, diacriticSensitive: Bool? = nil) {
        self.term = term
        self.language = language
        self.caseSensitive = caseSensitive
        self.diacriticSensitive = diacriticSensitive
    }
}

/// What a condition node tests. Every construct of CQL, Usergrid and the three
/// where-JSON dialects has a case here; a backend that cannot express one
/// reports a named ``QueryError/Kind/unsupported`` error. What each case
/// matches is <doc:EvaluationSemantics>.
///
/// ```swift
/// let q = try CQLParser.parse("select * from T where tags all ('a', 'b') or size(tags) = 0")
/// q.condition?.predicate
/// // .or([Condition(.all("tags", [.value("a"), .value("b")])),
/// //      Condition(.size("tags", .value(0)))])
/// ```
public indirect enum Predicate: Hashable, Sendable {
    // MARK: Logic
    case and([Condition])
    case or([Condition])
    /// `not p`. `$ne`, `$nin`, `$notInQuery`, `$dontSelect` and `$exists:false`
    /// have their own forms below; this node is for everything else.
    case not(Condition)
    /// Matches everything (`true`) or nothing (`false`), e.g. an empty `where`.
    case constant(Bool)

    // MARK: Value tests
    /// `k = v`, `k != v`, `k < v`, ... (`$eq`, `$ne`, `$lt`, ...).
    case compare(FieldPath, ComparisonOperator, Term)
    /// `k in (..)` / `k not in (..)` (`$in` / `$nin`).
    case `in`(FieldPath, [Term], negated: Bool)
    /// `k all (..)` (`$all`).
    case all(FieldPath, [Term])
    /// `size(k) = n` (`$size`).
    case size(FieldPath, Term)
    /// `k is exists` (`true`) / `k is not exists` (`false`).
    case exists(FieldPath, Bool)
    /// `k regexp 'p'` / `$regex` with `$options` drawn from `imxs`, and `d`
    /// (NSPredicate's `[d]`: diacritic-insensitive; evaluated in memory only).
    case regex(FieldPath, pattern: Term, options: String)
    /// `k like 'p%'`: anchored, case-sensitive SQL LIKE.
    case like(FieldPath, pattern: Term)
    /// The value (or some array element) is a string that starts with these
    /// exact characters (UTF-8 bytes, case-sensitive). The optimizer's one
    /// form of `like 'abc%'` and `regexp '^abc'` (CanonicalPrefix), which SQL
    /// backends can serve with an index range; emitted as `^abc` / `^\Q..\E`
    /// in where-JSON and as an escaped `like` in CQL.
    case prefix(FieldPath, String)
    /// Usergrid's case-insensitive matches.
    case text(FieldPath, TextMatch, String)
    /// Parse's `$containedBy`: every element of the array field is in the list.
    case containedBy(FieldPath, [Term])
    /// MongoDB's `$elemMatch`: some element, taken whole, satisfies
    /// `condition`, whose paths are relative to the element. When the
    /// condition reads the element itself (an empty path: the operator form
    /// `{$gt: 4, $lt: 6}`) every element is tested and a nested array is
    /// compared as an array; otherwise (the field form `{b: null}`, or a
    /// constant `true` for `{}`) only object and array elements are tested.
    /// MongoDB's `$all` of `$elemMatch` objects is an AND of these on one path.
    case elementMatch(FieldPath, Condition)
    /// MongoDB's `$type` (`"string"`, `"number"`, `"array"`, ...).
    case type(FieldPath, String)
    /// MongoDB's `$mod: [divisor, remainder]`.
    case modulo(FieldPath, divisor: Term, remainder: Term)
    /// Parse's `$text`.
    case fullText(FieldPath, FullTextSearch)

    // MARK: Subqueries and relations
    /// `k in (select f from C ...)` (`$select`), or `not in` (`$dontSelect`).
    case select(FieldPath, key: FieldPath, query: Query, negated: Bool)
    /// `k in (select * from C ...)` (`$inQuery`), or `not in` (`$notInQuery`).
    case inQuery(FieldPath, query: Query, negated: Bool)
    /// `related key to pointer('C','id')` (top-level `$relatedTo`).
    case relatedTo(object: Term, key: String)
    /// The object's relation `key` holds `object` (a Pointer once bound):
    /// the join table `_Join:<key>:<className>` has a row whose `owningId` is
    /// the object's objectId and whose `relatedId` is the Pointer's. No query
    /// language writes it: ``Query/resolvingRelationKeys(hasTable:)`` makes
    /// it of a relation key's comparison with a Pointer, where the storage
    /// shows the key is a relation, and the texts print it as that equality
    /// (`users = pointer('_User', 'u1')`).
    case relationHolds(key: String, className: String, object: Term)

    // MARK: Access control
    /// The object's `ACL` grants `right` to one of `grantees` (``ACLRule``;
    /// `*` is always among them). No query language writes it: `cql serve`
    /// adds it for the caller of a request and `cql run --grantees` for a
    /// caller named on the command line. SQL reads it from an index where
    /// the dialect has one (PostgreSQL: a GIN index over the object's read
    /// grantees); where-JSON, CQL and the other texts cannot express it.
    case aclGrants(ACLRight, grantees: [String])

    // MARK: Geo
    /// `k near geopoint(lng, lat) [min x unit] [max y unit]` (`$nearSphere`).
    /// Results come nearest first unless the query has an explicit order.
    case near(FieldPath, point: Term, min: Distance?, max: Distance?)
    /// `k within [sw] and [ne]` (`$within: {$box: [sw, ne]}`), inclusive.
    case withinBox(FieldPath, southwest: Term, northeast: Term)
    /// `$geoWithin: {$polygon: [...]}`: inside or on the edge.
    case withinPolygon(FieldPath, [Term])
    /// `$geoWithin: {$centerSphere: [[lng, lat], r]}`, `r` in radians.
    case withinCenterSphere(FieldPath, center: Term, radius: Term)
    /// `$geoIntersects: {$point: p}`: the polygon stored at the field contains p.
    case geoIntersects(FieldPath, point: Term)
}
