import CQLKit

/// The members of an `in` list made only of null, booleans, numbers and
/// strings (the usual lists), by type, so that a lookup hashes the bare value
/// instead of going through ``SemanticKey`` (canonical form, generic hash,
/// generic equality).
///
/// It answers exactly as `Set<SemanticKey>.contains` (PredicateFastPathTests
/// checks both): numbers are kept as exact integers when integral and within
/// Int64 (so `1`, `1.0` and `-0.0`/`0` are one member, and `2^53 + 1` is not
/// the double `2^53`), other doubles as doubles (NaN, never equal to
/// anything, is never found); strings compare by UTF-8 bytes; a value of any
/// other type (array, object, Date, ...) equals no scalar member.
///
/// A class, not a struct: probes read it in place, where a struct this size
/// (three sets, two arrays) is copied (retaining each part) at every probe.
final class ScalarMembers: Sendable {
    private let integers: Set<Int64>
    private let doubles: Set<Double>
    private let strings: Set<UTF8Key>
    private let hasTrue: Bool, hasFalse: Bool, hasNull: Bool
    /// The strings and the integers again when there are few: comparing a
    /// handful one by one costs less than hashing the probe (SipHash).
    private let fewStrings: [String], fewIntegers: [Int64]
    private let scansStrings: Bool, scansIntegers: Bool
    /// Up to how many members a list is scanned instead of hashed.
    static let scanLimit = 8

    /// `nil` when a member is not a scalar.
    init?(_ values: [Value]) {
        var integers = Set<Int64>(), doubles = Set<Double>(), strings = Set<UTF8Key>()
        var hasTrue = false, hasFalse = false, hasNull = false
        for v in values {
            switch v {
            case .null: hasNull = true
            case .bool(let b): if b { hasTrue = true } else { hasFalse = true }
            case .int(let i): integers.insert(i)
            case .double(let d):
                if let i = Numbers.exactInteger(v) { integers.insert(i) } else { doubles.insert(d) }
            case .string(let s): strings.insert(UTF8Key(s))
            default: return nil
            }
        }
        (self.integers, self.doubles, self.strings) = (integers, doubles, strings)
        (self.hasTrue, self.hasFalse, self.hasNull) = (hasTrue, hasFalse, hasNull)
        scansStrings = strings.count <= Self.scanLimit
        scansIntegers = integers.count <= Self.scanLimit
        fewStrings = scansStrings ? strings.map(\.string) : []
        fewIntegers = scansIntegers ? Array(integers) : []
    }

    /// No members.
    convenience init() { self.init([])! }

    @inline(__always)
    func contains(_ v: Value) -> Bool {
        switch v {
        case .null: return hasNull
        case .bool(let b): return b ? hasTrue : hasFalse
        case .int(let i): return containsInteger(i)
        case .double(let d):
            if let i = Numbers.exactInteger(v) { return containsInteger(i) }
            return doubles.contains(d)
        case .string(let s):
            if scansStrings { return fewStrings.contains { Semantic.bytesEqual($0, s) } }
            return strings.contains(UTF8Key(s))
        default: return false
        }
    }

    @inline(__always)
    private func containsInteger(_ i: Int64) -> Bool {
        if scansIntegers { return fewIntegers.contains(i) }
        return integers.contains(i)
    }
}

/// A String hashed and compared by its UTF-8 bytes (Swift's own `==` and
/// hash follow Unicode canonical equivalence; EvaluationSemantics.md compares bytes).
struct UTF8Key: Hashable, Sendable {
    let string: String
    init(_ string: String) { self.string = string }
    static func == (a: UTF8Key, b: UTF8Key) -> Bool { Semantic.bytesEqual(a.string, b.string) }
    func hash(into h: inout Hasher) {
        let done: Void? = string.utf8.withContiguousStorageIfAvailable { h.combine(bytes: UnsafeRawBufferPointer($0)) }
        if done == nil { for b in string.utf8 { h.combine(b) } }
    }
}
