/// Equality of a Relation key with a Pointer: what a Relation key means in
/// a condition once the storage shows that the key is a relation.
///
/// A Relation key's value is only a marker
/// (`{"__type":"Relation","className":"_User"}`); the objects it holds are
/// the rows of its join table `_Join:<key>:<Class>` (`owningId`,
/// `relatedId`). LeanCloud reads such a key as the set of Pointers it holds,
/// as an array of Pointers reads: `users = pointer('_User','u1')` (where-JSON
/// `{"users":<Pointer>}`, what `AV.User#getRoles` and `reverseQuery` send)
/// finds the owners whose relation holds `u1`. No query text says that a
/// key is a relation — the storage does — so the parsers write an ordinary
/// comparison and this pass, given the tables the storage holds, rewrites
/// each comparison of a relation key with Pointers into
/// ``Predicate/relationHolds(key:className:object:)`` (<doc:EvaluationSemantics>,
/// "Relation keys"):
///
/// | written | becomes |
/// |---|---|
/// | `k = P` | the relation holds P |
/// | `k != P` | not (the relation holds P) |
/// | `k in (P1, P2)` | it holds P1 or P2 |
/// | `k not in (P1, P2)` | it holds neither |
/// | `k all (P1, P2)` | it holds both |
///
/// Only the object's own tests of the query and of each sub-query (of its
/// own class) are read; every other test of a relation key (`exists`, a
/// range, a non-Pointer value) still tests the marker. The pointer's
/// objectId is what a join row records, so its class name is not compared.
///
/// ```swift
/// let q = try WhereJSONReader.read(#"{"users":{"__type":"Pointer","className":"_User","objectId":"u1"}}"#, className: "_Role")
/// q.resolvingRelationKeys(hasTable: { $0 == "_Join:users:_Role" })?.condition?.predicate
/// // .relationHolds(key: "users", className: "_Role", object: .value(.pointer(Pointer(className: "_User", objectId: "u1"))))
/// q.resolvingRelationKeys(hasTable: { _ in false })   // nil: no relation, nothing changes
/// ```
extension Query {
    /// This query with its relation keys' comparisons resolved, or `nil`
    /// when none of its (or its sub-queries') comparisons is of a relation
    /// key: `hasTable` says whether the storage holds a table, and is asked
    /// only about `_Join:<key>:<Class>` names of keys compared with Pointers.
    public func resolvingRelationKeys(hasTable: (String) -> Bool) -> Query? {
        guard let condition, let new = Self.resolving(condition, className: className, hasTable) else { return nil }
        var q = self
        q.condition = new
        return q
    }

    private static func resolving(_ c: Condition, className: String, _ hasTable: (String) -> Bool) -> Condition? {
        c.transformed(entering: .ownTests) { node -> Condition? in
            if let sub = node.mappingSubquery({ $0.resolvingRelationKeys(hasTable: hasTable) }) { return sub }
            func held(_ key: FieldPath, _ terms: [Term]) -> [Condition]? {
                guard let k = key.singleComponent, !terms.isEmpty,
                      terms.allSatisfy({ if case .value(.pointer) = $0 { true } else { false } }),
                      hasTable("_Join:\(k):\(className)")
                else { return nil }
                return terms.map { Condition(.relationHolds(key: k, className: className, object: $0), range: node.range) }
            }
            switch node.predicate {
            case .compare(let key, .equal, let t): return held(key, [t])?.first
            case .compare(let key, .notEqual, let t): return held(key, [t]).map { .not($0[0], range: node.range) }
            case .in(let key, let terms, let negated):
                guard let each = held(key, terms) else { return nil }
                let any = Condition.or(each, range: node.range)
                return negated ? .not(any, range: node.range) : any
            case .all(let key, let terms): return held(key, terms).map { Condition.and($0, range: node.range) }
            case .and, .or, .not, .constant, .compare, .size, .exists, .regex, .like, .prefix, .text, .containedBy, .elementMatch,
                 .type, .modulo, .fullText, .select, .inQuery, .relatedTo, .relationHolds, .aclGrants, .near, .withinBox,
                 .withinPolygon, .withinCenterSphere, .geoIntersects:
                return nil
            }
        }
    }
}

extension Condition {
    /// A ``Predicate/relationHolds(key:className:object:)`` node as the
    /// comparison it was made of (`key = object`), which is how every text
    /// prints it; any other node as it is.
    ///
    /// ```swift
    /// Condition(.relationHolds(key: "users", className: "_Role", object: .value(.pointer(Pointer(className: "_User", objectId: "u1")))))
    ///     .writtenAsComparison.predicate   // .compare("users", .equal, .value(.pointer(...)))
    /// ```
    public var writtenAsComparison: Condition {
        guard case .relationHolds(let key, _, let object) = predicate else { return self }
        return Condition(.compare(FieldPath([key]), .equal, object), range: range)
    }
}
