import CQLKit

/// A plan's condition as the NDJSON stream tests a scanned line
/// (`JSONLineScan`): its conjuncts in order; one that reads a single root
/// member (``Node/memberKey``) is tested on that member's value, built alone
/// from the line, and the others on the object of the kept members, built
/// the first time one needs it. So a line that fails an early conjunct on
/// a number or a string costs no object at all.
///
/// The result, and the first error (a regex too expensive), are those of
/// `condition.matches(object)`: the same conjuncts run in the same order
/// on the same values.
struct ScanCondition: Sendable {
    struct Conjunct: Sendable {
        let node: Node
        /// The member key's UTF-8, when the node has a ``Node/memberKey``.
        let key: [UInt8]?
    }

    let conjuncts: [Conjunct]

    init(_ condition: Node) {
        let nodes: [Node]
        if case .and(let list) = condition { nodes = list } else { nodes = [condition] }
        conjuncts = nodes.map { Conjunct(node: $0, key: $0.memberKey.map { Array($0.utf8) }) }
    }
}

extension QueryPlan {
    /// Whether the scanned line matches `condition` (this plan's); `nil` when
    /// a value cannot be built from the scan (read the line with the reader).
    /// `keys`: the plan's root keys, for the conjuncts that need the object.
    func matches(
        scanned scan: JSONLineScan, _ condition: ScanCondition, keys: JSONKeyFilter, parser: JSONLineParser, context: EvalContext
    ) throws(QueryError) -> Bool? {
        var object: [String: Value]?
        for c in condition.conjuncts {
            let passes: Bool
            if let key = c.key {
                var value: Value?
                if let k = scan.lastMember(named: key) {
                    guard let v = scan.builtValue(k, parser) else { return nil }
                    value = v
                }
                passes = c.node.matches(member: value, context)
            } else {
                if object == nil {
                    guard let o = scan.object(keepingOnly: keys, parser: parser) else { return nil }
                    object = o
                }
                passes = c.node.matches(.object(object!), context)
            }
            try throwFailure(context)
            if !passes { return false }
        }
        return true
    }
}
