// The scanner's output: plain-data tokens (CQLScannedToken) in a buffer
// that a reused parser keeps (CQLTokenStorage), and the view the parser
// reads them through (CQLTokenList).

/// A token as the scanner records it: plain data, no Strings, so the tokens
/// are raw memory and reading a token copies no reference. Texts,
/// names and values are made from the bytes only when the parser keeps them
/// (``CQLTokenList``).
struct CQLScannedToken {
    var kind: CQLToken.Kind
    /// What a keyword or identifier spells (``CQLWord/none`` for other words and tokens).
    var word: CQLWord
    /// UTF-8 byte range in the statement.
    var start: Int
    var end: Int
    /// `.integer`: the `Int64`'s bit pattern; `.decimal`: the `Double`'s;
    /// `.string`: 0 when the value is the text between the quotes, else
    /// 1 + the index of the decoded value in ``CQLTokenStorage/decoded``.
    var payload: UInt64 = 0
}

/// The scanner's result: the tokens, the decoded strings that had escapes,
/// and the statement's bytes (valid while the caller's buffer is).
struct CQLTokenList {
    let bytes: UnsafeBufferPointer<UInt8>
    /// In `storage` (valid until the storage scans another statement: a
    /// reused parser reads one statement at a time).
    let tokens: UnsafeMutableBufferPointer<CQLScannedToken>
    /// Not retained (whoever scanned keeps the storage alive, as it keeps
    /// the bytes), so copying the list, which the parser does for every
    /// name and value it reads, costs no retain and release.
    unowned(unsafe) let storage: CQLTokenStorage
    /// `storage`'s name cache (a reused parser's), read without a retain.
    let names: CQLNameCache?

    /// Bytes `a..<b` as a String. Up to 15 bytes (names, most strings) are
    /// written straight into a small String, which takes ASCII without
    /// validating it (`String(decoding:)` validates every byte first);
    /// anything else is decoded.
    /// With a name cache (a reused parser's), a short text seen before is
    /// not made again (``CQLNameCache``).
    func text(_ a: Int, _ b: Int) -> String {
        if b - a <= CQLNameCache.maxLength, let names {
            return names.string(bytes, a, b) { CQLTokenList.makeText(bytes, a, b) }
        }
        return CQLTokenList.makeText(bytes, a, b)
    }

    static func makeText(_ bytes: UnsafeBufferPointer<UInt8>, _ a: Int, _ b: Int) -> String {
        let slice = UnsafeBufferPointer(rebasing: bytes[a..<b])
        guard slice.count <= 15, let base = slice.baseAddress else { return String(decoding: slice, as: UTF8.self) }
        return String(unsafeUninitializedCapacity: slice.count) { out in
            out.baseAddress!.initialize(from: base, count: slice.count)
            return slice.count
        }
    }

    /// The exact source text of token `i`.
    func text(at i: Int) -> String { text(tokens[i].start, tokens[i].end) }

    /// The key component token `i` names: an identifier's text, a
    /// backquoted name without its backquotes.
    @inline(__always)
    func name(at i: Int) -> String {
        let t = tokens[i]
        return t.kind == .quotedIdentifier ? text(t.start + 1, t.end - 1) : text(t.start, t.end)
    }

    /// The value of a string, number or backquoted-name token (`nil` for others).
    @inline(__always)
    func value(at i: Int) -> Value? {
        let t = tokens[i]
        switch t.kind {
        case .integer: return .int(Int64(bitPattern: t.payload))
        case .decimal: return .double(Double(bitPattern: t.payload))
        case .string: return .string(t.payload == 0 ? text(t.start + 1, t.end - 1) : storage.decoded[Int(t.payload) - 1])
        case .quotedIdentifier: return .string(text(t.start + 1, t.end - 1))
        default: return nil
        }
    }

    /// Token `i` as ``CQLLexer/tokenize(_:)`` returns it (for messages and
    /// the few places that want a whole token).
    func token(at i: Int) -> CQLToken {
        let t = tokens[i]
        let text = self.text(at: i)
        var word = ""
        if t.kind == .keyword || t.kind == .identifier {
            word = String(unsafeUninitializedCapacity: t.end - t.start) { out in
                for k in t.start..<t.end {
                    let c = bytes[k]
                    out[k - t.start] = c >= 0x41 && c <= 0x5A ? c | 0x20 : c
                }
                return t.end - t.start
            }
        }
        return CQLToken(t.kind, SourceRange(t.start, t.end), text, word: word, value: value(at: i))
    }
}

/// Where the scanner writes tokens: one buffer that a reused parser
/// (``ReusableCQLParser``) keeps from one statement to the next, so that
/// scanning allocates nothing once the buffer has held the longest statement.
/// Tokens are plain data, so the buffer is raw memory, not an Array (no
/// uniqueness check nor capacity read through a reference per token).
final class CQLTokenStorage {
    private(set) var base: UnsafeMutablePointer<CQLScannedToken>
    private(set) var capacity: Int
    /// The Strings of names seen in earlier statements (a reused parser's only).
    let names: CQLNameCache?
    /// The values of the statement's strings that had escapes (a `.string`
    /// token's payload is 1 + its index here). Held through a pointer: a
    /// class's stored `var` would be checked for exclusive access at run
    /// time on every statement.
    private let decodedStorage: UnsafeMutablePointer<[String]>
    var decoded: [String] {
        get { decodedStorage.pointee }
        _modify { yield &decodedStorage.pointee }
    }
    /// What a reused buffer is cut back to after an unusually long statement.
    static let keptCapacity = 4096

    /// Room for `capacity` tokens (at least 16); `names` for a reused parser.
    init(capacity: Int, names: CQLNameCache? = nil) {
        self.names = names
        self.capacity = max(16, capacity)
        base = .allocate(capacity: self.capacity)
        decodedStorage = .allocate(capacity: 1)
        decodedStorage.initialize(to: [])
    }

    deinit {
        base.deallocate()
        decodedStorage.deinitialize(count: 1)
        decodedStorage.deallocate()
        names?.free()
    }

    /// Room for at least `minimum` tokens, the first `count` kept.
    @inline(never)
    func grow(keeping count: Int, minimum: Int) {
        let newCapacity = max(minimum, capacity * 2)
        let newBase = UnsafeMutablePointer<CQLScannedToken>.allocate(capacity: newCapacity)
        newBase.initialize(from: base, count: count)
        base.deallocate()
        base = newBase
        capacity = newCapacity
    }

    /// Readies the storage for another statement: forgets the last one's
    /// decoded strings and gives back the memory of an unusually long
    /// statement's tokens (a reused parser must not hold megabytes for the
    /// rest of its life).
    func reset() {
        if !decoded.isEmpty { decoded.removeAll(keepingCapacity: true) }
        guard capacity > CQLTokenStorage.keptCapacity else { return }
        base.deallocate()
        capacity = CQLTokenStorage.keptCapacity
        base = .allocate(capacity: capacity)
    }
}
