import CQLKit

/// `include` (EvaluationSemantics.md): each Pointer at a path is replaced by the
/// pointed object as `.typedObject` (`{"__type":"Object","className":...}`)
/// when the store has it; a missing target stays a Pointer. Paths are
/// multi-level (`post.author` includes `post`, then `author` inside it) and
/// fan out over arrays, including arrays of Pointers.
struct Includer: Sendable {
    let paths: [[String]]
    let store: DocumentStore

    var isEmpty: Bool { paths.isEmpty }

    func apply(_ object: [String: Value]) -> [String: Value] {
        Includer.apply(object, paths) { store.object(className: $0.className, objectId: $0.objectId) }
    }

    /// `object` with the Pointers at `paths` replaced by what `lookup`
    /// finds for them (the one traversal both ``apply(_:)`` and
    /// ``DocumentStore/pointersIncludeLacks(in:paths:)`` make).
    static func apply(_ object: [String: Value], _ paths: [[String]], _ lookup: (Pointer) -> [String: Value]?) -> [String: Value] {
        var root = Value.object(object)
        for path in paths { root = resolve(root, path[...], lookup) }
        if case .object(let o) = root { return o }
        return object
    }

    private static func resolve(_ value: Value, _ steps: ArraySlice<String>, _ lookup: (Pointer) -> [String: Value]?) -> Value {
        guard let first = steps.first else { return value }
        switch value {
        case .object(var o):
            if let child = o[first] { o[first] = resolveChild(child, steps.dropFirst(), lookup) }
            return .object(o)
        case .typedObject(let c, var o):
            if let child = o[first] { o[first] = resolveChild(child, steps.dropFirst(), lookup) }
            return .typedObject(className: c, fields: o)
        case .array(let items):
            return .array(items.map { resolve($0, steps, lookup) })
        default:
            return value
        }
    }

    /// The value at the end of a step: a Pointer is replaced, then the
    /// remaining steps continue inside whatever is there.
    private static func resolveChild(_ child: Value, _ rest: ArraySlice<String>, _ lookup: (Pointer) -> [String: Value]?) -> Value {
        switch child {
        case .pointer(let p):
            guard let target = lookup(p) else { return child }
            return resolve(.typedObject(className: p.className, fields: target), rest, lookup)
        case .array(let items):
            return .array(items.map { resolveChild($0, rest, lookup) })
        default:
            return resolve(child, rest, lookup)
        }
    }
}

extension DocumentStore {
    /// The Pointers that `include` of `paths` over `objects` looks up and
    /// this store does not hold, in the order first met: what a storage
    /// reads (by objectId) so that the store includes exactly what a store
    /// of every object would.
    ///
    /// A Pointer inside an object not yet held is not reached: read the
    /// Pointers returned, add what exists, and ask again until nothing is
    /// returned but Pointers known to be missing (each round goes one level
    /// deeper, so there are at most as many rounds as the longest path has
    /// steps).
    ///
    /// ```swift
    /// var store = DocumentStore()
    /// let post: [String: Value] = ["objectId": "p1", "author": .pointer(Pointer(className: "_User", objectId: "u1"))]
    /// store.pointersIncludeLacks(in: [post], paths: [FieldPath(["author", "team"])])
    /// // [Pointer(className: "_User", objectId: "u1")]; once u1 is added, its team's Pointer
    /// ```
    public func pointersIncludeLacks(in objects: [[String: Value]], paths: [FieldPath]) -> [Pointer] {
        let steps = paths.map(\.components)
        var lacking: [Pointer] = [], seen = Set<Pointer>()
        for o in objects {
            _ = Includer.apply(o, steps) { p in
                if let found = object(className: p.className, objectId: p.objectId) { return found }
                if seen.insert(p).inserted { lacking.append(p) }
                return nil
            }
        }
        return lacking
    }
}

extension DocumentStore {
    /// `object` with the Pointers at `paths` replaced by the objects this
    /// store holds, as a query's `include` replaces them (multi-level paths,
    /// arrays of Pointers; a Pointer the store lacks stays a Pointer). For
    /// an object that is not in the store: a LiveQuery event's image.
    ///
    /// ```swift
    /// var store = DocumentStore()
    /// store.add([["objectId": "u1", "username": "ada"]], to: "_User")
    /// let post: [String: Value] = ["objectId": "p1", "author": .pointer(Pointer(className: "_User", objectId: "u1"))]
    /// store.including(post, paths: [FieldPath(["author"])])["author"]
    /// // .typedObject(className: "_User", fields: ["objectId": "u1", "username": "ada"])
    /// ```
    public func including(_ object: [String: Value], paths: [FieldPath]) -> [String: Value] {
        Includer(paths: paths.map(\.components), store: self).apply(object)
    }
}
