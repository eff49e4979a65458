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
struct ScalarMembers: Sendable {
    private var integers = Set<Int64>()
    private var doubles = Set<Double>()
    private var strings = Set<UTF8Key>()
    private var hasTrue = false, hasFalse = false, hasNull = false

    /// `nil` when a member is not a scalar.
    init?(_ values: [Value]) {
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
    }

    @inline(__always)
    func contains(_ v: Value) -> Bool {
        switch v {
        case .null: return hasNull
        case .bool(let b): return b ? hasTrue : hasFalse
        case .int(let i): return integers.contains(i)
        case .double(let d):
            if let i = Numbers.exactInteger(v) { return integers.contains(i) }
            return doubles.contains(d)
        case .string(let s): return strings.contains(UTF8Key(s))
        default: return false
        }
    }
}

/// A String hashed and compared by its UTF-8 bytes (Swift's own `==` and
/// hash follow Unicode canonical equivalence; semantics.md compares bytes).
struct UTF8Key: Hashable, Sendable {
    let string: String
    init(_ string: String) { self.string = string }
    static func == (a: UTF8Key, b: UTF8Key) -> Bool { Semantic.bytesEqual(a.string, b.string) }
    func hash(into h: inout Hasher) {
        let done: Void? = string.utf8.withContiguousStorageIfAvailable { h.combine(bytes: UnsafeRawBufferPointer($0)) }
        if done == nil { for b in string.utf8 { h.combine(b) } }
    }
}
