/// Finding the end of the plain run of a JSON string eight bytes at a time.
///
/// Why: string bodies are most of the bytes of typical data files, and a
/// byte-by-byte loop tests each byte for `"`, `\`, a control character and
/// non-ASCII. A 64-bit word answers "is any of these eight bytes special?"
/// at once (the classic SWAR zero-byte / less-than tests, which are exact
/// for "any").
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

    /// The index after the run of well-formed UTF-8 multi-byte sequences
    /// that starts at `start` (a byte ≥ 0x80): the first ASCII byte, or `n`;
    /// `nil` when the run holds a byte sequence that is not UTF-8 — exactly
    /// the bytes `String(validating:as:)` refuses (overlong forms,
    /// surrogates, scalars beyond U+10FFFF, stray continuation bytes, a
    /// sequence cut short).
    ///
    /// Why: Chinese text is sequences of three bytes, and checking them a
    /// byte at a time with a branch per byte cost as much as the reader's
    /// `String(validating:)`. One 64-bit load holds two such sequences;
    /// each is checked with one mask-and-compare on the word plus the range
    /// of its second byte (Unicode's table 3-7).
    @inline(__always)
    static func utf8RunEnd(_ p: UnsafePointer<UInt8>, from start: Int, end n: Int) -> Int? {
        var j = start
        while j + 8 <= n {
            var w = UInt64(littleEndian: UnsafeRawPointer(p + j).loadUnaligned(as: UInt64.self))
            // Two three-byte sequences (CJK text) checked at once: leads
            // E1...EC or EE, EF, each followed by two continuation bytes,
            // are well formed whatever those bytes hold. E0 and ED (overlong
            // forms and surrogates to rule out) take the way below.
            if w & 0x0000_C0C0_F0C0_C0F0 == 0x0000_8080_E080_80E0 {
                let first = w & 0x0F, second = (w >> 24) & 0x0F
                if first != 0 && first != 0x0D && second != 0 && second != 0x0D {
                    j += 6
                    continue
                }
            }
            var used = 0
            // A sequence is at most four bytes: check while one fits whole.
            while used <= 4 {
                guard w & 0x80 != 0 else { return j + used }
                let length = sequenceLength(UInt32(truncatingIfNeeded: w))
                guard length != 0 else { return nil }
                used += length
                w >>= UInt64(length &* 8)
            }
            j += used
        }
        while j < n {
            guard p[j] >= 0x80 else { return j }
            // The tail: missing bytes read as 0, which is no continuation
            // byte, so a sequence cut by the end of the line is refused.
            var w: UInt32 = 0
            for k in 0..<min(4, n - j) { w |= UInt32(p[j + k]) << UInt32(k * 8) }
            let length = sequenceLength(w)
            guard length != 0 else { return nil }
            j += length
        }
        return n
    }

    /// The length of the well-formed UTF-8 sequence in the low bytes of `w`
    /// (first byte lowest, ≥ 0x80), or 0.
    @inline(__always)
    private static func sequenceLength(_ w: UInt32) -> Int {
        let lead = w & 0xFF, second = (w >> 8) & 0xFF
        switch lead {
        case 0xC2...0xDF:
            return w & 0xC000 == 0x8000 ? 2 : 0
        case 0xE0...0xEF:
            guard w & 0xC0_C000 == 0x80_8000 else { return 0 }
            if lead == 0xE0 && second < 0xA0 { return 0 }  // overlong
            if lead == 0xED && second > 0x9F { return 0 }  // a surrogate
            return 3
        case 0xF0...0xF4:
            guard w & 0xC0C0_C000 == 0x8080_8000 else { return 0 }
            if lead == 0xF0 && second < 0x90 { return 0 }  // overlong
            if lead == 0xF4 && second > 0x8F { return 0 }  // beyond U+10FFFF
            return 4
        default:
            return 0  // a continuation byte, C0, C1, F5...FF
        }
    }

    /// The high bits of the bytes of `w` that the writer escapes (`"`, `\`,
    /// a control character, DEL); its lowest set bit marks the first such
    /// byte exactly (the tests' false positives lie only above a true one).
    @inline(__always)
    static func escapedBytes(_ w: UInt64) -> UInt64 {
        hasZeroByte(w ^ (ones &* 0x22)) | hasZeroByte(w ^ (ones &* 0x5C)) | hasByteBelow0x20(w) | hasZeroByte(w ^ (ones &* 0x7F))
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
