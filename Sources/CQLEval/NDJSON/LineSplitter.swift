#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The lines of a buffer by byte: each ends at `\n` (a final line need not)
/// and is given without its `\n` or a `\r` before it. One loop for the
/// pieces both `eval` over NDJSON and `translate --lines` work through
/// (``LineParts``), so both read lines alike.
///
///     "a\r\nbb\n\nc" → "a", "bb", "", "c"
package enum LineSplitter {
    /// Calls `body` with each line of `bytes` in order; the first error
    /// `body` throws ends the loop.
    @inline(__always)
    package static func forEachLine<Failure: Error>(
        _ bytes: UnsafeBufferPointer<UInt8>, _ body: (UnsafeBufferPointer<UInt8>) throws(Failure) -> Void
    ) throws(Failure) {
        guard let base = bytes.baseAddress else { return }
        var start = 0
        while start < bytes.count {
            var end = bytes.count
            var next = bytes.count
            // memchr finds each newline with vector instructions.
            if let hit = memchr(base + start, 0x0A, bytes.count - start) {
                end = UnsafeRawPointer(base).distance(to: UnsafeRawPointer(hit))
                next = end + 1
            }
            var stop = end
            if stop > start && base[stop - 1] == 0x0D { stop -= 1 }
            try body(UnsafeBufferPointer(start: base + start, count: stop - start))
            start = next
        }
    }
}
