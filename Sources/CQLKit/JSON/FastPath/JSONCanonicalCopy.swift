/// Writes an NDJSON line in ``JSONWriter``'s form (compact, keys sorted by
/// code point) straight from its bytes, without building a ``Value``: the
/// members of each object are sorted and their values copied. What it cannot
/// copy with certainty of byte identity with reading the line (typed values
/// decoded) and writing it again, it refuses, and the caller takes that road:
///
/// - an object with a `"__type"` key (a typed value), a duplicate key, or a
///   key that is not printable ASCII without escapes (Swift dictionaries
///   merge canonically equivalent non-ASCII keys);
/// - a number other than a plain integer of at most 18 digits (`-0`,
///   fractions and exponents have their own written form);
/// - a string escape other than `\"` `\\` `\n` `\r` `\t` `\b` `\f`, and DEL;
/// - nesting deeper than 64.
///
/// The line must already have been read without error by ``JSONReader``
/// (the copy checks the form it copies, not everything the reader checks).
///
/// ```swift
/// var out: [UInt8] = []
/// JSONCanonicalCopy.write(line /* {"b":1, "a":[true]} */, to: &out)   // true; out: {"a":[true],"b":1}
/// ```
package enum JSONCanonicalCopy {
    /// What to do with a typed value (an object with a `"__type"` key).
    package enum TypedValues {
        /// Refuse it: its written form is decided by decoding it.
        case refused
        /// Copy it without the whitespace between its tokens: the caller has
        /// proved that, up to that whitespace, its text is the writer's (as
        /// ``JSONLineScan`` does for each typed value of a line it writes).
        case proved
    }

    /// Appends the canonical text of `line` to `out` and returns `true`, or
    /// returns `false` leaving `out` as it was.
    package static func write(_ line: UnsafeBufferPointer<UInt8>, to out: inout [UInt8], typedValues: TypedValues = .refused) -> Bool {
        let mark = out.count
        var i = 0
        guard value(line, &i, &out, depth: 0, typedValues) else {
            out.removeSubrange(mark...)
            return false
        }
        skipSpace(line, &i)
        if i != line.count {
            out.removeSubrange(mark...)
            return false
        }
        return true
    }

    @inline(__always)
    private static func skipSpace(_ b: UnsafeBufferPointer<UInt8>, _ i: inout Int) {
        while i < b.count, b[i] == 0x20 || b[i] == 0x09 || b[i] == 0x0A || b[i] == 0x0D { i += 1 }
    }

    /// Copies the value at `i` (after spaces), leaving `i` after it.
    private static func value(_ b: UnsafeBufferPointer<UInt8>, _ i: inout Int, _ out: inout [UInt8], depth: Int,
                              _ typed: TypedValues) -> Bool {
        skipSpace(b, &i)
        guard i < b.count, depth < 64 else { return false }
        switch b[i] {
        case UInt8(ascii: "{"): return object(b, &i, &out, depth: depth, typed)
        case UInt8(ascii: "["):
            i += 1
            out.append(UInt8(ascii: "["))
            skipSpace(b, &i)
            if i < b.count, b[i] == UInt8(ascii: "]") { i += 1; out.append(UInt8(ascii: "]")); return true }
            while true {
                guard value(b, &i, &out, depth: depth + 1, typed) else { return false }
                skipSpace(b, &i)
                guard i < b.count else { return false }
                if b[i] == UInt8(ascii: "]") { i += 1; out.append(UInt8(ascii: "]")); return true }
                guard b[i] == UInt8(ascii: ",") else { return false }
                out.append(UInt8(ascii: ","))
                i += 1
            }
        case UInt8(ascii: "\""):
            let start = i
            guard string(b, &i, escapes: true) else { return false }
            out.append(contentsOf: UnsafeBufferPointer(rebasing: b[start..<i]))
            return true
        case UInt8(ascii: "t"): return word("true", b, &i, &out)
        case UInt8(ascii: "f"): return word("false", b, &i, &out)
        case UInt8(ascii: "n"): return word("null", b, &i, &out)
        default:
            let start = i
            if b[i] == UInt8(ascii: "-") { i += 1 }
            let digits = i
            while i < b.count, b[i] >= 0x30, b[i] <= 0x39 { i += 1 }
            let n = i - digits
            guard n >= 1, n <= 18, n == 1 || b[digits] != 0x30 else { return false }
            if i < b.count, b[i] == UInt8(ascii: ".") || b[i] == UInt8(ascii: "e") || b[i] == UInt8(ascii: "E") { return false }
            if digits > start && n == 1 && b[digits] == 0x30 { return false }  // -0
            out.append(contentsOf: UnsafeBufferPointer(rebasing: b[start..<i]))
            return true
        }
    }

    private static func word(_ w: StaticString, _ b: UnsafeBufferPointer<UInt8>, _ i: inout Int, _ out: inout [UInt8]) -> Bool {
        let n = w.utf8CodeUnitCount
        guard i + n <= b.count else { return false }
        for k in 0..<n where b[i + k] != w.utf8Start[k] { return false }
        out.append(contentsOf: UnsafeBufferPointer(start: w.utf8Start, count: n))
        i += n
        return true
    }

    /// Skips the string at `i` (its quotes included). Keys (`escapes: false`)
    /// must be printable ASCII without escapes.
    private static func string(_ b: UnsafeBufferPointer<UInt8>, _ i: inout Int, escapes: Bool) -> Bool {
        i += 1
        while i < b.count {
            let c = b[i]
            if c == UInt8(ascii: "\"") { i += 1; return true }
            if c == UInt8(ascii: "\\") {
                guard escapes, i + 1 < b.count else { return false }
                switch b[i + 1] {
                case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "n"), UInt8(ascii: "r"), UInt8(ascii: "t"),
                    UInt8(ascii: "b"), UInt8(ascii: "f"):
                    i += 2
                    continue
                default: return false
                }
            }
            if c < 0x20 || c == 0x7F || (!escapes && c >= 0x80) { return false }
            i += 1
        }
        return false
    }

    /// One member of an object: where its key's bytes and its value lie.
    private struct Member {
        var keyStart: Int, keyEnd: Int, valueStart: Int
    }

    private static func object(_ b: UnsafeBufferPointer<UInt8>, _ i: inout Int, _ out: inout [UInt8], depth: Int,
                               _ typed: TypedValues) -> Bool {
        let start = i
        i += 1
        var members: [Member] = []
        skipSpace(b, &i)
        if i < b.count, b[i] == UInt8(ascii: "}") {
            i += 1
            out.append(contentsOf: "{}".utf8)
            return true
        }
        // First the members' places (values skipped by a throwaway copy),
        // then the copy in key order.
        var scratch: [UInt8] = []
        while true {
            skipSpace(b, &i)
            guard i < b.count, b[i] == UInt8(ascii: "\"") else { return false }
            let keyStart = i + 1
            guard string(b, &i, escapes: false) else { return false }
            let keyEnd = i - 1
            if typed == .proved, keyEnd - keyStart == 6, equals(Member(keyStart: keyStart, keyEnd: keyEnd, valueStart: 0), "__type", b) {
                // A proved typed value: its text is the writer's, spaces aside.
                guard let end = objectEnd(b, from: i) else { return false }
                stripped(UnsafeBufferPointer(rebasing: b[start..<end]), to: &out)
                i = end
                return true
            }
            skipSpace(b, &i)
            guard i < b.count, b[i] == UInt8(ascii: ":") else { return false }
            i += 1
            skipSpace(b, &i)
            let valueStart = i
            scratch.removeAll(keepingCapacity: true)
            guard value(b, &i, &scratch, depth: depth + 1, typed) else { return false }
            members.append(Member(keyStart: keyStart, keyEnd: keyEnd, valueStart: valueStart))
            skipSpace(b, &i)
            guard i < b.count else { return false }
            if b[i] == UInt8(ascii: "}") { i += 1; break }
            guard b[i] == UInt8(ascii: ",") else { return false }
            i += 1
        }
        members.sort { precedes($0, $1, b) }
        for k in members.indices {
            if k > 0 && !precedes(members[k - 1], members[k], b) { return false }  // a duplicate key
            if equals(members[k], "__type", b) { return false }
        }
        out.append(UInt8(ascii: "{"))
        for (k, m) in members.enumerated() {
            if k > 0 { out.append(UInt8(ascii: ",")) }
            out.append(contentsOf: UnsafeBufferPointer(rebasing: b[(m.keyStart - 1)...m.keyEnd]))
            out.append(UInt8(ascii: ":"))
            var j = m.valueStart
            guard value(b, &j, &out, depth: depth + 1, typed) else { return false }
        }
        out.append(UInt8(ascii: "}"))
        return true
    }

    /// Appends `text` (well-formed JSON) without the whitespace between its tokens.
    static func stripped(_ text: UnsafeBufferPointer<UInt8>, to out: inout [UInt8]) {
        var j = 0, inString = false
        while j < text.count {
            let c = text[j]
            if inString {
                if c == UInt8(ascii: "\\") {
                    out.append(c)
                    out.append(text[j + 1])
                    j += 2
                    continue
                }
                if c == UInt8(ascii: "\"") { inString = false }
            } else if c == 0x20 || c == 0x0A || c == 0x0D || c == 0x09 {
                j += 1
                continue
            } else if c == UInt8(ascii: "\"") {
                inString = true
            }
            out.append(c)
            j += 1
        }
    }

    /// The index after the `}` that closes the object `i` is inside (at
    /// its top level, outside any string), or `nil`.
    private static func objectEnd(_ b: UnsafeBufferPointer<UInt8>, from i: Int) -> Int? {
        var j = i, depth = 1, inString = false
        while j < b.count {
            let c = b[j]
            j += 1
            if inString {
                if c == UInt8(ascii: "\\") { j += 1 } else if c == UInt8(ascii: "\"") { inString = false }
                continue
            }
            switch c {
            case UInt8(ascii: "\""): inString = true
            case UInt8(ascii: "{"), UInt8(ascii: "["): depth += 1
            case UInt8(ascii: "}"), UInt8(ascii: "]"):
                depth -= 1
                if depth == 0 { return j }
            default: break
            }
        }
        return nil
    }

    private static func precedes(_ x: Member, _ y: Member, _ b: UnsafeBufferPointer<UInt8>) -> Bool {
        let n = min(x.keyEnd - x.keyStart, y.keyEnd - y.keyStart)
        for k in 0..<n where b[x.keyStart + k] != b[y.keyStart + k] { return b[x.keyStart + k] < b[y.keyStart + k] }
        return x.keyEnd - x.keyStart < y.keyEnd - y.keyStart
    }

    private static func equals(_ m: Member, _ key: StaticString, _ b: UnsafeBufferPointer<UInt8>) -> Bool {
        guard m.keyEnd - m.keyStart == key.utf8CodeUnitCount else { return false }
        for k in 0..<key.utf8CodeUnitCount where b[m.keyStart + k] != key.utf8Start[k] { return false }
        return true
    }
}
