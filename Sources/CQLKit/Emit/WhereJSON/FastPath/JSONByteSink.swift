/// The bytes of one request as ``DirectRequestWriter`` writes them: a
/// buffer it owns, appended to through a pointer, and handed to the
/// caller's `[UInt8]` in one copy when the request is complete.
///
/// Appending to the caller's Array directly costs a uniqueness check per byte
/// (a runtime call) and the generic `append(contentsOf:)` per run. Here a byte is
/// a store and a run a short copy; a request that throws leaves the
/// caller's bytes untouched without taking anything back off them.
///
/// Writes the forms ``JSONWriter`` writes, byte for byte: the common
/// scalars itself, any other ``Value`` through ``JSONWriter/write(_:to:)``.
struct JSONByteSink: ~Copyable {
    private var base: UnsafeMutablePointer<UInt8>
    private var capacity: Int
    private(set) var count = 0
    /// Whether `base` was allocated here (else it is the caller's, on its stack).
    private var ownsBase: Bool

    init(capacity: Int) {
        self.capacity = Swift.max(capacity, 16)
        base = .allocate(capacity: self.capacity)
        ownsBase = true
    }

    /// Writes into `stack` (valid as long as the sink) until it is full,
    /// then into memory of its own: no allocation for a request that fits.
    init(stack: UnsafeMutableBufferPointer<UInt8>) {
        if let start = stack.baseAddress, stack.count >= 16 {
            base = start
            capacity = stack.count
            ownsBase = false
        } else {
            capacity = 256
            base = .allocate(capacity: capacity)
            ownsBase = true
        }
    }

    deinit { if ownsBase { base.deallocate() } }

    /// Appends the bytes written to `out`.
    func copy(to out: inout [UInt8]) {
        out.append(contentsOf: UnsafeBufferPointer(start: base, count: count))
    }

    /// Appends the bytes written at `range` to `out`.
    func copy(_ range: Range<Int>, to out: inout [UInt8]) {
        precondition(range.lowerBound >= 0 && range.upperBound <= count)
        out.append(contentsOf: UnsafeBufferPointer(start: base + range.lowerBound, count: range.count))
    }

    /// The start of the bytes written (valid until the next append).
    var start: UnsafePointer<UInt8> { UnsafePointer(base) }

    /// The bytes written at `range`, as a String (for the rare checks that
    /// need String semantics, such as canonical equivalence).
    func string(_ range: Range<Int>) -> String {
        precondition(range.lowerBound >= 0 && range.upperBound <= count)
        return String(decoding: UnsafeBufferPointer(start: base + range.lowerBound, count: range.count), as: UTF8.self)
    }

    /// Appends the UTF-8 bytes of `s` as they are (not escaped, no quotes)
    /// and returns where they are: a key kept for sorting and written later
    /// (``appendString(copyOf:)``).
    mutating func appendRaw(_ s: String) -> Range<Int> {
        let n = s.utf8.count
        if count + n > capacity { grow(to: count + n) }
        let to = base + count
        let copied: Void? = s.utf8.withContiguousStorageIfAvailable { b in
            if let from = b.baseAddress { JSONByteSink.copyBytes(from, to, b.count) }
        }
        if copied == nil {
            var i = 0
            for c in s.utf8 { to[i] = c; i += 1 }
        }
        count += n
        return (count - n)..<count
    }

    /// ``appendRaw(_:)`` of a literal (`$or`, `$and`...).
    @inline(__always)
    mutating func appendRaw(_ s: StaticString) -> Range<Int> {
        let start = count
        append(s)
        return start..<count
    }

    /// Drops the last `n` bytes written.
    mutating func removeLast(_ n: Int) {
        precondition(n >= 0 && n <= count)
        count -= n
    }

    /// Appends a copy of bytes written earlier (an operand rendered before
    /// its object is written).
    @inline(__always)
    mutating func append(copyOf range: Range<Int>) {
        precondition(range.lowerBound >= 0 && range.upperBound <= count)
        let n = range.count
        if count + n > capacity { grow(to: count + n) }
        // The source lies before `count`: the two runs never overlap.
        JSONByteSink.copyBytes(base + range.lowerBound, base + count, n)
        count += n
    }

    /// Appends `"`, the bytes at `range` and `"`: a key ``appendKey(_:)``
    /// found needs no escape.
    @inline(__always)
    mutating func appendQuoted(copyOf range: Range<Int>) {
        precondition(range.lowerBound >= 0 && range.upperBound <= count)
        let n = range.count
        if count + n + 2 > capacity { grow(to: count + n + 2) }
        base[count] = UInt8(ascii: "\"")
        JSONByteSink.copyBytes(base + range.lowerBound, base + count + 1, n)
        count += n + 2
        base[count - 1] = UInt8(ascii: "\"")
    }

    /// `n` bytes from `from` to `to` (not overlapping): a short run (most
    /// keys and operands) by two overlapping word loads and stores, which
    /// cost less than a call to `memcpy`.
    @inline(__always)
    static func copyBytes(_ from: UnsafePointer<UInt8>, _ to: UnsafeMutablePointer<UInt8>, _ n: Int) {
        let src = UnsafeRawPointer(from), dst = UnsafeMutableRawPointer(to)
        if n >= 8 && n <= 16 {
            let head = src.loadUnaligned(as: UInt64.self), tail = src.loadUnaligned(fromByteOffset: n - 8, as: UInt64.self)
            dst.storeBytes(of: head, as: UInt64.self)
            dst.storeBytes(of: tail, toByteOffset: n - 8, as: UInt64.self)
        } else if n >= 4 && n < 8 {
            let head = src.loadUnaligned(as: UInt32.self), tail = src.loadUnaligned(fromByteOffset: n - 4, as: UInt32.self)
            dst.storeBytes(of: head, as: UInt32.self)
            dst.storeBytes(of: tail, toByteOffset: n - 4, as: UInt32.self)
        } else if n < 4 {
            for i in 0..<n { to[i] = from[i] }
        } else {
            to.update(from: from, count: n)
        }
    }

    /// Appends a one-component key of a comma-separated list
    /// (``DirectRequestWriter``) when the emitter writes it as it is and the
    /// list reads it back as it is: plain (``appendKey(_:)``), not
    /// `objectId`, no JSON escape, no `,`, no space at either end, no `marks`
    /// byte first. `false` (nothing appended) for any other key.
    mutating func appendPlainListKey(_ key: String, marks: StaticString) -> Bool {
        let start = count
        let form = appendKey(key)
        guard form.contains(.unescaped), !form.contains(.objectId) else {
            count = start
            return false
        }
        let first = base[start], last = base[count - 1]
        var plain = first != UInt8(ascii: " ") && last != UInt8(ascii: " ")
        for i in 0..<marks.utf8CodeUnitCount where marks.utf8Start[i] == first { plain = false }
        var i = start
        while plain && i < count {
            if base[i] == UInt8(ascii: ",") { plain = false }
            i += 1
        }
        if !plain { count = start }
        return plain
    }

    /// What ``appendKey(_:)`` found of a key.
    struct KeyForm: OptionSet {
        let rawValue: UInt8
        /// Not empty, not `$` first, no `.`, ASCII: the emitter's key as it is
        /// (``ConditionEmitter/plainASCIIIsObjectId(_:)``).
        static let plain = KeyForm(rawValue: 1)
        /// No byte JSON escapes (a control, `"`, `\\`, DEL).
        static let unescaped = KeyForm(rawValue: 2)
        /// The key is `objectId`.
        static let objectId = KeyForm(rawValue: 4)
    }

    /// Appends the bytes of a one-component key when it is plain
    /// (``KeyForm/plain``) and tells so, with whether it needs a JSON
    /// escape and is `objectId`, all in the one pass that copies it; appends
    /// nothing and returns `[]` for any other key (or one not contiguous).
    @inline(__always)
    mutating func appendKey(_ s: String) -> KeyForm {
        let n = s.utf8.count
        if count + n > capacity { grow(to: count + n) }
        let to = base + count
        let form = s.utf8.withContiguousStorageIfAvailable { b -> KeyForm in
            guard let p = b.baseAddress, n > 0, p[0] != UInt8(ascii: "$") else { return [] }
            // Eight bytes at a time, then four (padded with `A`s, which no
            // test flags), then one: a high bit or a `.` refuses the key.
            let dots: UInt64 = 0x2E2E_2E2E_2E2E_2E2E, highs: UInt64 = 0x8080_8080_8080_8080
            var escapes = false
            var i = 0
            while i + 8 <= n {
                let w = UnsafeRawPointer(p + i).loadUnaligned(as: UInt64.self)
                let d = w ^ dots
                if (w | ((d &- 0x0101_0101_0101_0101) & ~d)) & highs != 0 { return [] }
                escapes = escapes || JSONByteSink.mayNeedEscape(w)
                UnsafeMutableRawPointer(to + i).storeBytes(of: w, as: UInt64.self)
                i += 8
            }
            if i + 4 <= n {
                let word = UnsafeRawPointer(p + i).loadUnaligned(as: UInt32.self)
                let w = UInt64(word) | 0x4141_4141_0000_0000
                let d = w ^ dots
                if (w | ((d &- 0x0101_0101_0101_0101) & ~d)) & highs != 0 { return [] }
                escapes = escapes || JSONByteSink.mayNeedEscape(w)
                UnsafeMutableRawPointer(to + i).storeBytes(of: word, as: UInt32.self)
                i += 4
            }
            while i < n {
                let c = p[i]
                if c >= 0x80 || c == UInt8(ascii: ".") { return [] }
                escapes = escapes || c < 0x20 || c == 0x22 || c == 0x5C || c == 0x7F
                to[i] = c
                i += 1
            }
            var form: KeyForm = escapes ? .plain : [.plain, .unescaped]
            if n == 8 && UInt64(littleEndian: UnsafeRawPointer(p).loadUnaligned(as: UInt64.self)) == ConditionEmitter.objectIdBytes {
                form.insert(.objectId)
            }
            return form
        } ?? []
        if !form.isEmpty { count += n }
        return form
    }


    /// Appends bytes written earlier (a key appended by ``appendRaw(_:)``)
    /// as a JSON string: quoted and escaped as ``appendString(_:)`` escapes
    /// the String they came from.
    mutating func appendString(copyOf range: Range<Int>) {
        precondition(range.lowerBound >= 0 && range.upperBound <= count)
        let n = range.count
        if count + 6 * n + 2 > capacity { grow(to: count + 6 * n + 2) }
        base[count] = UInt8(ascii: "\"")
        let written = JSONByteSink.escape(UnsafeBufferPointer(start: base + range.lowerBound, count: n), into: base + count + 1)
        count += 1 + written
        base[count] = UInt8(ascii: "\"")
        count += 1
    }

    @inline(__always)
    mutating func append(_ b: UInt8) {
        if count == capacity { grow(to: count + 1) }
        base[count] = b
        count += 1
    }

    // Inlined, as the literals and copies: each is a few stores, and a
    // call cost as much again (a request writes some 30 of them).
    @inline(__always)
    mutating func append(_ bytes: UnsafeBufferPointer<UInt8>) {
        let n = bytes.count
        guard n > 0, let from = bytes.baseAddress else { return }
        if count + n > capacity { grow(to: count + n) }
        JSONByteSink.copyBytes(from, base + count, n)
        count += n
    }

    /// A literal's bytes (`"$gt":`, member names).
    @inline(__always)
    mutating func append(_ s: StaticString) {
        append(UnsafeBufferPointer(start: s.utf8Start, count: s.utf8CodeUnitCount))
    }

    mutating func append(_ bytes: [UInt8]) {
        bytes.withUnsafeBufferPointer { append($0) }
    }

    /// Decimal digits, as ``JSONWriter/appendInteger(_:_:)`` writes them,
    /// stored from the last one back.
    mutating func appendInteger(_ i: Int64) {
        var m = i.magnitude
        var digits = 1
        var rest = m
        while rest >= 10 { rest /= 10; digits += 1 }
        let sign = i < 0 ? 1 : 0
        if count + sign + digits > capacity { grow(to: count + sign + digits) }
        if sign == 1 { base[count] = UInt8(ascii: "-") }
        count += sign + digits
        var k = count
        repeat {
            k -= 1
            base[k] = UInt8(truncatingIfNeeded: m % 10) &+ 0x30
            m /= 10
        } while m > 0
    }

    /// `"s"`, escaped as ``JSONWriter/writeString(_:_:)`` escapes it.
    @inline(__always)
    mutating func appendString(_ s: String) {
        append(UInt8(ascii: "\""))
        appendStringBody(s)
        append(UInt8(ascii: "\""))
    }

    /// The escaped characters of `s` without the quotes, as
    /// ``JSONWriter/writeStringBody(_:_:)`` escapes them, in one pass over
    /// its bytes (room for the longest escape of each reserved first).
    mutating func appendStringBody(_ s: String) {
        let n = s.utf8.count
        if count + 6 * n > capacity { grow(to: count + 6 * n) }
        let to = base + count
        if let written = s.utf8.withContiguousStorageIfAvailable({ JSONByteSink.escape($0, into: to) }) {
            count += written
            return
        }
        var escaped: [UInt8] = []
        JSONWriter.writeStringBody(s, &escaped)
        append(escaped)
    }

    /// A comma-separated list's key (``DirectRequestWriter``): its bytes
    /// when they need no JSON escape and the list reads them back as they
    /// are (no `,`, no space at either end, no `marks` byte first), and
    /// `false` (nothing written) otherwise.
    mutating func appendPlainListItem(_ key: String, marks: StaticString) -> Bool {
        let n = key.utf8.count
        if count + n > capacity { grow(to: count + n) }
        let to = base + count
        let marks = UnsafeBufferPointer(start: marks.utf8Start, count: marks.utf8CodeUnitCount)
        let plain = key.utf8.withContiguousStorageIfAvailable { b -> Bool in
            guard let first = b.first, let last = b.last else { return true }
            if first == UInt8(ascii: " ") || last == UInt8(ascii: " ") || marks.contains(first) { return false }
            for i in 0..<b.count {
                let c = b[i]
                guard c >= 0x20 && c != 0x22 && c != 0x5C && c != 0x7F && c != UInt8(ascii: ",") else { return false }
                to[i] = c
            }
            return true
        }
        guard plain == true else { return false }
        count += n
        return true
    }

    /// The JSON string of ``LikePattern/regex(_:)`` of `like`, written as the
    /// pattern is read: each byte's regex form (`%` `.*`, `_` `.`, a PCRE
    /// metacharacter after `\`) JSON-escaped, between `^` and `\z`. `false`
    /// (nothing written) for a pattern with a `[` (its classes take
    /// `regex` itself) or not contiguous.
    mutating func appendLikeRegex(_ like: String) -> Bool {
        let n = like.utf8.count
        // The longest form of a byte is 6 (`\u00XX`); 8 for the quotes and anchors.
        if count + 6 * n + 8 > capacity { grow(to: count + 6 * n + 8) }
        let to = base + count
        let written: Int?? = like.utf8.withContiguousStorageIfAvailable { b -> Int? in
            to[0] = UInt8(ascii: "\"")
            to[1] = UInt8(ascii: "^")
            var k = 2
            for c in b {
                switch c {
                case UInt8(ascii: "["): return nil
                case UInt8(ascii: "%"):
                    to[k] = UInt8(ascii: ".")
                    to[k + 1] = UInt8(ascii: "*")
                    k += 2
                case UInt8(ascii: "_"):
                    to[k] = UInt8(ascii: ".")
                    k += 1
                case UInt8(ascii: "\\"):
                    // `\\` in the regex, each `\` escaped in JSON.
                    for _ in 0..<4 { to[k] = UInt8(ascii: "\\"); k += 1 }
                default:
                    if LikePattern.isMetacharacter(c) {
                        to[k] = UInt8(ascii: "\\")
                        to[k + 1] = UInt8(ascii: "\\")
                        k += 2
                    }
                    k += JSONByteSink.escape(c, into: to + k)
                }
            }
            for c in #"\\z""#.utf8 {
                to[k] = c
                k += 1
            }
            return k
        }
        guard let written = written ?? nil else { return false }
        count += written
        return true
    }

    /// `bytes` escaped into `to` (room for 6 bytes each); the count written.
    /// Eight bytes at a time while none needs an escape (one word's test
    /// and copy instead of eight), byte by byte from the first word that may.
    private static func escape(_ bytes: UnsafeBufferPointer<UInt8>, into to: UnsafeMutablePointer<UInt8>) -> Int {
        guard let from = bytes.baseAddress else { return 0 }
        let n = bytes.count
        var i = 0
        while i + 8 <= n {
            let w = UnsafeRawPointer(from + i).loadUnaligned(as: UInt64.self)
            if mayNeedEscape(w) { break }
            UnsafeMutableRawPointer(to + i).storeBytes(of: w, as: UInt64.self)
            i += 8
        }
        // Then four (most keys and values are shorter than eight bytes).
        if i + 4 <= n {
            let w = UInt64(UnsafeRawPointer(from + i).loadUnaligned(as: UInt32.self)) | 0x4141_4141_0000_0000
            if !mayNeedEscape(w) {
                UnsafeMutableRawPointer(to + i).storeBytes(of: UInt32(truncatingIfNeeded: w), as: UInt32.self)
                i += 4
            }
        }
        var k = i
        while i < n {
            k += escape(from[i], into: to + k)
            i += 1
        }
        return k
    }

    /// Whether one of the word's bytes is below 0x20, `"`, `\` or DEL
    /// (exact: the borrows of the tests only follow a byte they flag).
    @inline(__always)
    private static func mayNeedEscape(_ w: UInt64) -> Bool {
        let ones: UInt64 = 0x0101_0101_0101_0101, highs: UInt64 = 0x8080_8080_8080_8080
        func hasZeroByte(_ x: UInt64) -> Bool { (x &- ones) & ~x & highs != 0 }
        return (w &- 0x20 &* ones) & ~w & highs != 0 || hasZeroByte(w ^ (0x22 &* ones)) || hasZeroByte(w ^ (0x5C &* ones))
            || hasZeroByte(w ^ (0x7F &* ones))
    }

    /// One byte as JSON writes it in a string (itself, `\"`, `\n`,
    /// `\u001f`...) into `to` (room for 6); the count written.
    @inline(__always)
    private static func escape(_ c: UInt8, into to: UnsafeMutablePointer<UInt8>) -> Int {
        if c >= 0x20 && c != 0x22 && c != 0x5C && c != 0x7F {
            to[0] = c
            return 1
        }
        to[0] = 0x5C
        switch c {
        case 0x22, 0x5C: to[1] = c
        case 0x0A: to[1] = UInt8(ascii: "n")
        case 0x0D: to[1] = UInt8(ascii: "r")
        case 0x09: to[1] = UInt8(ascii: "t")
        case 0x08: to[1] = UInt8(ascii: "b")
        case 0x0C: to[1] = UInt8(ascii: "f")
        default:
            // `\u00XX`, lowercase hex: the other controls and DEL.
            to[1] = UInt8(ascii: "u")
            to[2] = UInt8(ascii: "0")
            to[3] = UInt8(ascii: "0")
            to[4] = hexDigit(c >> 4)
            to[5] = hexDigit(c & 0xF)
            return 6
        }
        return 2
    }

    private static func hexDigit(_ d: UInt8) -> UInt8 { d < 10 ? d &+ 0x30 : d &+ (UInt8(ascii: "a") &- 10) }

    /// `v` as ``JSONWriter/write(_:to:)`` writes it: the common scalars here,
    /// anything else through it.
    @inline(__always)
    mutating func appendValue(_ v: Value) {
        switch v {
        case .int(let i): appendInteger(i)
        case .string(let s): appendString(s)
        case .bool(let b): append(b ? "true" : "false")
        default:
            var other: [UInt8] = []
            JSONWriter.write(v, to: &other)
            append(other)
        }
    }

    private mutating func grow(to needed: Int) {
        var bigger = capacity * 2
        while bigger < needed { bigger *= 2 }
        let new = UnsafeMutablePointer<UInt8>.allocate(capacity: bigger)
        new.moveInitialize(from: base, count: count)
        if ownsBase { base.deallocate() }
        base = new
        capacity = bigger
        ownsBase = true
    }
}
