/// The right of an object's ACL that a ``Predicate/aclGrants(_:grantees:)``
/// condition tests: `read` for every query, `write` for updates and deletes.
public enum ACLRight: String, Hashable, Sendable, CaseIterable {
    case read
    case write
}

/// LeanCloud's ACL rule, the one meaning every backend implements for
/// ``Predicate/aclGrants(_:grantees:)`` (the evaluator here, SQLite and
/// PostgreSQL in their dialects; a differential test holds them equal).
///
/// An object's `ACL` key maps grantees — `*` (everyone), a user's objectId,
/// `role:<name>` — to `{"read": true, "write": true}`. The rule:
/// - no `ACL` key, or `ACL` null: the object is public (every right granted);
/// - `ACL` an object: the right is granted when some grantee of the set has
///   an entry that is an object whose `read` (or `write`) is exactly `true`;
/// - `ACL` anything else (a string, number, array...): nothing is granted
///   (fail closed: a malformed ACL hides the object from all but the master key).
///
/// `*` is always one of the grantees: every caller is "everyone".
///
/// ```swift
/// let acl: Value = .object(["u1": .object(["read": .bool(true)])])
/// ACLRule.grants(acl, .read, to: ["u1"])    // true
/// ACLRule.grants(acl, .write, to: ["u1"])   // false
/// ACLRule.grants(nil, .write, to: [])       // true (no ACL: public)
/// ACLRule.grants(.string("x"), .read, to: ["*"])   // false
/// ```
public enum ACLRule {
    /// The grantee every caller is.
    public static let everyone = "*"

    /// Whether `acl` (the object's `ACL` value, `nil` when it has none)
    /// grants `right` to one of `grantees` (or to `*`).
    public static func grants(_ acl: Value?, _ right: ACLRight, to grantees: [String]) -> Bool {
        switch acl {
        case nil, .null?: return true
        case .object(let entries)?:
            func granted(_ g: String) -> Bool {
                guard case .object(let e)? = entries[g], case .bool(true)? = e[right.rawValue] else { return false }
                return true
            }
            return granted(everyone) || grantees.contains(where: granted)
        default: return false
        }
    }

    /// The grantee list a condition carries: `*` first, then the others
    /// sorted, without repeats (so equal sets give equal conditions). A
    /// grantee holding NUL is dropped: no database key can hold one (user
    /// ids and role names never do).
    public static func normalized(_ grantees: [String]) -> [String] {
        [everyone] + Set(grantees.filter { !$0.utf8.contains(0) }).subtracting([everyone]).sorted()
    }

    /// The condition "`right` is granted to `grantees`".
    ///
    /// ```swift
    /// ACLRule.condition(.read, grantees: ["u1", "role:staff"]).predicate
    /// // .aclGrants(.read, grantees: ["*", "role:staff", "u1"])
    /// ```
    public static func condition(_ right: ACLRight, grantees: [String]) -> Condition {
        Condition(.aclGrants(right, grantees: normalized(grantees)))
    }

    /// `query` as `grantees` may run it: the read condition added to its
    /// condition and to the condition of every subquery in it (`$inQuery`,
    /// `$notInQuery`, `$select`, `$dontSelect`, at any depth), so that each
    /// sees only the objects the caller may read. Added before the
    /// optimizer runs, it filters in SQL and leaves limit, skip, order and
    /// count right.
    ///
    /// ```swift
    /// let q = try CQLParser.parse("select * from Todo where done = true")
    /// ACLRule.restricting(q, to: ["u1"]).condition?.predicate
    /// // .and([done = true, .aclGrants(.read, grantees: ["*", "u1"])])
    /// ```
    public static func restricting(_ query: Query, to grantees: [String]) -> Query {
        restrict(query, condition(.read, grantees: grantees))
    }

    /// A write's condition as `grantees` may test it: the read condition
    /// added to every subquery in it, at any depth, as ``restricting(_:to:)``
    /// adds it to a query's (the write's own row is the write's guard's).
    ///
    /// ```swift
    /// // where owner in (select owner from Note where title like 'launch%')
    /// ACLRule.restrictingSubqueries(c, to: ["u1"])
    /// // ... (select owner from Note where title like 'launch%' and aclGrants(read, ["*", "u1"]))
    /// ```
    public static func restrictingSubqueries(_ c: Condition, to grantees: [String]) -> Condition {
        restrictSubqueries(c, condition(.read, grantees: grantees))
    }

    static func restrict(_ q: Query, _ read: Condition) -> Query {
        var q = q
        q.condition = Condition.and([q.condition.map { restrictSubqueries($0, read) }, read].compactMap { $0 })
        return q
    }

    /// `c` with `read` added to each of its sub-queries, through `and`,
    /// `or`, `not` and `$elemMatch`; each sub-query ``restrict(_:_:)``s its
    /// own. (`$relatedTo`'s owner is checked by the server before the query
    /// runs: it names one object, not a set.)
    static func restrictSubqueries(_ c: Condition, _ read: Condition) -> Condition {
        c.transformed(entering: .elementMatch) { $0.mappingSubquery { restrict($0, read) } } ?? c
    }
}
