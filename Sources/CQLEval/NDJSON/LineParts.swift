#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A block of lines cut into about `count` parts of similar size at line
/// boundaries (each part ends just after a `\n`, except perhaps the
/// block's last), with each part's first line number: the unit of work
/// when several threads share out a block's lines (`eval` over NDJSON,
/// `translate --lines`).
///
///     "a\nbb\nc\n" in 2 parts, first line 1 → ranges "a\nbb\n", "c\n"; firstLines 1, 3
package struct LineParts: @unchecked Sendable {
    /// The parts, in order; fewer than asked when the block has fewer lines.
    package var ranges: [UnsafeBufferPointer<UInt8>] = []
    /// The 1-based number of each part's first line (all `firstLine` when
    /// not `numbered`).
    package var firstLines: [Int] = []

    /// `numbered: false` leaves the lines uncounted (a pass over the block
    /// on one thread), for a caller that numbers them otherwise.
    package init(_ block: UnsafeBufferPointer<UInt8>, count: Int, firstLine: Int, numbered: Bool = true) {
        guard let base = block.baseAddress, block.count > 0 else { return }
        var start = 0
        var line = firstLine
        for k in 1...count where start < block.count {
            var end = block.count
            let target = block.count * k / count
            if k < count, target > start, target < block.count, let hit = memchr(base + target - 1, 0x0A, block.count - target + 1) {
                end = UnsafeRawPointer(base).distance(to: UnsafeRawPointer(hit)) + 1
            }
            guard end > start else { continue }
            let part = UnsafeBufferPointer(rebasing: block[start..<end])
            ranges.append(part)
            firstLines.append(line)
            if numbered { line += LineBlockReader.newlines(part) }
            start = end
        }
    }
}
