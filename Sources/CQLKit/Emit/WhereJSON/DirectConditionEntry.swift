/// One member fragment of a where object collected by
/// ``DirectConditionWriter``: a key's equality, one operator of a key's
/// operator object, or a top-level `$or` / `$nor` item. It keeps the operand
/// as the emitter's ``Value`` (a scalar costs nothing to keep), an `$in`
/// list of plain constants as its terms, and the `$or` branches as the
/// conditions themselves, so nothing is built per node that
/// the JSON text does not need: no ``WhereDoc``, no dictionary, no sorting of
/// a `[String: Value]`.
struct DirectConditionEntry {
    /// What the entry is, in the order members of one operator object are
    /// written (code point order of the operator names, as ``JSONWriter``
    /// sorts object keys), so sorting entries by (key, kind) sorts both the
    /// object's members and each operator object's operators.
    enum Kind: UInt8, Comparable {
        /// `"k": v` alone; `"$eq": v` when merged with operators on `k`.
        case equality
        case exists, gt, gte, `in`, lt, lte, ne, nin, not, options, regex, size
        /// A top-level `$or`: `branches` are written as its items.
        case or
        /// One item of the top-level `$nor` (all of a group's concatenate).
        case nor

        static func < (a: Kind, b: Kind) -> Bool { a.rawValue < b.rawValue }

        /// The operator's name as written (`$eq` for a merged equality).
        var name: StaticString {
            switch self {
            case .equality: return "$eq"
            case .exists: return "$exists"
            case .gt: return "$gt"
            case .gte: return "$gte"
            case .in: return "$in"
            case .lt: return "$lt"
            case .lte: return "$lte"
            case .ne: return "$ne"
            case .nin: return "$nin"
            case .not: return "$not"
            case .options: return "$options"
            case .regex: return "$regex"
            case .size: return "$size"
            case .or: return "$or"
            case .nor: return "$nor"
            }
        }

        /// `"$gt":`: the operator as a member of an operator object, its
        /// quotes and colon included (one copy per operator).
        var member: StaticString {
            switch self {
            case .equality: return #""$eq":"#
            case .exists: return #""$exists":"#
            case .gt: return #""$gt":"#
            case .gte: return #""$gte":"#
            case .in: return #""$in":"#
            case .lt: return #""$lt":"#
            case .lte: return #""$lte":"#
            case .ne: return #""$ne":"#
            case .nin: return #""$nin":"#
            case .not: return #""$not":"#
            case .options: return #""$options":"#
            case .regex: return #""$regex":"#
            case .size: return #""$size":"#
            case .or: return #""$or":"#
            case .nor: return #""$nor":"#
            }
        }

        /// `$or` and `$nor` are members of the where object itself.
        var isTopLevel: Bool { self == .or || self == .nor }
    }

    /// What an entry writes after its key.
    enum Operand {
        /// A value the emitter computed (``ConditionEmitter/value(_:at:allowRelativeTime:)``).
        case value(Value)
        /// `$in` / `$nin`: constants that are their own JSON form (see
        /// ``DirectConditionWriter/isPlain(_:)``), written without building a list.
        case plainList([Term])
        /// `$or`: the branches, and the depth the emitter renders them at.
        case branches([Condition], depth: Int)
        /// `$regex` of a `like`: the LIKE pattern, whose regex
        /// (``LikePattern/regex(_:)``) is written straight as JSON text
        /// (``JSONByteSink/appendLikeRegex(_:)``), not built as a String.
        case likeRegex(String)
        /// `$regex` of a prefix whose every byte is plain
        /// (``LikePattern/prefixRegex(_:)`` is then `^` and the prefix).
        case plainPrefixRegex(String)
    }

    /// The member's key: a key path, or `$or` / `$nor` / `$and` for top-level entries.
    var key: String
    var kind: Kind
    var operand: Operand
    /// Set when sorted: the entry has the key of the one before it (same member).
    var continuesKey = false
    /// The key is known to be ASCII (a plain one-component key): the
    /// writer's test for keys that are equal Strings with other bytes skips it.
    var keyIsASCII = false

    init(key: String, kind: Kind, _ operand: Operand) {
        self.key = key
        self.kind = kind
        self.operand = operand
    }

    /// Member order of `a` and `b`: key by code point, then operator name.
    static func precedes(_ a: UnsafeMutablePointer<DirectConditionEntry>, _ b: UnsafeMutablePointer<DirectConditionEntry>) -> Bool {
        let c = CodePointOrder.compare(a.pointee.key, b.pointee.key)
        return c != 0 ? c < 0 : a.pointee.kind < b.pointee.kind
    }
}
