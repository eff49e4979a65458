import CQLEval
import CQLKit

/// Who a read runs as: the master key (everything), or a caller's ACL
/// grantees (`*`, its user's objectId, `role:<name>` for each role).
///
/// ```swift
/// let caller: QueryCaller = .grantees(["*", "u1", "role:staff"])
/// ```
public enum QueryCaller: Sendable, Equatable {
    case master
    case grantees([String])

    /// `nil` (as ``APIRequest`` carries the master key's grantees) is ``master``.
    public init(grantees: [String]?) {
        self = grantees.map { .grantees($0) } ?? .master
    }

    /// The grantees, `nil` for the master key.
    public var grantees: [String]? {
        if case .grantees(let g) = self { return g }
        return nil
    }
}

/// The one path from (a query, its caller) to the query storage runs, for
/// every read: the class API's find, get and count, cloudQuery, batch
/// sub-requests, `include`d objects, the ACL checks of writes, and
/// `cql run --as-user`/`--grantees`.
///
/// In order: the caller's read condition added to the query and to each of
/// its sub-queries (`ACLRule.restricting(_:to:)`: SQL filters, so limit,
/// skip, order and count count only readable objects); class names made
/// canonical; every class a sub-query or `$relatedTo` reads checked to be a
/// class (no `_Join:` table); `_User`'s secrets (`password`, `salt`,
/// `sessionToken`) refused in conditions and orders (105, whoever asks);
/// then, for ``prepared(_:as:now:)``, bound and optimized. Acting as
/// master is spelled out (`as: .master`): no call defaults to it.
///
/// ```swift
/// let q = try WhereJSONReader.read(.object(["className": "Note", "where": .object(["n": 1])]))
/// let storageQuery = try CallerQuery.prepared(q, as: .grantees(["*"]))
/// // where n = 1 and (the ACL grants '*' read, or there is no ACL)
/// ```
public enum CallerQuery {
    /// The query `caller` may run, restricted and checked but neither bound
    /// nor optimized (a statement already bound: cloudQuery, `cql run`).
    public static func restricted(_ query: Query, as caller: QueryCaller) throws(APIError) -> Query {
        let restricted = caller.grantees.map { ACLRule.restricting(query, to: $0) } ?? query
        let query = ClassNames.canonical(restricted)
        try API.checkSubqueryClasses(query.condition)
        try API.checkSecretKeys(query)
        return query
    }

    /// The query storage runs for `caller`: ``restricted(_:as:)``, bound
    /// (time functions resolved at `now`) and optimized, as `cql run`
    /// prepares it.
    public static func prepared(_ query: Query, as caller: QueryCaller, now: DateValue = .now) throws -> Query {
        try Optimizer.optimize(try Binder.bind(try restricted(query, as: caller), parameters: [], now: now))
    }
}
