/// Which sub-structures of a condition a traversal enters, beyond the
/// operands of `and`, `or` and `not`, which every traversal enters.
///
/// A condition tree has three kinds of scope: the object's own tests
/// (reached through `and` / `or` / `not`), the inside of an `$elemMatch`
/// (paths relative to an array element, each element taken whole), and the
/// conditions of sub-queries (`$inQuery`, `$notInQuery`, `$select`,
/// `$dontSelect`: tests of other objects, often of another class). Every
/// walker names the scopes it enters, so that the decision is visible at
/// the call and made nowhere else.
///
/// `$relatedTo` has no sub-structure: it names one object, its owner (a
/// term of the leaf), which a walker reads at the node.
///
/// ```swift
/// let c = try CQLParser.parse("select * from T where a in (select * from U where b = 1)").condition!
/// var own = 0, all = 0
/// c.forEach(entering: .ownTests) { _ in own += 1 }     // own == 1: the sub-query node
/// c.forEach(entering: .everything) { _ in all += 1 }   // all == 2: it and `b = 1`
/// ```
public struct ConditionDescent: OptionSet, Hashable, Sendable {
    public let rawValue: UInt8
    public init(rawValue: UInt8) { self.rawValue = rawValue }

    /// The condition of `$elemMatch` (paths relative to an array element).
    public static let elementMatch = ConditionDescent(rawValue: 1 << 0)
    /// The conditions of sub-queries (`$inQuery`, `$select` and their negations).
    public static let subqueries = ConditionDescent(rawValue: 1 << 1)

    /// The object's own tests: through `and`, `or` and `not` only.
    public static let ownTests: ConditionDescent = []
    /// Every node of the tree, at any depth.
    public static let everything: ConditionDescent = [.elementMatch, .subqueries]
}

// The one place that knows which cases of ``Predicate`` hold conditions or
// sub-queries: each function below switches over every case, so a new case
// is decided here, once, for every walker built on them.
extension Condition {
    /// Calls `visit` on this node and on every node below it that `descent`
    /// reaches: a node before the nodes under it, operands in order (a
    /// sub-query node before its query's condition).
    public func forEach<E: Error>(entering descent: ConditionDescent, _ visit: (Condition) throws(E) -> Void) throws(E) {
        try visit(self)
        switch predicate {
        case .and(let items), .or(let items):
            for item in items { try item.forEach(entering: descent, visit) }
        case .not(let inner):
            try inner.forEach(entering: descent, visit)
        case .elementMatch(_, let inner):
            if descent.contains(.elementMatch) { try inner.forEach(entering: descent, visit) }
        case .select(_, _, let sub, _), .inQuery(_, let sub, _):
            if descent.contains(.subqueries), let inner = sub.condition { try inner.forEach(entering: descent, visit) }
        case .constant, .compare, .in, .all, .size, .exists, .regex, .like, .prefix, .text, .containedBy, .type, .modulo,
             .fullText, .relatedTo, .relationHolds, .aclGrants, .near, .withinBox, .withinPolygon, .withinCenterSphere, .geoIntersects:
            break
        }
    }

    /// Whether `test` holds for this node or a node below it that `descent`
    /// reaches; nodes are tested in ``forEach(entering:_:)``'s order, and
    /// the walk stops at the first that passes.
    public func contains<E: Error>(entering descent: ConditionDescent, where test: (Condition) throws(E) -> Bool) throws(E) -> Bool {
        if try test(self) { return true }
        switch predicate {
        case .and(let items), .or(let items):
            // A loop rather than `contains(where:)`: no second closure per level.
            for item in items where try item.contains(entering: descent, where: test) { return true }
            return false
        case .not(let inner):
            return try inner.contains(entering: descent, where: test)
        case .elementMatch(_, let inner):
            guard descent.contains(.elementMatch) else { return false }
            return try inner.contains(entering: descent, where: test)
        case .select(_, _, let sub, _), .inQuery(_, let sub, _):
            guard descent.contains(.subqueries), let inner = sub.condition else { return false }
            return try inner.contains(entering: descent, where: test)
        case .constant, .compare, .in, .all, .size, .exists, .regex, .like, .prefix, .text, .containedBy, .type, .modulo,
             .fullText, .relatedTo, .relationHolds, .aclGrants, .near, .withinBox, .withinPolygon, .withinCenterSphere, .geoIntersects:
            return false
        }
    }

    /// The tree rewritten bottom-up: the nodes below this one that `descent`
    /// reaches first, then `rewrite` on this node as it stands with its
    /// rewritten children (`nil` from `rewrite`: the node stays). `nil` when
    /// nothing changed, so an unchanged tree is never copied. Operands are
    /// replaced in place: nothing is flattened or reordered here.
    public func transformed<E: Error>(
        entering descent: ConditionDescent, _ rewrite: (Condition) throws(E) -> Condition?
    ) throws(E) -> Condition? {
        var node: Condition?
        switch predicate {
        case .and(let items):
            if let new = try Condition.transformed(items, descent, rewrite) { node = self; node!.predicate = .and(new) }
        case .or(let items):
            if let new = try Condition.transformed(items, descent, rewrite) { node = self; node!.predicate = .or(new) }
        case .not(let inner):
            if let new = try inner.transformed(entering: descent, rewrite) { node = self; node!.predicate = .not(new) }
        case .elementMatch(let path, let inner):
            if descent.contains(.elementMatch), let new = try inner.transformed(entering: descent, rewrite) {
                node = self
                node!.predicate = .elementMatch(path, new)
            }
        case .select, .inQuery:
            if descent.contains(.subqueries) {
                node = try mappingSubquery { (sub: Query) throws(E) -> Query? in
                    guard let c = sub.condition, let new = try c.transformed(entering: descent, rewrite) else { return nil }
                    var q = sub
                    q.condition = new
                    return q
                }
            }
        case .constant, .compare, .in, .all, .size, .exists, .regex, .like, .prefix, .text, .containedBy, .type, .modulo,
             .fullText, .relatedTo, .relationHolds, .aclGrants, .near, .withinBox, .withinPolygon, .withinCenterSphere, .geoIntersects:
            break
        }
        return try rewrite(node ?? self) ?? node
    }

    /// The items each ``transformed(entering:_:)``, or `nil` when none changed.
    private static func transformed<E: Error>(
        _ items: [Condition], _ descent: ConditionDescent, _ rewrite: (Condition) throws(E) -> Condition?
    ) throws(E) -> [Condition]? {
        var out: [Condition]?
        for (i, item) in items.enumerated() {
            guard let new = try item.transformed(entering: descent, rewrite) else { continue }
            if out == nil { out = items }
            out![i] = new
        }
        return out
    }

    /// The sub-query of this node (`$inQuery`, `$select` and their
    /// negations); `nil` for every other node.
    public var subquery: Query? {
        switch predicate {
        case .select(_, _, let sub, _), .inQuery(_, let sub, _): return sub
        case .and, .or, .not, .elementMatch, .constant, .compare, .in, .all, .size, .exists, .regex, .like, .prefix, .text,
             .containedBy, .type, .modulo, .fullText, .relatedTo, .relationHolds, .aclGrants, .near, .withinBox, .withinPolygon,
             .withinCenterSphere, .geoIntersects:
            return nil
        }
    }

    /// What this node reads beyond the object it tests (a sub-query's
    /// objects, a relation's owner and join table); `nil` for every other node.
    public var outsideRead: OutsideRead? {
        switch predicate {
        case .select(_, _, let sub, _), .inQuery(_, let sub, _): return .subquery(sub)
        case .relatedTo(let owner, let key): return .relation(owner: owner, key: key)
        case .relationHolds(let key, let className, _): return .ownRelation(className: className, key: key)
        case .and, .or, .not, .elementMatch, .constant, .compare, .in, .all, .size, .exists, .regex, .like, .prefix, .text,
             .containedBy, .type, .modulo, .fullText, .aclGrants, .near, .withinBox, .withinPolygon, .withinCenterSphere,
             .geoIntersects:
            return nil
        }
    }

    /// This node with its sub-query replaced by `replace`'s; `nil` when the
    /// node has no sub-query or `replace` returns `nil` (the node stays).
    public func mappingSubquery<E: Error>(_ replace: (Query) throws(E) -> Query?) throws(E) -> Condition? {
        var node = self
        switch predicate {
        case .select(let path, let key, let sub, let negated):
            guard let new = try replace(sub) else { return nil }
            node.predicate = .select(path, key: key, query: new, negated: negated)
        case .inQuery(let path, let sub, let negated):
            guard let new = try replace(sub) else { return nil }
            node.predicate = .inQuery(path, query: new, negated: negated)
        case .and, .or, .not, .elementMatch, .constant, .compare, .in, .all, .size, .exists, .regex, .like, .prefix, .text,
             .containedBy, .type, .modulo, .fullText, .relatedTo, .relationHolds, .aclGrants, .near, .withinBox, .withinPolygon,
             .withinCenterSphere, .geoIntersects:
            return nil
        }
        return node
    }

    /// Whether a `near` is among the object's own tests (through `and`,
    /// `or`, `not`; not inside `$elemMatch` nor a sub-query): the nodes
    /// whose first `near` orders a query's results when it has no order
    /// (<doc:EvaluationSemantics>).
    public var mentionsNear: Bool {
        contains(entering: .ownTests) { if case .near = $0.predicate { true } else { false } }
    }
}

/// What a condition node reads beyond the object it tests
/// (``Condition/outsideRead``): what access checks, table loading and the
/// SQL dialects' guards look for.
public enum OutsideRead: Hashable, Sendable {
    /// `$inQuery`, `$select` and their negations: the objects of `query`.
    case subquery(Query)
    /// `$relatedTo`: the relation `key` of the object `owner` (a Pointer
    /// once bound), read from its join table.
    case relation(owner: Term, key: String)
    /// A relation key's comparison with a Pointer
    /// (``Predicate/relationHolds(key:className:object:)``): the relation
    /// `key` of the tested object itself, of class `className`, read from
    /// its join table.
    case ownRelation(className: String, key: String)
}

extension Query {
    /// The sub-queries the query's condition reads through, outside
    /// `$elemMatch` and in order; not their own sub-queries (each is a
    /// query: ask it).
    public var subqueries: [Query] {
        var out: [Query] = []
        condition?.forEach(entering: .elementMatch) { if let sub = $0.subquery { out.append(sub) } }
        return out
    }

    /// Whether this query or a sub-query at any depth (inside `$elemMatch`
    /// too) passes `test`; the query first, then its sub-queries in order.
    public func containsQuery<E: Error>(where test: (Query) throws(E) -> Bool) throws(E) -> Bool {
        if try test(self) { return true }
        guard let c = condition else { return false }
        return try c.contains(entering: .everything) { (node: Condition) throws(E) -> Bool in
            guard let sub = node.subquery else { return false }
            return try test(sub)
        }
    }
}
