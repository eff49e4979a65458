/// What a query's condition tree contains, in the terms the optimizer's
/// rules trigger on: one cheap walk tells which rules can possibly change
/// the query, so the optimizer skips the others without walking the tree
/// once per rule (``OptimizerRule/triggers``).
///
/// Each feature is a necessary condition of some rule's rewrite, computed
/// from the shapes of the nodes only (which predicate, which operator, how
/// many operands), never from their values: a feature may be present where
/// the rule then finds nothing to do, but a rule whose triggers are all
/// absent leaves the query unchanged. The walk covers every node a rule
/// visits (subquery conditions included) and the inside of `$elemMatch`
/// too, which no rule visits: more features than needed is always safe.
///
/// ```swift
/// let q = try CQLParser.parse("select * from T where a = 1 and b like 'x%'")
/// let features = ConditionFeatures(q)
/// features.contains(.prefixPattern)  // true  (CanonicalPrefix may apply)
/// features.contains(.negation)       // false (PushNegation cannot apply)
/// ```
public struct ConditionFeatures: OptionSet, Hashable, Sendable {
    public let rawValue: UInt32
    public init(rawValue: UInt32) { self.rawValue = rawValue }

    /// A `not` node.
    public static let negation = ConditionFeatures(rawValue: 1 << 0)
    /// A `true` or `false` node.
    public static let constant = ConditionFeatures(rawValue: 1 << 1)
    /// An `and` / `or` without operands, or an `in` / `all` with an empty list.
    public static let emptyList = ConditionFeatures(rawValue: 1 << 2)
    /// An `and` / `or` with one operand, or with an operand of its own kind.
    public static let nestedLogic = ConditionFeatures(rawValue: 1 << 3)
    /// An `and` / `or` where one operand's operands (an `or` under an `and`,
    /// an `and` under an `or`; else the operand itself) have node kinds
    /// that all occur among another's: a duplicate or absorbed operand is possible.
    public static let absorbableOperand = ConditionFeatures(rawValue: 1 << 4)
    /// An `and` / `or` with a `not` operand, or with two operands of
    /// kinds that negate each other (`=` and `!=`, `in` and `not in`,
    /// `exists` and `not exists`, `true` and `false`, `$select` and
    /// `$dontSelect`, `$inQuery` and `$notInQuery`).
    public static let complementKinds = ConditionFeatures(rawValue: 1 << 5)
    /// An `and` with two comparisons other than `!=` on keys that never
    /// hold arrays (`objectId`, `createdAt`, `updatedAt`).
    public static let arrayFreeComparisons = ConditionFeatures(rawValue: 1 << 6)
    /// An `or` of two or more operands whose conjuncts share a node kind.
    public static let sharedConjunctKind = ConditionFeatures(rawValue: 1 << 7)
    /// An `and` / `or` with two lower bounds (`>`, `>=`) or two upper bounds (`<`, `<=`).
    public static let boundPair = ConditionFeatures(rawValue: 1 << 8)
    /// An `or` with two operands that are `=` or `in`.
    public static let equalityPair = ConditionFeatures(rawValue: 1 << 9)
    /// An `and` with two operands that are `!=` or `not in`.
    public static let inequalityPair = ConditionFeatures(rawValue: 1 << 10)
    /// An `in` / `not in` list of fewer than two or more than
    /// `RemoveDuplicates.linearLimit` terms, or with a repeated term.
    public static let reducibleInList = ConditionFeatures(rawValue: 1 << 11)
    /// A `like` or `regexp` test that may be a literal prefix: a `like`
    /// pattern ending in `%` that starts with neither `%` nor `_` (or is all
    /// `%`), a `regexp` pattern starting with `^` with no option but `s`.
    public static let prefixPattern = ConditionFeatures(rawValue: 1 << 12)
    /// A geo test with a GeoPoint, box, polygon or distance operand, which
    /// ``CompileTimeChecks`` must check (no rule triggers on it): the
    /// optimizer skips that second walk of the tree on queries without one.
    static let geoOperand = ConditionFeatures(rawValue: 1 << 13)
    /// A query (the top level, not a subquery) that asks only for a count
    /// and has an order: ``DropOrderForCount``'s trigger, so that rule costs
    /// nothing (no call through its existential) on every other query.
    static let countOnlyOrder = ConditionFeatures(rawValue: 1 << 14)

    /// The features of `query`'s condition and of its subqueries' conditions.
    public init(_ query: borrowing Query) {
        self.init()
        if query.count == .only && !query.order.isEmpty { insert(.countOnlyOrder) }
        if query.condition != nil { _ = visit(query.condition!) }
    }

    /// The features of `condition` and of the conditions under it.
    public init(_ condition: Condition) {
        self.init()
        _ = visit(condition)
    }

    /// What a parent learns of one operand in the same pass: its kind
    /// (``Predicate/featureKind``), the kinds of its own operands (an `and`
    /// / `or`), and whether it compares an array-free key (not by `!=`).
    private struct Operand {
        var kind: UInt64
        var operandKinds: UInt64 = 0
        var arrayFreeTest = false
    }

    /// Inserts the features of `c` and of everything under it.
    private mutating func visit(_ c: Condition) -> Operand {
        let p = c.predicate
        let kind = p.featureKind
        switch p {
        case .and(let items): return Operand(kind: kind, operandKinds: visitLogic(items, isAnd: true))
        case .or(let items): return Operand(kind: kind, operandKinds: visitLogic(items, isAnd: false))
        case .not(let inner):
            insert(.negation)
            _ = visit(inner)
        case .constant: insert(.constant)
        case .compare(let path, let op, _):
            return Operand(kind: kind, arrayFreeTest: op != .notEqual && PathKey.isArrayFree(path))
        case .in(_, let terms, _):
            if terms.isEmpty { insert(.emptyList) }
            if ConditionFeatures.isReducible(terms) { insert(.reducibleInList) }
        case .all(_, let terms): if terms.isEmpty { insert(.emptyList) }
        case .like(_, let pattern):
            if ConditionFeatures.mayBeLikePrefix(pattern) { insert(.prefixPattern) }
        case .regex(_, let pattern, let options):
            if ConditionFeatures.mayBeRegexPrefix(pattern, options) { insert(.prefixPattern) }
        case .elementMatch(_, let inner): _ = visit(inner)
        case .near, .withinBox, .withinPolygon, .withinCenterSphere, .geoIntersects: insert(.geoOperand)
        case .select(_, _, let query, _), .inQuery(_, let query, _):
            if let inner = query.condition { _ = visit(inner) }
        case .size, .exists, .prefix, .text, .containedBy, .type, .modulo, .fullText, .relatedTo, .relationHolds, .aclGrants: break
        }
        return Operand(kind: kind)
    }

    /// Whether SingletonIn may rewrite a list: too short, too long for its
    /// linear duplicate search, or with a repeated term (`==` holds for
    /// every byte-exactly equal pair, so it finds at least those).
    private static func isReducible(_ terms: [Term]) -> Bool {
        if terms.count < 2 || terms.count > RemoveDuplicates.linearLimit { return true }
        for i in 1..<terms.count {
            for j in 0..<i where mayBeEqual(terms[i], terms[j]) && terms[i] == terms[j] { return true }
        }
        return false
    }

    /// `false` when two integer constants differ, without `==` of two Terms
    /// (their derived equality through two boxes). `true` for anything else,
    /// which `==` then decides.
    private static func mayBeEqual(_ a: Term, _ b: Term) -> Bool {
        if case .value(.int(let x)) = a, case .value(.int(let y)) = b { return x == y }
        return true
    }

    /// Whether CanonicalPrefix may read a `like` pattern as a prefix: a
    /// string ending in `%` that starts with neither wildcard, or is all `%`
    /// (anything else fails its first character).
    /// Over the pattern's contiguous bytes (not the UTF8View's `first`, `last` and `allSatisfy`).
    private static func mayBeLikePrefix(_ pattern: Term) -> Bool {
        guard case .value(.string(let text)) = pattern else { return false }
        func judge(_ b: UnsafeBufferPointer<UInt8>) -> Bool {
            guard let first = b.first, b[b.count - 1] == UInt8(ascii: "%") else { return false }
            if first != UInt8(ascii: "%") && first != UInt8(ascii: "_") { return true }
            for c in b where c != UInt8(ascii: "%") { return false }
            return true
        }
        if let answer = text.utf8.withContiguousStorageIfAvailable(judge) { return answer }
        return Array(text.utf8).withUnsafeBufferPointer(judge)
    }

    /// Whether CanonicalPrefix may read a `regexp` as a prefix: a string
    /// starting with `^`, with no option but `s`.
    private static func mayBeRegexPrefix(_ pattern: Term, _ options: String) -> Bool {
        guard case .value(.string(let text)) = pattern else { return false }
        return text.utf8.first == UInt8(ascii: "^") && (options.isEmpty || options.utf8.allSatisfy { $0 == UInt8(ascii: "s") })
    }

    /// Inserts the features of an `and` (`isAnd`) or `or` with `items` and
    /// of everything under it; returns the union of the operands' kinds.
    private mutating func visitLogic(_ items: [Condition], isAnd: Bool) -> UInt64 {
        if items.isEmpty { insert(.emptyList) }
        if items.count == 1 { insert(.nestedLogic) }
        let own = isAnd ? Predicate.andKind : Predicate.orKind, other = isAnd ? Predicate.orKind : Predicate.andKind
        var kinds: UInt64 = 0
        var repeatedKind = false, mixed = false
        var lower = 0, upper = 0, equalities = 0, inequalities = 0, arrayFree = 0
        // The kinds every operand's conjuncts share (an `or`'s common conjunct).
        var sharedConjuncts: UInt64 = ~0
        // The first two operands' inner kinds as ``hasSubsetOperand(_:isAnd:)``
        // reads them, kept from this pass: a pair (the usual `or`) is
        // judged from them without reading the tree again.
        var inner0: UInt64 = 0, inner1: UInt64 = 0
        var n = 0
        for item in items {
            let o = visit(item)
            if n < 2 {
                let k = o.kind == other ? o.operandKinds : o.kind
                if n == 0 { inner0 = k } else { inner1 = k }
                n += 1
            }
            if kinds & o.kind != 0 { repeatedKind = true }
            kinds |= o.kind
            if o.kind == own { insert(.nestedLogic) }
            if o.kind == other { mixed = true }
            sharedConjuncts &= !isAnd && o.kind == Predicate.andKind ? o.operandKinds : o.kind
            if o.kind & Predicate.lowerBoundKinds != 0 { lower += 1 }
            if o.kind & Predicate.upperBoundKinds != 0 { upper += 1 }
            if o.kind & Predicate.equalityKinds != 0 { equalities += 1 }
            if o.kind & Predicate.inequalityKinds != 0 { inequalities += 1 }
            if o.arrayFreeTest { arrayFree += 1 }
        }
        if repeatedKind || (mixed && (items.count == 2 ? inner0 & ~inner1 == 0 || inner1 & ~inner0 == 0
                                                      : ConditionFeatures.hasSubsetOperand(items, isAnd: isAnd))) {
            insert(.absorbableOperand)
        }
        if kinds & Predicate.notKind != 0 || kinds & (kinds >> 1) & ConditionFeatures.complementaryLow != 0 {
            insert(.complementKinds)
        }
        if lower > 1 || upper > 1 { insert(.boundPair) }
        if isAnd {
            if inequalities > 1 { insert(.inequalityPair) }
            if arrayFree > 1 { insert(.arrayFreeComparisons) }
        } else {
            if equalities > 1 { insert(.equalityPair) }
            if items.count > 1 && sharedConjuncts != 0 { insert(.sharedConjunctKind) }
        }
        return kinds
    }

    /// Whether the kinds of one operand's operands (as RemoveDuplicates
    /// reads them: the disjuncts of an `or` under an `and`, the conjuncts of
    /// an `and` under an `or`, else the operand) all occur among another's.
    /// Long lists are answered `true` without the quadratic search.
    private static func hasSubsetOperand(_ items: [Condition], isAnd: Bool) -> Bool {
        guard items.count <= RemoveDuplicates.linearLimit else { return true }
        func innerKinds(_ c: Condition) -> UInt64 {
            switch c.predicate {
            case .or(let inner) where isAnd: return kinds(of: inner)
            case .and(let inner) where !isAnd: return kinds(of: inner)
            case .and, .or, .not, .constant, .compare, .in, .all, .size, .exists, .regex, .like, .prefix, .text,
                 .containedBy, .elementMatch, .type, .modulo, .fullText, .select, .inQuery, .relatedTo, .relationHolds, .aclGrants,
                 .near, .withinBox, .withinPolygon, .withinCenterSphere, .geoIntersects: return c.predicate.featureKind
            }
        }
        for i in items.indices {
            let a = innerKinds(items[i])
            for j in items.indices where j != i && innerKinds(items[j]) & ~a == 0 { return true }
        }
        return false
    }

    private static func kinds(of items: [Condition]) -> UInt64 {
        var k: UInt64 = 0
        for item in items { k |= item.predicate.featureKind }
        return k
    }

    /// Pairs of kinds that ``ExactNegation`` maps onto each other, each
    /// two adjacent bits, given by the lower one: a set of kinds holds a
    /// pair when `kinds & (kinds >> 1)` has one of these bits (one test
    /// instead of a closure over a list of pairs).
    private static let complementaryLow: UInt64 =
        (1 << 3)  // true, false
        | (1 << 5)  // =, !=
        | (1 << 11)  // in, not in
        | (1 << 15)  // exists, not exists
        | (1 << 26)  // $select, $dontSelect
        | (1 << 28)  // $inQuery, $notInQuery
}

extension Predicate {
    static let andKind: UInt64 = 1 << 0
    static let orKind: UInt64 = 1 << 1
    static let notKind: UInt64 = 1 << 2
    static let regexKind: UInt64 = 1 << 17
    static let likeKind: UInt64 = 1 << 18
    static let nearKind: UInt64 = 1 << 31
    /// `>`, `>=`; `<`, `<=`; `=`, `in`; `!=`, `not in`.
    static let lowerBoundKinds: UInt64 = (1 << 9) | (1 << 10)
    static let upperBoundKinds: UInt64 = (1 << 7) | (1 << 8)
    static let equalityKinds: UInt64 = (1 << 5) | (1 << 11)
    static let inequalityKinds: UInt64 = (1 << 6) | (1 << 12)

    /// One bit per node kind: the enum case, split by comparison operator
    /// and by the negated / boolean flag where ``ExactNegation`` flips it.
    /// Equal predicates have the same kind.
    /// Inlined: every walk asks it of every node (a call each cost more than the switch).
    @inline(__always)
    var featureKind: UInt64 {
        switch self {
        case .and: return 1 << 0
        case .or: return 1 << 1
        case .not: return 1 << 2
        case .constant(let b): return b ? 1 << 3 : 1 << 4
        case .compare(_, let op, _):
            switch op {
            case .equal: return 1 << 5
            case .notEqual: return 1 << 6
            case .lessThan: return 1 << 7
            case .lessThanOrEqual: return 1 << 8
            case .greaterThan: return 1 << 9
            case .greaterThanOrEqual: return 1 << 10
            }
        case .in(_, _, let negated): return negated ? 1 << 12 : 1 << 11
        case .all: return 1 << 13
        case .size: return 1 << 14
        case .exists(_, let present): return present ? 1 << 15 : 1 << 16
        case .regex: return 1 << 17
        case .like: return 1 << 18
        case .prefix: return 1 << 19
        case .text: return 1 << 20
        case .containedBy: return 1 << 21
        case .elementMatch: return 1 << 22
        case .type: return 1 << 23
        case .modulo: return 1 << 24
        case .fullText: return 1 << 25
        case .select(_, _, _, let negated): return negated ? 1 << 27 : 1 << 26
        case .inQuery(_, _, let negated): return negated ? 1 << 29 : 1 << 28
        case .relatedTo: return 1 << 30
        case .near: return 1 << 31
        case .withinBox: return 1 << 32
        case .withinPolygon: return 1 << 33
        case .withinCenterSphere: return 1 << 34
        case .geoIntersects: return 1 << 35
        case .aclGrants: return 1 << 36
        case .relationHolds: return 1 << 37
        }
    }
}
