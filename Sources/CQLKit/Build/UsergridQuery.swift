/// A query builder in the style of the Usergrid SDKs' `UsergridQuery`,
/// producing the AST that ``UsergridParser`` produces for the same `ql`.
///
/// Clauses are joined with `and` unless ``or()`` comes between them; `and`
/// binds tighter than `or`. ``not()`` negates the next clause. Strings keep
/// Usergrid's meaning (UsergridQL.md): trimmed; equality case-insensitive, with
/// `*` as a wildcard, and ranges (``gt(_:value:)``, ...) case-insensitive
/// too, unless the builder is `literal`. Without sort keys results come
/// newest first (`created` descending), or nearest first with
/// `locationWithin(_:latitude:longitude:)`; the page is 10 unless
/// ``limit(_:)`` says otherwise.
///
/// ```swift
/// let query = try UsergridQuery("pets")
///     .eq("name", value: "Fido")
///     .or()
///     .not().gt("age", value: 3)
///     .desc("age")
///     .limit(20)
///     .build()
/// // queryString(): select * where name = 'Fido' or not age > 3 order by age desc
/// try JSONWriter.string(WhereJSONEmitter.emit(query, dialect: .parse))
/// // {"className":"pets","limit":20,"order":"-age","where":{"$or":[
/// //   {"name":{"$options":"i","$regex":"^\\QFido\\E\\z"}},{"$nor":[{"age":{"$gt":3}}]}]}}
/// ```
///
/// Unlike the Usergrid SDK: a leading `not()` works, `not()` anywhere
/// applies to the next clause, values live in the AST rather than in text
/// (``queryString()`` escapes quotes; `true` stays a boolean), sort keys keep
/// the order given, ``fromString(_:)`` keeps limit and cursor, and
/// ``urlQuery()`` percent-encodes `&`. Misplaced connectors (`or()` first,
/// last, or twice in a row) are errors thrown by ``build()``, like bad values.
public struct UsergridQuery: Sendable {
    /// Sort direction for ``sort(_:_:)``.
    public enum SortOrder: Sendable {
        case asc, desc
    }

    enum Item: Sendable {
        case clause(Condition)
        case and, or, not
    }

    /// The collection (class) queried; `""` means not given.
    public private(set) var collectionName: String
    /// String `=` as exact, case-sensitive equality (``UsergridOptions/literal``).
    public let literal: Bool
    /// The page size asked for by ``limit(_:)`` (a URL parameter beside `ql`).
    public private(set) var limit: Int?
    /// The paging cursor from ``cursor(_:)`` (a URL parameter beside `ql`).
    public private(set) var cursor: String?
    var items: [Item] = []
    var order: [OrderKey] = []
    /// Projection and `direct` names taken from ``fromString(_:)``.
    var keys: [SelectedKey] = []
    var direct: [Value] = []
    var error: QueryError?

    /// A query over `collection` that matches every entity.
    public init(_ collection: String = "", literal: Bool = false) {
        self.collectionName = collection
        self.literal = literal
    }

    // MARK: Collection, paging

    /// Sets the collection queried.
    public func collection(_ name: String) -> UsergridQuery {
        var q = self
        q.collectionName = name
        return q
    }

    /// The SDK's other name for ``collection(_:)``.
    public func type(_ name: String) -> UsergridQuery { collection(name) }

    /// At most `n` results (1...1000; larger limits are clamped to 1000 as
    /// Usergrid does): `"limit":n`. Checked by ``build()`` like
    /// ``UsergridOptions/limit``.
    public func limit(_ n: Int) -> UsergridQuery {
        var q = self
        q.limit = n
        return q
    }

    /// The cursor of the page to read (`nil` for the first page): a cursor
    /// from an earlier page or ``UsergridOptions/cursor(offset:)``. In the AST
    /// it is the `skip` it stands for (`"skip":N` in where-JSON).
    public func cursor(_ value: String?) -> UsergridQuery {
        var q = self
        q.cursor = value
        return q
    }

    // MARK: Comparisons

    /// `term = value`. A string matches case-insensitively
    /// (`{"$options":"i","$regex":"^\\QFido\\E$"}`), a string with `*` as a
    /// wildcard; a UUID string, a number or a boolean matches exactly.
    public func eq(_ term: String, value: some ValueConvertible) -> UsergridQuery {
        clause(term) { (path: FieldPath) throws(QueryError) in
            stringComparison(path, .equal, try BuilderSupport.value(value))
        }
    }

    /// The SDK's other name for ``eq(_:value:)``.
    public func equals(_ term: String, value: some ValueConvertible) -> UsergridQuery { eq(term, value: value) }

    /// The SDK's other name for ``eq(_:value:)``.
    public func filter(_ term: String, value: some ValueConvertible) -> UsergridQuery { eq(term, value: value) }

    /// `term > value`: `{"term":{"$gt":value}}` for a number; a string
    /// compares ignoring case (``TextMatch/greaterThanIgnoringCase``, which
    /// where-JSON cannot express) unless the builder is `literal`.
    public func gt(_ term: String, value: some ValueConvertible) -> UsergridQuery {
        comparison(term, .greaterThan, value)
    }

    /// The SDK's other name for ``gt(_:value:)``.
    public func greaterThan(_ term: String, value: some ValueConvertible) -> UsergridQuery { gt(term, value: value) }

    /// `term >= value`: `{"term":{"$gte":value}}`.
    public func gte(_ term: String, value: some ValueConvertible) -> UsergridQuery {
        comparison(term, .greaterThanOrEqual, value)
    }

    /// The SDK's other name for ``gte(_:value:)``.
    public func greaterThanOrEqual(_ term: String, value: some ValueConvertible) -> UsergridQuery {
        gte(term, value: value)
    }

    /// `term < value`: `{"term":{"$lt":value}}`.
    public func lt(_ term: String, value: some ValueConvertible) -> UsergridQuery {
        comparison(term, .lessThan, value)
    }

    /// The SDK's other name for ``lt(_:value:)``.
    public func lessThan(_ term: String, value: some ValueConvertible) -> UsergridQuery { lt(term, value: value) }

    /// `term <= value`: `{"term":{"$lte":value}}`.
    public func lte(_ term: String, value: some ValueConvertible) -> UsergridQuery {
        comparison(term, .lessThanOrEqual, value)
    }

    /// The SDK's other name for ``lte(_:value:)``.
    public func lessThanOrEqual(_ term: String, value: some ValueConvertible) -> UsergridQuery {
        lte(term, value: value)
    }

    /// `term contains 'word'`: some word of the text equals `word`, ignoring
    /// case; `'bl*'` (a trailing `*`): some word starts with `bl`. A `*`
    /// elsewhere is an error (it could never match a word).
    /// `.contains("bio", value: "blue")` →
    /// `{"bio":{"$options":"i","$regex":"(?<![\\p{L}\\p{N}])\\Qblue\\E(?![\\p{L}\\p{N}])"}}`
    public func contains(_ term: String, value: String) -> UsergridQuery {
        clause(term) { (path: FieldPath) throws(QueryError) in
            var bytes = Array(UsergridMeaning.trimmed(value).utf8)
            let prefix = bytes.last == UInt8(ascii: "*")
            if prefix { bytes.removeLast() }
            if bytes.contains(UInt8(ascii: "*")) {
                throw BuilderSupport.invalid("'*' in 'contains' is only allowed at the end (a word prefix such as 'bl*')")
            }
            return .text(path, prefix ? .wordPrefix : .word, String(decoding: bytes, as: UTF8.self))
        }
    }

    /// The SDK's other name for ``contains(_:value:)``.
    public func containsString(_ term: String, value: String) -> UsergridQuery { contains(term, value: value) }

    /// The SDK's other name for ``contains(_:value:)``.
    public func containsWord(_ term: String, value: String) -> UsergridQuery { contains(term, value: value) }

    /// `location within meters of latitude, longitude` (latitude first):
    /// `{"location":{"$nearSphere":{"__type":"GeoPoint",...},"$maxDistanceInKilometers":meters/1000}}`.
    public func locationWithin(_ meters: Double, latitude: Double, longitude: Double) -> UsergridQuery {
        within(.value(.double(meters)), latitude, longitude)
    }

    /// ``locationWithin(_:latitude:longitude:)-(Double,_,_)`` with whole meters (an integer in the AST, as `ql` writes `within 500 of …`).
    public func locationWithin(_ meters: Int, latitude: Double, longitude: Double) -> UsergridQuery {
        within(.value(.int(Int64(meters))), latitude, longitude)
    }

    // MARK: Connectors

    /// Joins the clauses before and after with `and` (the default between
    /// clauses, so this call is optional).
    public func and() -> UsergridQuery { appending(.and) }

    /// Joins the clauses before and after with `or`; `and` binds tighter:
    /// `a, or(), b, c` is `a or (b and c)`.
    public func or() -> UsergridQuery { appending(.or) }

    /// Negates the next clause (`not().not()` negates it twice).
    public func not() -> UsergridQuery { appending(.not) }

    // MARK: Order

    /// Appends `term asc` to the order.
    public func asc(_ term: String) -> UsergridQuery { sort(term, .asc) }

    /// The SDK's other name for ``asc(_:)``.
    public func ascending(_ term: String) -> UsergridQuery { sort(term, .asc) }

    /// Appends `term desc` to the order.
    public func desc(_ term: String) -> UsergridQuery { sort(term, .desc) }

    /// The SDK's other name for ``desc(_:)``.
    public func descending(_ term: String) -> UsergridQuery { sort(term, .desc) }

    /// Appends `term` to the order; keys keep the order of the calls.
    public func sort(_ term: String, _ order: SortOrder) -> UsergridQuery {
        var q = self
        do {
            q.order.append(OrderKey(try BuilderSupport.path(term), descending: order == .desc))
        } catch {
            q.record(QueryError(error.kind, "sort on '\(term)': \(error.message)"))
        }
        return q
    }

    // MARK: Result

    /// The AST, or the first error any call recorded. Limit, cursor and order
    /// are applied as ``UsergridParser`` applies ``UsergridOptions``: the
    /// limit clamped to 1...1000 (10 when not given), the cursor turned into
    /// `skip`, newest first without sort keys (nearest first with
    /// `locationWithin(_:latitude:longitude:)`, also when sorted by
    /// `location`).
    public func build() throws(QueryError) -> Query {
        if let error { throw error }
        var query = Query(className: collectionName, keys: keys, condition: try condition(), order: order, direct: direct)
        try options.apply(to: &query)
        return query
    }

    /// The request parameters beside the `ql` text.
    var options: UsergridOptions {
        UsergridOptions(className: collectionName, literal: literal, limit: limit, cursor: cursor)
    }

    // MARK: Internals

    mutating func record(_ e: QueryError) {
        if error == nil { error = e }
    }

    func appending(_ item: Item) -> UsergridQuery {
        var q = self
        q.items.append(item)
        return q
    }

    private func clause(_ term: String, _ make: (FieldPath) throws(QueryError) -> Predicate) -> UsergridQuery {
        var q = self
        do {
            q.items.append(.clause(Condition(try make(try BuilderSupport.path(term)))))
        } catch {
            q.record(QueryError(error.kind, "clause on '\(term)': \(error.message)"))
        }
        return q
    }

    private func comparison(_ term: String, _ op: ComparisonOperator, _ value: some ValueConvertible) -> UsergridQuery {
        clause(term) { (path: FieldPath) throws(QueryError) in stringComparison(path, op, try BuilderSupport.value(value)) }
    }

    /// What the parser makes of `path op value`: a string (one the text would
    /// quote, so not a UUID) is trimmed and, unless `literal`, matched
    /// ignoring case.
    private func stringComparison(_ path: FieldPath, _ op: ComparisonOperator, _ value: Value) -> Predicate {
        var quoted = false
        if case .string(let s) = value { quoted = !UsergridKeywords.isUUID(s) }
        return UsergridMeaning.comparison(path, op, value, quoted: quoted, literal: literal)
    }

    private func within(_ meters: Term, _ latitude: Double, _ longitude: Double) -> UsergridQuery {
        clause("location") { (path: FieldPath) throws(QueryError) in
            let point = GeoPoint(latitude: latitude, longitude: longitude)
            try BuilderSupport.checkPoint(point)
            let distance = Distance(meters, .meters)
            try BuilderSupport.checkDistance(distance, "within")
            return .near(path, point: .value(.geoPoint(point)), min: nil, max: distance)
        }
    }

    /// The condition the clauses and connectors spell: `or` groups of
    /// `and`ed clauses, each clause wrapped in its pending `not`s.
    func condition() throws(QueryError) -> Condition? {
        var groups: [Condition] = []
        var group: [Condition] = []
        var nots = 0
        var previous: Item?
        for item in items {
            switch item {
            case .clause(var c):
                for _ in 0..<nots { c = Condition.not(c) }
                nots = 0
                group.append(c)
            case .and, .or:
                guard case .clause = previous else {
                    throw BuilderSupport.invalid("\(Self.name(item)) must come between two clauses; \(Self.placement(previous))")
                }
                if case .or = item {
                    groups.append(Condition.and(group))
                    group = []
                }
            case .not:
                nots += 1
            }
            previous = item
        }
        if let previous, !(previous.isClause) {
            throw BuilderSupport.invalid("\(Self.name(previous)) needs a clause after it; it comes last")
        }
        if !group.isEmpty { groups.append(Condition.and(group)) }
        return groups.isEmpty ? nil : Condition.or(groups)
    }

    private static func name(_ item: Item) -> String {
        switch item {
        case .clause: return "a clause"
        case .and: return "and()"
        case .or: return "or()"
        case .not: return "not()"
        }
    }

    private static func placement(_ previous: Item?) -> String {
        guard let previous else { return "it comes first" }
        return "it follows \(name(previous))"
    }
}

extension UsergridQuery.Item {
    var isClause: Bool {
        if case .clause = self { return true }
        return false
    }
}
