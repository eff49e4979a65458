import CQLKit

/// A condition that is a conjunction of tests on top-level keys — the usual
/// shape, `score > 500 and cheatMode = false and name in ('a', 'b')` —
/// compiled so that an object is tested by finding each key in its
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
/// Keys are resolved at plan time (``ResolvedKey``): a small object is
/// searched by comparing the key's length, then the key, with each stored key
/// — cheaper than hashing the key (SipHash) for every object and predicate,
/// which the dictionary's per-instance seed makes impossible to do once.
///
/// A class: the loop reads the clauses in place, where a struct would be
/// copied (retaining its arrays) at every object.
///
/// ```swift
/// let plan = try QueryPlan(try Binder.bind(CQLParser.parse("select * from T where a > 1 and b in ('x', 'y')"), parameters: []))
/// plan.rootClauses?.matches(["a": 2, "b": "x"])   // true
/// ```
final class RootClauses: Sendable {
    enum Kind: Sendable {
        case scalar, member, prefix
    }

    /// One test: its key, and where its constant is. The constants sit in one
    /// array per kind, so that the loop copies (and retains) nothing but
    /// reads each test in place.
    struct Clause: Sendable {
        let key: ResolvedKey
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
                guard let key = ResolvedKey(path) else { return nil }
                clauses.append(Clause(key: key, kind: .scalar, slot: scalars.count, passesWhenMissing: false))
                scalars.append(test)
            case .member(let path, let set):
                guard let key = ResolvedKey(path), set.allScalars else { return nil }
                clauses.append(Clause(key: key, kind: .member, slot: members.count, passesWhenMissing: set.hasNull))
                members.append(set.scalars)
            case .prefix(let path, let texts):
                guard let key = ResolvedKey(path) else { return nil }
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

    /// Whether the object passes every clause; the same answer as
    /// `node.matches(.object(object), context)` for the node it was built from.
    @inline(__always)
    func matches(_ object: [String: Value]) -> Bool {
        clauses.withUnsafeBufferPointer { clauses in
            for i in clauses.indices {
                guard let index = clauses[i].key.index(in: object) else {
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
    /// as each node's evaluation in Node+Matches.swift says.
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

/// A top-level key resolved at plan time for lookups in many objects.
///
/// `index(in:)` finds the same entry as `object.index(forKey: key)`, the one
/// stored key that is `==` to it (dictionary keys are distinct under `==`).
/// A small object is scanned instead of hashed, and a stored key is compared
/// only when its UTF-8 length is the key's. That filter is exact because the
/// key needs no byte check (``Accessor/Step/checksBytes`` is false: ASCII,
/// none of the three characters with a non-ASCII canonical equivalent), so a
/// key `==` to it has its very bytes.
///
/// ```swift
/// let key = ResolvedKey(Accessor(FieldPath(["score"])))!
/// key.index(in: ["score": 1, "level": 2]).map { ["score": 1, "level": 2][$0].value }   // .int(1)
/// ResolvedKey(Accessor(FieldPath(["K"])))                                            // nil (byte check)
/// ```
struct ResolvedKey: Sendable {
    let key: String
    /// `key.utf8.count`.
    let length: Int

    /// Up to how many members an object is scanned: past that, hashing the
    /// key once costs less than comparing lengths with every stored key.
    static let scanLimit = 8

    /// The key of a one-step path that a dictionary lookup reads exactly (no
    /// byte check, no Date coercion); else `nil`.
    init?(_ path: Accessor) {
        guard let key = path.singleKey, !path.steps[0].checksBytes, !path.coercesDates else { return nil }
        self.key = key
        self.length = key.utf8.count
    }

    /// The position of the key's entry in `object`, if any.
    @inline(__always)
    func index(in object: [String: Value]) -> Dictionary<String, Value>.Index? {
        guard object.count <= Self.scanLimit else { return object.index(forKey: key) }
        let keys = object.keys
        var i = keys.startIndex
        let end = keys.endIndex
        while i != end {
            // Reads the stored key in place; `==` only on equal lengths.
            if keys[i].utf8.count == length && keys[i] == key { return i }
            keys.formIndex(after: &i)
        }
        return nil
    }
}
