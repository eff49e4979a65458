import CQLKit

extension Node {
    /// The keys of this node's path when what it asks of an object can be
    /// told from the one value the path reaches without crossing an array
    /// (``matches(member:_:)``): a leaf of the common kinds on a path of one
    /// or two ASCII steps, other than `createdAt`/`updatedAt` (whose strings
    /// are read as Dates).
    ///
    /// Why: streaming NDJSON, such a conjunct is tested on that value, built
    /// alone from the scanned line, with no object built.
    var memberPath: [String]? {
        let path: Accessor
        switch self {
        case .equal(let p, _), .isNull(let p), .range(let p, _), .scalar(let p, _), .member(let p, _), .exists(let p),
            .prefix(let p, _), .regex(let p, _), .size(let p, _):
            path = p
        default:
            return nil
        }
        guard path.steps.count == 1 || path.steps.count == 2, !path.coercesDates,
              path.steps.allSatisfy({ $0.key.utf8.allSatisfy { $0 < 0x80 } }) else { return nil }
        return path.steps.map(\.key)
    }

    /// `matches(.object(o), context)` for an object `o` in which the path
    /// (``memberPath``) reaches `x` and no array (`nil`: it reaches nothing,
    /// a missing branch). Only for nodes with a ``memberPath``.
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
            preconditionFailure("matches(member:) on a node without a memberPath")
        }
    }
}
