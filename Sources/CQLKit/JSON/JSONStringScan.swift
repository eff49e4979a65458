/// Finding the end of the plain run of a JSON string eight bytes at a time.
///
/// Why: string bodies are most of the bytes of typical data files, and a
/// byte-by-byte loop testing each byte for `"`, `\`, a control character and
/// non-ASCII ran at about one byte per 2.5 instructions. A 64-bit word answers
/// "is any of these eight bytes special?" in a dozen instructions (the
/// classic SWAR zero-byte / less-than tests, which are exact for "any").
enum JSONStringScan {
    private static let ones: UInt64 = 0x0101_0101_0101_0101
    private static let highs: UInt64 = 0x8080_8080_8080_8080

    /// The index of the first byte at or after `start` that is `"`, `\`, a
    /// control character (< 0x20), — unless `nonASCIIIsPlain` — a byte
    /// ≥ 0x80, or — unless `delIsPlain` — DEL (0x7F, which the writer
    /// escapes); `bytes.count` when there is none.
    @inline(__always)
    static func plainRunEnd(
        _ bytes: UnsafeBufferPointer<UInt8>, from start: Int, nonASCIIIsPlain: Bool, delIsPlain: Bool = true
    ) -> Int {
        guard let p = bytes.baseAddress else { return start }
        let n = bytes.count
        let high = nonASCIIIsPlain ? 0 : highs
        var i = start
        while i + 8 <= n {
            let w = UInt64(littleEndian: UnsafeRawPointer(p + i).loadUnaligned(as: UInt64.self))
            var special = hasZeroByte(w ^ (ones &* 0x22)) | hasZeroByte(w ^ (ones &* 0x5C)) | hasByteBelow0x20(w) | (w & high)
            if !delIsPlain { special |= hasZeroByte(w ^ (ones &* 0x7F)) }
            if special != 0 { break }
            i += 8
        }
        while i < n {
            let b = p[i]
            if b == 0x22 || b == 0x5C || b < 0x20 || (b >= 0x80 && !nonASCIIIsPlain) || (b == 0x7F && !delIsPlain) { break }
            i += 1
        }
        return i
    }

    /// Non-zero iff some byte of `w` is 0.
    @inline(__always)
    private static func hasZeroByte(_ w: UInt64) -> UInt64 {
        (w &- ones) & ~w & highs
    }

    /// Non-zero iff some byte of `w` is below 0x20 (exact for bounds ≤ 0x80).
    @inline(__always)
    private static func hasByteBelow0x20(_ w: UInt64) -> UInt64 {
        (w &- ones &* 0x20) & ~w & highs
    }
}
