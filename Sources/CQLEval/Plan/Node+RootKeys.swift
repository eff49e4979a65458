extension Node {
    /// The top-level keys of the object that this condition reads, or `nil`
    /// when it may read any of them (a path with no steps).
    ///
    /// Why: streaming a large file, each line is parsed keeping only these
    /// keys (`JSONReader.parse(bytes:keepingOnly:)`); the condition cannot
    /// tell that object from the whole one, and only matching lines are
    /// parsed whole.
    var rootKeys: Set<String>? {
        var keys = Set<String>()
        return collectRootKeys(into: &keys) ? keys : nil
    }

    /// Adds the keys read to `keys`; `false` when any key may be read.
    private func collectRootKeys(into keys: inout Set<String>) -> Bool {
        func add(_ path: Accessor) -> Bool {
            guard let first = path.steps.first else { return false }
            keys.insert(first.key)
            return true
        }
        switch self {
        case .constant:
            return true
        case .and(let nodes), .or(let nodes):
            for n in nodes where !n.collectRootKeys(into: &keys) { return false }
            return true
        case .not(let n):
            return n.collectRootKeys(into: &keys)
        case .aclGrants:
            keys.insert("ACL")
            return true
        case .objectIdIn:
            keys.insert("objectId")
            return true
        // The node inside `elementMatch` reads array elements, not the root.
        case .equal(let path, _), .isNull(let path), .range(let path, _), .scalar(let path, _), .member(let path, _),
            .size(let path, _), .exists(let path), .regex(let path, _), .prefix(let path, _), .elementMatch(let path, _, _), .type(let path, _),
            .modulo(let path, _, _), .containedBy(let path, _), .pointerIn(let path, _, _), .geo(let path, _),
            .geoIntersects(let path, _), .foldedRange(let path, _):
            return add(path)
        }
    }
}
