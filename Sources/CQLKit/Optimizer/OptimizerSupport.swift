/// What the rules share: operands of a node, exact negation, and the order of
/// constants within a type class.
enum Operands {
    /// The conjuncts of `c` (`c` itself unless it is an `and`).
    static func conjuncts(_ c: Condition) -> [Condition] {
        if case .and(let items) = c.predicate { return items }
        return [c]
    }

    /// The disjuncts of `c` (`c` itself unless it is an `or`).
    static func disjuncts(_ c: Condition) -> [Condition] {
        if case .or(let items) = c.predicate { return items }
        return [c]
    }

    /// Key paths whose value is never an array: the built-in keys every
    /// object has with a scalar value (a string id, two Dates). On these a
    /// value test sees one value, so two tests that need two different values
    /// contradict each other.
    static let arrayFreePaths: Set<FieldPath> = ["objectId", "createdAt", "updatedAt"]
}

/// Negation without a `not` node, where EvaluationSemantics.md makes it exact.
enum ExactNegation {
    /// The condition matching exactly the objects `c` does not match, when one
    /// exists without a `not` node (or by removing one); else `nil`.
    ///
    /// Exact by the table of EvaluationSemantics.md: `!=` is defined as `not =` (and
    /// `= null` / `!= null` likewise), `not in` as `not (in)`, `exists false`
    /// as `not exists`, `$notInQuery`/`$dontSelect` as the negations of
    /// `$inQuery`/`$select`, and `not not p` is `p` (each object either
    /// matches or not: there is no third truth value). The ranges are absent
    /// on purpose: `not (a > 1)` also matches missing, null, strings and
    /// arrays without an element above 1, which `a <= 1` does not.
    static func negate(_ c: Condition) -> Condition? {
        let r = c.range
        switch c.predicate {
        case .not(let inner): return inner
        case .constant(let b): return Condition(.constant(!b), range: r)
        case .compare(let path, .equal, let t): return Condition(.compare(path, .notEqual, t), range: r)
        case .compare(let path, .notEqual, let t): return Condition(.compare(path, .equal, t), range: r)
        case .in(let path, let terms, let negated): return Condition(.in(path, terms, negated: !negated), range: r)
        case .exists(let path, let present): return Condition(.exists(path, !present), range: r)
        case .select(let path, let key, let query, let negated):
            return Condition(.select(path, key: key, query: query, negated: !negated), range: r)
        case .inQuery(let path, let query, let negated):
            return Condition(.inQuery(path, query: query, negated: !negated), range: r)
        case .and, .or, .compare, .all, .size, .regex, .like, .prefix, .text, .containedBy, .elementMatch, .type,
             .modulo, .fullText, .relatedTo, .relationHolds, .aclGrants, .near, .withinBox, .withinPolygon, .withinCenterSphere,
             .geoIntersects: return nil
        }
    }
}

/// Constants of one type class and their order, as the evaluator compares them.
enum ConstantOrder {
    enum TypeClass { case number, string, date }

    /// The class of a constant that range merging and contradiction tests
    /// understand; `nil` for null (whose ranges are special), booleans,
    /// objects, arrays and the other typed values.
    static func typeClass(_ t: Term) -> TypeClass? {
        switch t.value {
        case .int?: return .number
        case .double(let d)? where !d.isNaN: return .number
        case .string?: return .string
        case .date?: return .date
        default: return nil
        }
    }

    /// `-1`, `0`, `1`: numbers by exact value (`1 == 1.0`), strings by code
    /// point, Dates by instant. Both constants must be of one class.
    static func compare(_ a: Value, _ b: Value) -> Int? {
        switch (a, b) {
        case (.int(let x), .int(let y)): return x < y ? -1 : (x == y ? 0 : 1)
        case (.double(let x), .double(let y)): return x < y ? -1 : (x == y ? 0 : 1)
        case (.int(let x), .double(let y)): return compare(x, y)
        case (.double(let x), .int(let y)): return -compare(y, x)
        case (.string(let x), .string(let y)): return CodePointOrder.compare(x, y)
        case (.date(let x), .date(let y)): return x < y ? -1 : (x == y ? 0 : 1)
        default: return nil
        }
    }

    /// An integer against a double, exactly (no rounding of large integers).
    private static func compare(_ i: Int64, _ d: Double) -> Int {
        if d >= 9_223_372_036_854_775_808.0 { return -1 }
        if d < -9_223_372_036_854_775_808.0 { return 1 }
        let t = Int64(d.rounded(.down))
        if i < t { return -1 }
        if i > t { return 1 }
        return Double(t) == d ? 0 : -1
    }
}

/// Byte-exact identity, which is what the evaluator uses: Swift's `==` on
/// `String` (hence on `Value`, `FieldPath`, `Condition`) treats canonically
/// equivalent strings as equal (`"é"` precomposed and decomposed), but
/// EvaluationSemantics.md compares strings and keys by their UTF-8 bytes. The rules
/// decide "the same operand" and "the same key" with these.
struct ExactCondition: Hashable {
    let condition: Condition

    init(_ c: Condition) { condition = c }

    /// Swift's equality first (cheap, and false for most pairs); the printed
    /// form, byte for byte, only for the pairs it calls equal.
    static func == (a: ExactCondition, b: ExactCondition) -> Bool {
        a.condition == b.condition && ASTPrinter.describe(a.condition).utf8.elementsEqual(ASTPrinter.describe(b.condition).utf8)
    }

    func hash(into h: inout Hasher) { h.combine(condition) }
}

extension Array where Element == Condition {
    /// Whether some element is byte-exactly `c`.
    func containsExactly(_ c: Condition) -> Bool {
        let key = ExactCondition(c)
        return contains { ExactCondition($0) == key }
    }
}

/// Byte-exact identity of a term (see ``ExactCondition``).
struct ExactTerm: Hashable {
    let term: Term

    init(_ t: Term) { term = t }

    static func == (a: ExactTerm, b: ExactTerm) -> Bool {
        // Integer, boolean and null constants print as their value: equal
        // ones are byte-exact without printing both.
        if case .value(let x) = a.term, case .value(let y) = b.term {
            switch (x, y) {
            case (.int(let i), .int(let j)): return i == j
            case (.bool(let p), .bool(let q)): return p == q
            case (.null, .null): return true
            default: break
            }
        }
        return a.term == b.term && ASTPrinter.term(a.term).utf8.elementsEqual(ASTPrinter.term(b.term).utf8)
    }
    func hash(into h: inout Hasher) { h.combine(term) }
}

/// A key path by the bytes of its components (see ``ExactCondition``).
struct PathKey: Hashable {
    let components: [[UInt8]]
    init(_ path: FieldPath) { components = path.components.map { Array($0.utf8) } }

    /// Whether the path is one of ``Operands/arrayFreePaths``.
    var isArrayFree: Bool { PathKey.arrayFree.contains(self) }
    static let arrayFree: Set<PathKey> = Set(Operands.arrayFreePaths.map(PathKey.init))

    /// Whether two paths are the same by their bytes, as their `PathKey`s
    /// compare, without building them.
    static func sameBytes(_ a: FieldPath, _ b: FieldPath) -> Bool {
        if let x = a.singleComponent, let y = b.singleComponent { return x.utf8.elementsEqual(y.utf8) }
        return a.componentCount == b.componentCount
            && zip(a.components, b.components).allSatisfy { $0.utf8.elementsEqual($1.utf8) }
    }

    /// Whether `path` is one of ``Operands/arrayFreePaths`` by its bytes,
    /// as `PathKey(path).isArrayFree` answers, without building the key.
    static func isArrayFree(_ path: FieldPath) -> Bool {
        guard let s = path.singleComponent else { return false }
        // The length first (8 or 9 bytes), then Swift's `==` (cheap for
        // short ASCII strings, and true for every byte-equal pair), and the
        // bytes only then.
        let n = s.utf8.count
        guard n == 8 || n == 9 else { return false }
        // The bytes as one 8-byte word (and the 9th), not String `==` and `elementsEqual`.
        if let answer = s.utf8.withContiguousStorageIfAvailable({ b -> Bool in
            let word = UInt64(littleEndian: UnsafeRawPointer(b.baseAddress!).loadUnaligned(as: UInt64.self))
            if n == 8 { return word == PathKey.objectIdWord }
            return b[8] == UInt8(ascii: "t") && (word == PathKey.createdAWord || word == PathKey.updatedAWord)
        }) {
            return answer
        }
        let c = s.utf8
        return c.elementsEqual("objectId".utf8) || c.elementsEqual("createdAt".utf8) || c.elementsEqual("updatedAt".utf8)
    }

    /// `objectId`, `createdA`, `updatedA` as little-endian words (first byte lowest).
    private static let objectIdWord: UInt64 = 0x6449_7463_656A_626F
    private static let createdAWord: UInt64 = 0x4164_6574_6165_7263
    private static let updatedAWord: UInt64 = 0x4164_6574_6164_7075
}
