/// A read query over one class: the common AST of CQL `select`, Usergrid `ql`,
/// REST where-JSON requests and the Swift builders.
///
/// ```swift
/// let q = try CQLParser.parse("select * from GameScore where score > 80 order by -score limit 10")
/// q.className          // "GameScore"
/// q.order              // [OrderKey("score", descending: true)]
/// q.limit              // .value(.int(10))
/// ```
public struct Query: Hashable, Sendable {
    public var className: String
    /// Projection; empty means every key. Entries may exclude (`-author`) or
    /// rename (Usergrid `{source:alias}`).
    public var keys: [SelectedKey]
    /// Pointer paths to resolve (`include post.author`).
    public var includes: [FieldPath]
    public var count: CountMode
    /// `nil` means no condition (every object matches).
    public var condition: Condition?
    /// Explicit order; empty means store order (or nearest first with `near`).
    public var order: [OrderKey]
    public var skip: Term?
    public var limit: Term?
    /// Usergrid `direct name, uuid, ...`: read these entities only.
    public var direct: [Value]
    /// LeanCloud's `returnACL` request parameter (`"returnACL":"true"`, which
    /// the LeanCloud SDKs send): the results also carry each object's `ACL`
    /// field. Only where-JSON can say it; CQL and Usergrid text cannot.
    public var returnACL: Bool = false
    /// The whole statement's text range.
    public var range: SourceRange?
    /// The text `range` and the ranges inside point into, when the query was
    /// parsed (set on the top-level query), so later stages (binder, emitters)
    /// can render positioned errors. Not part of equality.
    public var source: String? = nil

    public init(
        className: String, keys: [SelectedKey] = [], includes: [FieldPath] = [], count: CountMode = .none,
        condition: Condition? = nil, order: [OrderKey] = [], skip: Term? = nil, limit: Term? = nil,
        direct: [Value] = [], range: SourceRange? = nil
    ) {
        self.className = className
        self.keys = keys
        self.includes = includes
        self.count = count
        self.condition = condition
        self.order = order
        self.skip = skip
        self.limit = limit
        self.direct = direct
        self.range = range
    }

    public static func == (a: Query, b: Query) -> Bool {
        a.className == b.className && a.keys == b.keys && a.includes == b.includes && a.count == b.count
            && a.condition == b.condition && a.order == b.order && a.skip == b.skip && a.limit == b.limit
            && a.direct == b.direct && a.returnACL == b.returnACL
    }

    public func hash(into h: inout Hasher) {
        h.combine(className)
        h.combine(keys)
        h.combine(condition)
        h.combine(order)
    }
}

/// Whether a query asks for the number of matches.
///
/// ```swift
/// try CQLParser.parse("select count(*) from T").count      // .only
/// try CQLParser.parse("select count(*), * from T").count   // .withResults
/// ```
public enum CountMode: Hashable, Sendable {
    /// No count.
    case none
    /// `select count(*) from T`: the count only, no results.
    case only
    /// `select count(*), * from T`: the results and the count.
    case withResults
}

/// One entry of a projection.
///
/// ```swift
/// try WhereJSONReader.read(#"{"className":"Post","keys":"title,-body"}"#).keys
/// // [SelectedKey("title"), SelectedKey("body", excluded: true)]
/// try UsergridParser.parse("select {name:n}").keys
/// // [SelectedKey("name", alias: "n")]
/// ```
public struct SelectedKey: Hashable, Sendable {
    public var path: FieldPath
    /// `-author` in `keys`: return everything but this.
    public var excluded: Bool
    /// Usergrid `{source:alias}`: return the value of `path` under `alias`.
    public var alias: String?
    public init(_ path: FieldPath, excluded: Bool = false, alias: String? = nil) {
        self.path = path
        self.excluded = excluded
        self.alias = alias
    }
}

/// One key of `order by`.
///
/// ```swift
/// try CQLParser.parse("select * from T order by score, +name desc").order
/// // [OrderKey("score", descending: true), OrderKey("name")]
/// ```
public struct OrderKey: Hashable, Sendable {
    public var path: FieldPath
    public var descending: Bool
    public init(_ path: FieldPath, descending: Bool = false) {
        self.path = path
        self.descending = descending
    }
}
