/// A structural scan of one NDJSON line: where each top-level member's key
/// and value lie, checked as strictly as ``JSONReader`` reads it, with no
/// ``Value`` built. Reused from line to line (one per thread).
///
/// Why: evaluating a query over a large file reads a few keys of each line,
/// yet every line must be checked whole (bad data anywhere is an error naming
/// its line). The scan checks a line at a fraction of what building even its
/// few kept members costs through the reader, and the caller builds only the
/// values the query reads (``object(keepingOnly:parser:)``), and writes a matching line
/// from its bytes (``writeSorted(to:)``).
///
/// It takes only a subset of JSON and says no (`scan` returns `false`) to
/// the rest, which the caller reads with ``JSONReader`` as before — so every
/// error, and every rarely seen form, is the reader's:
///
/// - a top-level value other than an object; nesting deeper than 32;
/// - a key that is not printable ASCII without escapes; a line whose own
///   key is `__type` (the line is itself a typed value);
/// - a string that is not UTF-8, or with a `\u` surrogate escape;
/// - a typed value (`{"__type":"Date",...}`, at any depth) that does not
///   decode (``Cursor/typedValueDecodes(from:depth:)``);
/// - an integer of more than 18 digits, a number with an exponent, or an
///   integer part longer than 300 digits.
///
/// Non-ASCII text (validated a word at a time, ``JSONStringScan``) and
/// typed values are in the subset: real exports have both on every line.
///
/// A line it accepts, ``JSONReader`` accepts too (typed values decoded),
/// giving an object whose members are the ones listed here (a repeated key:
/// the last one).
///
/// ```swift
/// let scan = JSONLineScan()
/// scan.scan(line /* {"b":[1],"a":"x"} */)   // true; members: b → [1], a → "x"
/// var out: [UInt8] = []
/// scan.writeSorted(to: &out)                 // true; out: {"a":"x","b":[1]}
/// ```
package final class JSONLineScan {
    /// What a member's value is, as far as building it goes.
    package enum Kind: UInt8 {
        /// A string without escapes: its bytes between the quotes are its text.
        case plainString
        case escapedString
        /// An integer of at most 18 digits (``Member/integer``).
        case integer
        /// A number with a fraction.
        case fraction
        case `true`, `false`, null, object, array
        /// An object with a `"__type"` key (a Date, a Pointer, ...), checked
        /// to decode as the reader decodes it.
        case typed
    }

    /// One top-level member: `"key":value` with the key's bytes at
    /// `keyStart..<keyEnd` (inside the quotes) and the value's at
    /// `valueStart..<valueEnd`.
    package struct Member {
        package var keyStart: Int
        package var keyEnd: Int
        package var valueStart: Int
        package var valueEnd: Int
        package var kind: Kind
        /// The value of a `.integer`; a `.typed` Date's milliseconds when
        /// ``isDate``.
        package var integer: Int64
        /// A `.typed` value that is a Date (``integer`` holds it).
        package var isDate: Bool
        /// Whether the value's bytes are in ``JSONWriter``'s form (see
        /// ``JSONLineScan/verbatim``): copied as they are when the line is
        /// written, else re-copied in that form (``JSONCanonicalCopy``).
        package var verbatim: Bool
    }

    /// The scan's state. Behind a pointer held in a `let`: the stored
    /// properties of a class are checked for exclusive access at run time
    /// on every read and write, which cost more than the scan itself.
    private struct State {
        var line = UnsafeBufferPointer<UInt8>(start: nil, count: 0)
        var members: UnsafeMutablePointer<Member>
        var order: UnsafeMutablePointer<Int>
        var count = 0
        var capacity: Int
        var verbatim = true
        /// Where ``writeSorted(to:)`` composes a line.
        var scratch: UnsafeMutablePointer<UInt8> = .allocate(capacity: 256)
        var scratchCapacity = 256
        /// The typed values' ranges (``Cursor/typed``).
        var typed: [Int] = []
        /// Where a typed value's written form is composed, to compare.
        var typedText: [UInt8] = []
        /// Where a member that is not ``Member/verbatim`` is re-copied.
        var memberText: [UInt8] = []
    }

    private let state: UnsafeMutablePointer<State>

    /// The line last scanned.
    package var line: UnsafeBufferPointer<UInt8> { state.pointee.line }
    /// Its top-level members, in input order.
    package var members: UnsafeMutablePointer<Member> { state.pointee.members }
    package var count: Int { state.pointee.count }
    /// Whether every member's value bytes are already in ``JSONWriter``'s
    /// form (``JSONCanonicalCopy``'s rules: compact, object keys in strictly
    /// increasing order, only integers of up to 18 digits but not `-0`, no
    /// escape other than `\"` `\\` `\n` `\r` `\t` `\b` `\f`, no DEL; UTF-8
    /// text is written as it is), typed values aside: those are compared
    /// with their written form by ``writeSorted(to:)``.
    package var verbatim: Bool { state.pointee.verbatim }

    package static let maxDepth = 32

    package init() {
        let capacity = 16
        state = .allocate(capacity: 1)
        state.initialize(to: State(members: .allocate(capacity: capacity), order: .allocate(capacity: capacity), capacity: capacity))
    }

    deinit {
        state.pointee.members.deallocate()
        state.pointee.order.deallocate()
        state.pointee.scratch.deallocate()
        state.deinitialize(count: 1)
        state.deallocate()
    }

    /// Scans `line`; `false` when it is outside the subset (or not JSON):
    /// read it with ``JSONReader`` then.
    package func scan(_ line: UnsafeBufferPointer<UInt8>) -> Bool {
        state.pointee.line = line
        state.pointee.count = 0
        state.pointee.verbatim = true
        guard let p = line.baseAddress else { return false }
        var cursor = Cursor(p: p, n: line.count)
        swap(&cursor.typed, &state.pointee.typed)
        cursor.typed.removeAll(keepingCapacity: true)
        defer { swap(&cursor.typed, &state.pointee.typed) }
        cursor.skipSpace()
        guard cursor.at(UInt8(ascii: "{")) else { return false }
        cursor.i += 1
        cursor.skipSpace()
        if cursor.at(UInt8(ascii: "}")) {
            cursor.i += 1
        } else {
            while true {
                cursor.skipSpace()
                guard cursor.at(UInt8(ascii: "\"")) else { return false }
                let keyStart = cursor.i + 1
                // A line that is itself a typed value is the reader's.
                guard cursor.key(), !cursor.keyIsType(from: keyStart) else { return false }
                let keyEnd = cursor.i - 1
                cursor.skipSpace()
                guard cursor.at(UInt8(ascii: ":")) else { return false }
                cursor.i += 1
                cursor.skipSpace()
                let valueStart = cursor.i
                cursor.spaced = false
                let before = cursor.verbatim
                cursor.verbatim = true
                cursor.isDate = false
                guard let kind = cursor.value(depth: 1) else { return false }
                if cursor.spaced { cursor.verbatim = false }
                let memberVerbatim = cursor.verbatim
                cursor.verbatim = before && memberVerbatim
                let isDate = kind == .typed && cursor.isDate
                append(Member(keyStart: keyStart, keyEnd: keyEnd, valueStart: valueStart, valueEnd: cursor.i,
                              kind: kind, integer: isDate ? cursor.dateMillis : cursor.integer, isDate: isDate,
                              verbatim: memberVerbatim))
                cursor.skipSpace()
                if cursor.at(UInt8(ascii: ",")) { cursor.i += 1; continue }
                if cursor.at(UInt8(ascii: "}")) { cursor.i += 1; break }
                return false
            }
        }
        cursor.skipSpace()
        state.pointee.verbatim = cursor.verbatim
        return cursor.i == cursor.n
    }

    /// The key bytes of member `k`.
    @inline(__always)
    package func key(_ k: Int) -> UnsafeBufferPointer<UInt8> {
        UnsafeBufferPointer(start: line.baseAddress! + members[k].keyStart, count: members[k].keyEnd - members[k].keyStart)
    }

    /// The value bytes of member `k`.
    @inline(__always)
    package func value(_ k: Int) -> UnsafeBufferPointer<UInt8> {
        UnsafeBufferPointer(start: line.baseAddress! + members[k].valueStart, count: members[k].valueEnd - members[k].valueStart)
    }

    /// Appends the line in ``JSONWriter``'s form (members sorted by key, each
    /// value's bytes copied) and returns `true` when no key repeats, every
    /// typed value is spelled as the writer spells it (whitespace between
    /// its tokens aside), and each member is
    /// ``Member/verbatim`` or re-copied by ``JSONCanonicalCopy`` (a nested
    /// object with its keys out of order, spaces); else returns `false`,
    /// `out` untouched.
    ///
    /// Why members one by one: a LeanCloud export writes nested objects in
    /// the service's key order, so most of its lines have one member to
    /// re-sort and a dozen to copy as they are.
    package func writeSorted(to out: inout [UInt8]) -> Bool {
        writeSorted(to: &out, omitting: nil)
    }

    /// ``writeSorted(to:)`` without the top-level member whose key is
    /// `omitted` (a server's answer leaves `ACL` out unless asked for it).
    package func writeSorted(to out: inout [UInt8], omitting omitted: StaticString?) -> Bool {
        guard let base = line.baseAddress, typedValuesAreVerbatim() else { return false }
        let count = self.count, members = self.members, order = state.pointee.order
        for k in 0..<count {
            // Insertion sort: a line has a handful of members.
            var j = k
            while j > 0 && JSONLineScan.less(key(k), key(order[j - 1])) {
                order[j] = order[j - 1]
                j -= 1
            }
            order[j] = k
        }
        for k in 1..<max(1, count) where !JSONLineScan.less(key(order[k - 1]), key(order[k])) { return false }
        // Composed in a scratch buffer and appended at once: an append per
        // key and value cost more than the copies.
        var size = count + 2  // braces and commas, one to spare
        for k in 0..<count { size += members[k].valueEnd - members[k].valueStart + members[k].keyEnd - members[k].keyStart + 3 }
        if size > state.pointee.scratchCapacity {
            state.pointee.scratch.deallocate()
            state.pointee.scratchCapacity = max(size, 2 * state.pointee.scratchCapacity)
            state.pointee.scratch = .allocate(capacity: state.pointee.scratchCapacity)
        }
        let text = state.pointee.scratch
        text[0] = UInt8(ascii: "{")
        var at = 1
        let skip = omitted.map { UnsafeBufferPointer(start: $0.utf8Start, count: $0.utf8CodeUnitCount) }
        for k in 0..<count {
            if let skip, JSONLineScan.equal(key(order[k]), skip) { continue }
            if at > 1 {
                text[at] = UInt8(ascii: ",")
                at += 1
            }
            let m = members[order[k]]
            let keyLength = m.keyEnd - m.keyStart + 2
            (text + at).update(from: base + m.keyStart - 1, count: keyLength)
            at += keyLength
            text[at] = UInt8(ascii: ":")
            at += 1
            if m.verbatim {
                (text + at).update(from: base + m.valueStart, count: m.valueEnd - m.valueStart)
                at += m.valueEnd - m.valueStart
            } else {
                // The canonical copy drops spaces and refuses every rewrite
                // that could lengthen a value, so it fits the room counted.
                state.pointee.memberText.removeAll(keepingCapacity: true)
                guard JSONCanonicalCopy.write(value(order[k]), to: &state.pointee.memberText, typedValues: .proved),
                      state.pointee.memberText.count <= m.valueEnd - m.valueStart else { return false }
                state.pointee.memberText.withUnsafeBufferPointer { (text + at).update(from: $0.baseAddress!, count: $0.count) }
                at += state.pointee.memberText.count
            }
        }
        text[at] = UInt8(ascii: "}")
        out.append(contentsOf: UnsafeBufferPointer(start: text, count: at + 1))
        return true
    }

    /// Whether each typed value of the last line is spelled as ``JSONWriter``
    /// spells it, whitespace between its tokens aside: read alone, written,
    /// and compared.
    ///
    /// Why here and not in the scan: a count never writes, and most lines a
    /// query writes are a fraction of those it scans; the check reads only
    /// the typed values (a few dozen bytes each), not the line.
    private func typedValuesAreVerbatim() -> Bool {
        guard let base = line.baseAddress else { return true }
        var k = 0
        while k < state.pointee.typed.count {
            let start = state.pointee.typed[k], end = state.pointee.typed[k + 1]
            let bytes = UnsafeBufferPointer(start: base + start, count: end - start)
            if let verbatim = Cursor.typedIsVerbatim(in: base, from: start, to: end) {
                guard verbatim else { return false }
                k += 2
                continue
            }
            // A Date, Pointer or GeoPoint is built from its bytes; the rest by the reader.
            guard let value = Cursor.typedValue(in: base, from: start, to: end)
                    ?? (try? JSONReader.parse(bytes: bytes, decodingTypedValues: true)) else { return false }
            state.pointee.typedText.removeAll(keepingCapacity: true)
            JSONWriter.write(value, to: &state.pointee.typedText)
            // Spaces between its tokens aside: the member holding it is re-copied without them.
            state.pointee.memberText.removeAll(keepingCapacity: true)
            JSONCanonicalCopy.stripped(bytes, to: &state.pointee.memberText)
            guard state.pointee.typedText == state.pointee.memberText else { return false }
            k += 2
        }
        return true
    }

    /// Byte order, a prefix first: ``JSONWriter``'s key order for ASCII keys.
    @inline(__always)
    static func equal(_ a: UnsafeBufferPointer<UInt8>, _ b: UnsafeBufferPointer<UInt8>) -> Bool {
        a.count == b.count && a.elementsEqual(b)
    }

    static func less(_ a: UnsafeBufferPointer<UInt8>, _ b: UnsafeBufferPointer<UInt8>) -> Bool {
        let n = min(a.count, b.count)
        for k in 0..<n where a[k] != b[k] { return a[k] < b[k] }
        return a.count < b.count
    }

    @inline(__always)
    private func append(_ m: Member) {
        if state.pointee.count == state.pointee.capacity { grow() }
        (state.pointee.members + state.pointee.count).initialize(to: m)
        state.pointee.count += 1
    }

    private func grow() {
        let more = state.pointee.capacity * 2
        let bigger = UnsafeMutablePointer<Member>.allocate(capacity: more)
        bigger.moveInitialize(from: state.pointee.members, count: state.pointee.count)
        state.pointee.members.deallocate()
        state.pointee.members = bigger
        state.pointee.order.deallocate()
        state.pointee.order = .allocate(capacity: more)
        state.pointee.capacity = more
    }
}
