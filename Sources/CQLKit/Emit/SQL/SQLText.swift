/// SQL text under construction, as UTF-8 bytes in one growing buffer.
///
/// Why: the shapes of a leaf nest five or six levels deep (a walk step, the
/// value-or-element fan-out, the type guard, the comparison), and building
/// each level as its own interpolated `String` allocated and copied every
/// piece once per level: most of `translate --to sql`'s time. The hot
/// shapes append into one buffer instead, and the text becomes a `String`
/// once, when the fragment is done.
///
/// ```swift
/// var out = SQLText()
/// out.add("json_type(")
/// out.add(string: "t0.\"doc\"")
/// out.add(", ")
/// out.literal("$.\"score\"")
/// out.add(")")
/// out.string   // json_type(t0."doc", '$."score"')
/// ```
struct SQLText: ~Copyable {
    // A buffer of its own rather than an `[UInt8]`: appending a few bytes
    // to an array goes through its generic `append(contentsOf:)`, which
    // cost more than the copying itself for pieces this short.
    private var base: UnsafeMutablePointer<UInt8>
    private var count = 0
    private var capacity: Int

    init(capacity: Int = 256) {
        self.capacity = max(capacity, 16)
        base = .allocate(capacity: self.capacity)
    }

    deinit { base.deallocate() }

    /// Room for `n` more bytes.
    @inline(__always)
    private mutating func reserve(_ n: Int) {
        if count + n > capacity { grow(n) }
    }

    private mutating func grow(_ n: Int) {
        var newCapacity = capacity * 2
        while newCapacity < count + n { newCapacity *= 2 }
        let newBase = UnsafeMutablePointer<UInt8>.allocate(capacity: newCapacity)
        newBase.update(from: base, count: count)
        base.deallocate()
        base = newBase
        capacity = newCapacity
    }

    @inline(__always)
    private mutating func append(_ bytes: UnsafeBufferPointer<UInt8>) {
        guard let start = bytes.baseAddress, !bytes.isEmpty else { return }
        reserve(bytes.count)
        (base + count).update(from: start, count: bytes.count)
        count += bytes.count
    }

    private mutating func append(_ byte: UInt8) {
        reserve(1)
        base[count] = byte
        count += 1
    }

    /// A fixed piece of the shape.
    @inline(__always)
    mutating func add(_ s: StaticString) {
        // A string literal is always a pointer to its bytes.
        if s.hasPointerRepresentation {
            append(UnsafeBufferPointer(start: s.utf8Start, count: s.utf8CodeUnitCount))
        } else {
            s.withUTF8Buffer { append($0) }
        }
    }

    /// A piece computed at run time (an alias, a placeholder, a column).
    mutating func add(string s: String) {
        let done: Void? = s.utf8.withContiguousStorageIfAvailable { append($0) }
        if done == nil { for b in s.utf8 { append(b) } }
    }

    /// `s` as a quoted SQL string literal (`'it''s'`), as ``sqlLiteral(_:)``
    /// writes it: for the fixed JSON paths and type names only, never for
    /// user values (those are bound).
    mutating func literal(_ s: String) {
        append(UInt8(ascii: "'"))
        literalBody(s)
        append(UInt8(ascii: "'"))
    }

    /// The quoted literal of `prefix` followed by `suffix` (a path and its
    /// next step), without building the joined path first.
    mutating func literal(_ prefix: String, _ suffix: String) {
        append(UInt8(ascii: "'"))
        literalBody(prefix)
        literalBody(suffix)
        append(UInt8(ascii: "'"))
    }

    private mutating func literalBody(_ s: String) {
        var s = s
        if !s.withUTF8({ $0.contains(UInt8(ascii: "'")) }) { return add(string: s) }
        for b in s.utf8 {
            append(b)
            if b == UInt8(ascii: "'") { append(b) }
        }
    }

    /// Several run-time pieces with a separator between them.
    mutating func add(joined parts: [String], separator: StaticString) {
        for (i, p) in parts.enumerated() {
            if i > 0 { add(separator) }
            add(string: p)
        }
    }

    /// The text written so far.
    var string: String { String(decoding: UnsafeBufferPointer(start: base, count: count), as: UTF8.self) }
}
