/// One member fragment of a where object collected by
/// ``DirectConditionWriter``: a key's equality, one operator of a key's
/// operator object, or a top-level `$or` / `$nor` item. Its key and its
/// operand's JSON text live as bytes in the request's scratch sink
/// (``JSONByteSink``), the operand rendered as it was collected: an entry
/// holds no reference (it is copied, sorted and dropped without a retain
/// or release), and nothing is built per node that the JSON text does not
/// need: no ``WhereDoc``, no ``Value``, no dictionary.
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

    /// The member's key as it is (not escaped): its bytes in the request's
    /// scratch sink (a key path, or `$or` / `$nor` / `$and` for top-level entries).
    var key: Range<Int>
    var kind: Kind
    /// What the entry writes after its key: its JSON text, rendered into the
    /// scratch sink when the entry was collected (an `$or`'s branches too).
    var operand: Range<Int>
    /// Set when sorted: the entry has the key of the one before it (same member).
    var continuesKey = false
    /// The key's bytes need no JSON escape (a plain key or a literal such
    /// as `$or`): they are written between quotes as they are.
    var keyIsUnescaped: Bool

    init(key: Range<Int>, kind: Kind, operand: Range<Int>, keyIsUnescaped: Bool = false) {
        self.key = key
        self.kind = kind
        self.operand = operand
        self.keyIsUnescaped = keyIsUnescaped
    }

    /// Member order of `a` and `b` (keys read from the scratch sink's
    /// bytes at `base`): key by code point (UTF-8 byte order), then operator name.
    static func precedes(_ a: DirectConditionEntry, _ b: DirectConditionEntry, _ base: UnsafePointer<UInt8>) -> Bool {
        let c = compareKeys(a.key, b.key, base)
        return c != 0 ? c < 0 : a.kind < b.kind
    }

    /// `-1`, `0` or `1` as the key bytes at `a` sort before, with or after those at `b`.
    static func compareKeys(_ a: Range<Int>, _ b: Range<Int>, _ base: UnsafePointer<UInt8>) -> Int {
        let n = Swift.min(a.count, b.count)
        let x = base + a.lowerBound, y = base + b.lowerBound
        var i = 0
        while i < n {
            if x[i] != y[i] { return x[i] < y[i] ? -1 : 1 }
            i += 1
        }
        return a.count == b.count ? 0 : (a.count < b.count ? -1 : 1)
    }
}
