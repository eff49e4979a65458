/// One side of an NSPredicate comparison, after placeholders and variables
/// are bound: what the mapping (``NSPredicateMapping``) turns into a predicate.
enum NSPredicateOperand {
    /// `a.b.c`, `#size`, `%K`; `count` when the path ends in `.@count`.
    case keyPath(FieldPath, count: Bool, SourceRange)
    /// A literal, a bound `%@` / `$VAR` / `%d`, or `CAST(n, 'NSDate')`.
    case constant(Value, SourceRange)
    /// `{a, b, c}` (elements are constants).
    case aggregate([Value], SourceRange)
    /// `{lo, hi}` holding a key path: only `c BETWEEN {lo, hi}` takes it,
    /// read as the Parse iOS SDK expands it (`lo <= c AND hi >= c`).
    /// Elements are key paths and constants.
    case keyedAggregate([NSPredicateOperand], SourceRange)
    /// A `%@` / `$VAR` bound to a sub-query argument.
    case subquery(Query, SourceRange)
    /// `SELF`
    case `self`(SourceRange)

    var range: SourceRange {
        switch self {
        case .keyPath(_, _, let r), .constant(_, let r), .aggregate(_, let r), .keyedAggregate(_, let r), .subquery(_, let r), .self(let r):
            return r
        }
    }

    var isKeyPath: Bool { if case .keyPath = self { return true } else { return false } }

    /// How the operand is named in messages.
    var description: String {
        switch self {
        case .keyPath(let p, let count, _): return "the key path '\(p.dotted)\(count ? ".@count" : "")'"
        case .constant(let v, _):
            if case .array = v { return "an array" }
            return v.typeDescription == "null" ? "nil" : v.typeDescription
        case .aggregate: return "an aggregate {..}"
        case .keyedAggregate: return "an aggregate of key paths {..}"
        case .subquery: return "a sub-query"
        case .self: return "SELF"
        }
    }
}

/// The modifiers `[c]`, `[d]`, `[cd]` after an operator.
struct NSPredicateModifiers: Hashable {
    var caseInsensitive = false
    var diacriticInsensitive = false
    var range: SourceRange?

    var isEmpty: Bool { !caseInsensitive && !diacriticInsensitive }

    /// The regex options they stand for: `i` for `[c]`, `d` for `[d]`
    /// (``Predicate/regex(_:pattern:options:)``'s diacritic-folding option).
    var regexOptions: String { (diacriticInsensitive ? "d" : "") + (caseInsensitive ? "i" : "") }

    var text: String { "[" + (caseInsensitive ? "c" : "") + (diacriticInsensitive ? "d" : "") + "]" }
}
