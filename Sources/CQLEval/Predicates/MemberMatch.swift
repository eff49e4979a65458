import CQLKit

extension Node {
    /// The root key this node reads alone, when what it asks of an object
    /// can be told from that one member's value (``matches(member:_:)``): a
    /// leaf of the common kinds on a one-step ASCII path, other than
    /// `createdAt`/`updatedAt` (whose strings are read as Dates).
    ///
    /// Why: streaming NDJSON, such a conjunct is tested on the member's
    /// value built alone from the scanned line, with no object built.
    var memberKey: String? {
        let path: Accessor
        switch self {
        case .equal(let p, _), .isNull(let p), .range(let p, _), .scalar(let p, _), .member(let p, _), .exists(let p),
            .prefix(let p, _), .regex(let p, _), .size(let p, _):
            path = p
        default:
            return nil
        }
        guard let key = path.singleKey, !path.coercesDates, key.utf8.allSatisfy({ $0 < 0x80 }) else { return nil }
        return key
    }

    /// `matches(.object(o), context)` for an object `o` whose member at
    /// ``memberKey`` is `x` (`nil`: there is none). Only for nodes with a
    /// ``memberKey``.
    ///
    /// ```swift
    /// // score > 900
    /// node.matches(member: .int(950), context)   // true
    /// node.matches(member: nil, context)         // false
    /// ```
    func matches(member x: Value?, _ context: EvalContext) -> Bool {
        switch self {
        case .scalar(_, let test):
            guard let x else { return false }
            return test.matches(x)
        case .equal(_, let v):
            guard let x else { return false }
            return Node.equalMatches(x, v)
        case .isNull:
            guard let x else { return true }
            return Node.isNullMatches(x)
        case .range(_, let test):
            guard let x else { return false }
            return Node.rangeMatches(x, test)
        case .member(_, let set):
            guard let x else { return set.hasNull }
            return Node.memberMatches(x, set)
        case .exists:
            return x != nil
        case .prefix(_, let prefix):
            guard let x else { return false }
            return Node.prefixMatches(x, prefix)
        case .regex(_, let regex):
            guard let x else { return false }
            return Node.regexMatches(x, regex, context)
        case .size(_, let n):
            guard case .array(let items)? = x else { return false }
            return items.count == n
        default:
            preconditionFailure("matches(member:) on a node without a memberKey")
        }
    }
}
