import CQLKit

/// `keys` (EvaluationSemantics.md): the listed paths plus `objectId`, `createdAt` and
/// `updatedAt`; `-k` removes `k`; Usergrid `{source: alias}` returns the
/// value of `source` under `alias`. Dotted paths project into nested objects
/// (and into each object of an array, as MongoDB does).
///
/// LeanCloud's `returnACL` (``Query/returnACL``) asks the server to include
/// each object's `ACL` field. The store holds objects as the server stores
/// them, ACL included, so without a projection there is nothing to add, and
/// without `returnACL` nothing is taken away (the data files are the
/// server's view, and hiding a stored field would surprise more than it
/// would imitate). What `returnACL` changes here: `ACL` comes back like the
/// built-in keys even when `keys` does not list it (Corpus/eval/usergrid.cases,
/// "returnACL" rows).
struct Projection: Sendable {
    static let builtIn = ["objectId", "createdAt", "updatedAt"]

    struct Alias: Sendable {
        let path: Accessor
        let name: String
    }

    /// Listed paths; empty with `keepsAll` when only exclusions (or `*`) were given.
    let included: [[String]]
    let aliases: [Alias]
    let excluded: [[String]]
    let keepsAll: Bool
    /// The keys that always come back: the built-in ones, and `ACL` with `returnACL`.
    let alwaysKept: [String]

    /// `nil` when there is no projection (every key is returned).
    init?(_ keys: [SelectedKey], keepingACL: Bool = false) {
        guard !keys.isEmpty else { return nil }
        let alwaysKept = Projection.builtIn + (keepingACL ? ["ACL"] : [])
        var included: [[String]] = [], aliases: [Alias] = [], excluded: [[String]] = []
        var star = false
        for k in keys {
            if k.path.dotted == "*" {
                star = true
            } else if k.excluded {
                // The built-in keys always come back.
                if !(k.path.components.count == 1 && alwaysKept.contains(k.path.components[0])) {
                    excluded.append(k.path.components)
                }
            } else if let alias = k.alias {
                aliases.append(Alias(path: Accessor(k.path), name: alias))
            } else {
                included.append(k.path.components)
            }
        }
        self.included = included
        self.aliases = aliases
        self.excluded = excluded
        self.alwaysKept = alwaysKept
        keepsAll = star || (included.isEmpty && aliases.isEmpty)
    }

    func apply(_ object: [String: Value]) -> [String: Value] {
        var out: [String: Value]
        if keepsAll {
            out = object
        } else {
            out = [:]
            for key in alwaysKept { if let v = object[key] { out[key] = v } }
            let root = Value.object(object)
            for path in included {
                guard let first = path.first, let projected = Projection.copy(root, path[...]),
                    case .object(let o) = projected, let v = o[first]
                else { continue }
                out[first] = Projection.merge(out[first], v)
            }
            for alias in aliases {
                if let v = alias.path.plainValue(root) { out[alias.name] = v }
            }
        }
        for path in excluded {
            if case .object(let o) = Projection.remove(.object(out), path[...]) { out = o }
        }
        return out
    }

    /// The part of `value` at `steps`, keeping the enclosing structure.
    private static func copy(_ value: Value, _ steps: ArraySlice<String>) -> Value? {
        guard let first = steps.first else { return value }
        switch value {
        case .object(let o):
            guard let child = o[first], let sub = copy(child, steps.dropFirst()) else { return nil }
            return .object([first: sub])
        case .typedObject(let c, let o):
            guard let child = o[first], let sub = copy(child, steps.dropFirst()) else { return nil }
            // An included object keeps its identity.
            var fields: [String: Value] = [first: sub]
            if let id = o["objectId"] { fields["objectId"] = id }
            return .typedObject(className: c, fields: fields)
        case .array(let items):
            return .array(items.compactMap { item -> Value? in
                switch item {
                case .object, .typedObject: return copy(item, steps)
                default: return nil
                }
            })
        default:
            return nil
        }
    }

    /// Deep merge of two projections of the same value.
    private static func merge(_ a: Value?, _ b: Value) -> Value {
        guard let a else { return b }
        switch (a, b) {
        case (.object(var x), .object(let y)):
            for (k, v) in y { x[k] = merge(x[k], v) }
            return .object(x)
        case (.typedObject(let c, var x), .typedObject(_, let y)):
            for (k, v) in y { x[k] = merge(x[k], v) }
            return .typedObject(className: c, fields: x)
        case (.array(let x), .array(let y)) where x.count == y.count:
            return .array(zip(x, y).map { merge($0, $1) })
        default:
            return b
        }
    }

    private static func remove(_ value: Value, _ steps: ArraySlice<String>) -> Value {
        guard let first = steps.first else { return value }
        let rest = steps.dropFirst()
        switch value {
        case .object(var o):
            if rest.isEmpty { o[first] = nil } else if let child = o[first] { o[first] = remove(child, rest) }
            return .object(o)
        case .typedObject(let c, var o):
            if rest.isEmpty { o[first] = nil } else if let child = o[first] { o[first] = remove(child, rest) }
            return .typedObject(className: c, fields: o)
        case .array(let items):
            return .array(items.map { remove($0, steps) })
        default:
            return value
        }
    }
}
