/// The Strings of short texts (up to 16 UTF-8 bytes: names, class names,
/// most string literals) that a reused parser made for earlier statements,
/// by their bytes, so that a name met again is not made again.
///
/// Statements read one after another repeat their names (the same classes
/// and keys, query after query): finding a String here is cheaper than
/// making it, and a String of up to 15 bytes is stored inline, so
/// handing out the cached one costs no allocation and no retain. The cache
/// is direct-mapped (256 entries, ~10 KiB: a new text replaces whatever its
/// slot held), so it never grows. One-off parses have none (it would cost
/// more to set up than it saves).
///
/// A plain pointer, so the token list can carry it without a retain and
/// release per name read; its owner (``CQLTokenStorage``) frees it.
struct CQLNameCache {
    fileprivate struct Entry {
        /// The text's bytes packed little-endian, zero beyond its length.
        var low: UInt64 = 0
        var high: UInt64 = 0
        /// -1 for an empty slot.
        var length = -1
        var string = ""
    }

    static let maxLength = 16
    /// 2^8: the slot is the top 8 bits of a hash.
    private static let slots = 256
    private let entries: UnsafeMutablePointer<Entry>

    /// A new, empty cache: ``free()`` it when done.
    static func make() -> CQLNameCache {
        let entries = UnsafeMutablePointer<Entry>.allocate(capacity: slots)
        entries.initialize(repeating: Entry(), count: slots)
        return CQLNameCache(entries: entries)
    }

    func free() {
        entries.deinitialize(count: CQLNameCache.slots)
        entries.deallocate()
    }

    /// Bytes `a..<b` of `bytes` (at most ``maxLength``) as a String: the
    /// cached one when the same bytes were seen before, else `make()`'s,
    /// which is then cached.
    @inline(__always)
    func string(_ bytes: UnsafeBufferPointer<UInt8>, _ a: Int, _ b: Int, make: () -> String) -> String {
        let length = b - a
        var low: UInt64 = 0
        var high: UInt64 = 0
        if a + 16 <= bytes.count, let base = bytes.baseAddress {
            // Two unaligned loads (in bounds), then the bytes past the text cleared.
            low = UInt64(littleEndian: UnsafeRawPointer(base + a).loadUnaligned(as: UInt64.self))
            high = UInt64(littleEndian: UnsafeRawPointer(base + a + 8).loadUnaligned(as: UInt64.self))
            if length < 8 {
                low &= (1 &<< UInt64(8 &* length)) &- 1
                high = 0
            } else if length < 16 {
                high &= (1 &<< UInt64(8 &* (length &- 8))) &- 1
            }
        } else if let base = bytes.baseAddress {
            // Near the end of the statement: the text copied into 16 zeroed bytes.
            var pair: (UInt64, UInt64) = (0, 0)
            withUnsafeMutableBytes(of: &pair) { $0.baseAddress!.copyMemory(from: base + a, byteCount: length) }
            low = UInt64(littleEndian: pair.0)
            high = UInt64(littleEndian: pair.1)
        }
        let hash = (low &* 0x9E37_79B9_7F4A_7C15) ^ (high &* 0xC2B2_AE3D_27D4_EB4F) ^ UInt64(length)
        // The top bits of the products depend on every bit of the text.
        let entry = entries + Int(truncatingIfNeeded: hash >> 56)
        if entry.pointee.length == length && entry.pointee.low == low && entry.pointee.high == high {
            return entry.pointee.string
        }
        let string = make()
        entry.pointee = Entry(low: low, high: high, length: length, string: string)
        return string
    }
}
