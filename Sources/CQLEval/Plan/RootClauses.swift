import CQLKit

/// A condition that is a conjunction of tests on top-level keys — the usual
/// shape, `score > 500 and cheatMode = false and name in ('a', 'b')` —
/// compiled so that an object is tested by looking each key up in its
/// dictionary and testing the value in place: no `.object` wrapping, no
/// path walk, no closure and no `Node` dispatch per predicate.
///
/// Taken only for ``Node/scalar(_:_:)``, ``Node/member(_:_:)`` (lists of
/// scalars: ``ScalarMembers``) and
/// ``Node/prefix(_:_:)`` on a one-step path whose key needs no byte check
/// and reads no `createdAt`/`updatedAt` Date coercion (``Accessor``); any
/// other node leaves the plan on the ``Node`` tree. It answers exactly as
/// that tree (RootClausesTests compares both).
///
/// ```swift
/// let plan = try QueryPlan(Binder.bind(CQLParser.parse("select * from T where a > 1 and b in ('x', 'y')"), parameters: []))
/// plan.rootClauses?.matches(["a": 2, "b": "x"])   // true
/// ```
struct RootClauses: Sendable {
    enum Kind: Sendable {
        case scalar, member, prefix
    }

    /// One test: its key, and where its constant is. The constants sit in one
    /// array per kind, so that the loop copies (and retains) nothing but
    /// reads each test in place.
    struct Clause: Sendable {
        let key: String
        let kind: Kind
        let slot: Int
        /// Whether an object without the key passes (`in` lists holding null).
        let passesWhenMissing: Bool
    }

    let clauses: [Clause]
    private let scalars: [ScalarTest]
    private let members: [ScalarMembers]
    private let prefixes: [[[UInt8]]]

    /// `nil` when some part of `node` is not a test on a plain top-level key.
    init?(_ node: Node) {
        let nodes: [Node]
        if case .and(let items) = node { nodes = items } else { nodes = [node] }
        var clauses: [Clause] = []
        var scalars: [ScalarTest] = [], members: [ScalarMembers] = [], prefixes: [[[UInt8]]] = []
        for n in nodes {
            switch n {
            case .scalar(let path, let test):
                guard let key = RootClauses.plainKey(path) else { return nil }
                clauses.append(Clause(key: key, kind: .scalar, slot: scalars.count, passesWhenMissing: false))
                scalars.append(test)
            case .member(let path, let set):
                guard let key = RootClauses.plainKey(path), set.allScalars else { return nil }
                clauses.append(Clause(key: key, kind: .member, slot: members.count, passesWhenMissing: set.hasNull))
                members.append(set.scalars)
            case .prefix(let path, let texts):
                guard let key = RootClauses.plainKey(path) else { return nil }
                clauses.append(Clause(key: key, kind: .prefix, slot: prefixes.count, passesWhenMissing: false))
                prefixes.append(texts)
            default:
                return nil
            }
        }
        self.clauses = clauses
        self.scalars = scalars
        self.members = members
        self.prefixes = prefixes
    }

    /// The key of a one-step path that a dictionary subscript reads exactly.
    private static func plainKey(_ path: Accessor) -> String? {
        guard let key = path.singleKey, !path.steps[0].checksBytes, !path.coercesDates else { return nil }
        return key
    }

    /// Whether the object passes every clause; the same answer as
    /// `node.matches(.object(object), context)` for the node it was built from.
    @inline(__always)
    func matches(_ object: [String: Value]) -> Bool {
        clauses.withUnsafeBufferPointer { clauses in
            for i in clauses.indices {
                guard let index = object.index(forKey: clauses[i].key) else {
                    if clauses[i].passesWhenMissing { continue }
                    return false
                }
                // Tested where it is stored (`values[index]` is read in place),
                // not copied out as `object[key]` would: copying a `Value` goes
                // through its value witness.
                if !passes(object.values[index], clauses[i].kind, clauses[i].slot) { return false }
            }
            return true
        }
    }

    /// The value reached passes: itself or (one level) an array element,
    /// as each node's evaluation in Evaluator.swift says.
    @inline(__always)
    private func passes(_ value: Value, _ kind: Kind, _ slot: Int) -> Bool {
        switch kind {
        case .scalar:
            return scalars.withUnsafeBufferPointer { $0[slot].matches(value) }
        case .member:
            let set = members[slot]
            if set.contains(value) { return true }
            if case .array(let items) = value { return items.contains(where: set.contains) }
            return false
        case .prefix:
            switch value {
            case .string(let s): return Node.startsWithAny(s, prefixes[slot])
            case .array(let items):
                for case .string(let s) in items where Node.startsWithAny(s, prefixes[slot]) { return true }
                return false
            default: return false
            }
        }
    }
}
