import CQLKit

/// `include` (semantics.md): each Pointer at a path is replaced by the
/// pointed object as `.typedObject` (`{"__type":"Object","className":...}`)
/// when the store has it; a missing target stays a Pointer. Paths are
/// multi-level (`post.author` includes `post`, then `author` inside it) and
/// fan out over arrays, including arrays of Pointers.
struct Includer: Sendable {
    let paths: [[String]]
    let store: DocumentStore

    var isEmpty: Bool { paths.isEmpty }

    func apply(_ object: [String: Value]) -> [String: Value] {
        var root = Value.object(object)
        for path in paths { root = resolve(root, path[...]) }
        if case .object(let o) = root { return o }
        return object
    }

    private func resolve(_ value: Value, _ steps: ArraySlice<String>) -> Value {
        guard let first = steps.first else { return value }
        switch value {
        case .object(var o):
            if let child = o[first] { o[first] = resolveChild(child, steps.dropFirst()) }
            return .object(o)
        case .typedObject(let c, var o):
            if let child = o[first] { o[first] = resolveChild(child, steps.dropFirst()) }
            return .typedObject(className: c, fields: o)
        case .array(let items):
            return .array(items.map { resolve($0, steps) })
        default:
            return value
        }
    }

    /// The value at the end of a step: a Pointer is replaced, then the
    /// remaining steps continue inside whatever is there.
    private func resolveChild(_ child: Value, _ rest: ArraySlice<String>) -> Value {
        switch child {
        case .pointer(let p):
            guard let target = store.object(className: p.className, objectId: p.objectId) else { return child }
            return resolve(.typedObject(className: p.className, fields: target), rest)
        case .array(let items):
            return .array(items.map { resolveChild($0, rest) })
        default:
            return resolve(child, rest)
        }
    }
}
