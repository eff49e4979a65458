import CQLKit

/// A plan's condition as the NDJSON stream tests a scanned line
/// (`JSONLineScan`): its conjuncts in order; one whose path reaches a single
/// value (``Node/memberPath``: a root member, or a member of a root member
/// that is an object) is tested on that value, built alone from the line,
/// and the others on the object of the kept members, built the first time
/// one needs it. So a line that fails an early conjunct on
/// a number or a string costs no object at all.
///
/// The result, and the first error (a regex too expensive), are those of
/// `condition.matches(object)`: the same conjuncts run in the same order
/// on the same values.
struct ScanCondition: Sendable {
    struct Conjunct: Sendable {
        let node: Node
        /// The UTF-8 of the root key and of the key under it, when the node
        /// has a ``Node/memberPath``.
        let key: [UInt8]?
        let subkey: [UInt8]?
    }

    let conjuncts: [Conjunct]

    init(_ condition: Node) {
        let nodes: [Node]
        if case .and(let list) = condition { nodes = list } else { nodes = [condition] }
        conjuncts = nodes.map { node in
            let path = node.memberPath
            return Conjunct(node: node, key: path.map { Array($0[0].utf8) }, subkey: path.flatMap { $0.count == 2 ? Array($0[1].utf8) : nil })
        }
    }
}

extension QueryPlan {
    /// Whether the scanned line matches `condition` (this plan's); `nil` when
    /// a value cannot be built from the scan (read the line with the reader).
    /// `keys`: the plan's root keys, for the conjuncts that need the object;
    /// `inner`: a scan for the object members that two-step paths read.
    func matches(
        scanned scan: JSONLineScan, _ condition: ScanCondition, keys: JSONKeyFilter, parser: JSONLineParser,
        inner: JSONLineScan, context: EvalContext
    ) throws(QueryError) -> Bool? {
        var object: [String: Value]?
        for c in condition.conjuncts {
            var passes: Bool?
            if let key = c.key {
                // The value reached; a path that meets an array takes the object.
                var value: Value?
                var crossesArray = false
                if let k = scan.lastMember(named: key) {
                    if let subkey = c.subkey {
                        switch scan.members[k].kind {
                        case .object:
                            guard inner.scan(scan.value(k)) else { return nil }
                            if let j = inner.lastMember(named: subkey) {
                                guard let v = inner.builtValue(j, parser) else { return nil }
                                value = v
                            }
                        case .array, .typed:
                            // An array fans out; a typed value's members
                            // are the reader's to say: both take the object.
                            crossesArray = true
                        default:
                            break  // a scalar has no members: missing
                        }
                    } else {
                        guard let v = scan.builtValue(k, parser) else { return nil }
                        value = v
                    }
                }
                if !crossesArray { passes = c.node.matches(member: value, context) }
            }
            if passes == nil {
                if object == nil {
                    guard let o = scan.object(keepingOnly: keys, parser: parser) else { return nil }
                    object = o
                }
                passes = c.node.matches(.object(object!), context)
            }
            try throwFailure(context)
            if passes != true { return false }
        }
        return true
    }
}
