#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import CQLKit

/// Reads a file in blocks of whole lines (about `blockSize` bytes each, more
/// when one line is longer), so several threads can share out a block's lines
/// while memory stays bounded by the block size, whatever the file's size.
/// Used by `eval` over NDJSON and by `translate --lines`.
package struct LineBlockReader {
    /// The file to open; with `standardInput`, only the name in messages.
    package let path: String
    package var blockSize: Int
    /// Read standard input instead of opening `path`.
    package var standardInput: Bool

    /// The longest line handed to `body`, in bytes (nil: no limit). A
    /// longer line is reported to `overlong` as soon as this many bytes of it
    /// have been read, and the rest of it is read in blocks and dropped: one
    /// line of gigabytes costs a block of memory, not its size.
    package var maxLineLength: Int?

    package init(path: String, blockSize: Int = 1 << 20, standardInput: Bool = false, maxLineLength: Int? = nil) {
        self.path = path
        self.blockSize = blockSize
        self.standardInput = standardInput
        self.maxLineLength = maxLineLength
    }

    /// Calls `body` with each block (every line of it ends with `\n`, except
    /// perhaps the file's last) and the 1-based number of its first line. A
    /// UTF-8 byte order mark at the start of the file is left out.
    ///
    /// A line longer than ``maxLineLength`` is not in any block: `overlong`
    /// gets its number, in order (after the blocks of the lines before it,
    /// before those after it).
    package func forEachBlock(
        _ body: (UnsafeBufferPointer<UInt8>, Int) throws(QueryError) -> Void,
        overlong: (Int) throws(QueryError) -> Void = { _ in }
    ) throws(QueryError) {
        try forEachCountedBlock({ (block, firstLine) throws(QueryError) in
            try body(block, firstLine)
            return LineBlockReader.newlines(block)
        }, overlong: overlong)
    }

    /// ``forEachBlock(_:overlong:)`` whose `body` returns the number of `\n`
    /// in the block (or of lines: they differ only for a file's last line,
    /// after which no block follows), which numbers the next block's lines.
    ///
    /// Why: counting a block's lines is a pass over it on one thread; a
    /// caller that splits the block among threads learns the count from
    /// them instead.
    package func forEachCountedBlock(
        _ body: (UnsafeBufferPointer<UInt8>, Int) throws(QueryError) -> Int,
        overlong: (Int) throws(QueryError) -> Void = { _ in }
    ) throws(QueryError) {
        // Standard input through a stream of its own (on a copy of fd 0), so
        // it is closed like a file.
        guard let file = standardInput ? fdopen(dup(0), "rb") : fopen(path, "rb") else {
            throw QueryError(.data, "\(path): cannot open the file (\(String(cString: strerror(errno))))")
        }
        defer { fclose(file) }
        // Not zeroed first: only the bytes `fread` wrote (`..<filled`) are read.
        var buffer = [UInt8](unsafeUninitializedCapacity: blockSize) { _, count in count = blockSize }
        var filled = 0
        var firstLine = 1
        var atStart = true
        while true {
            if filled == buffer.count { buffer.append(contentsOf: repeatElement(0, count: buffer.count)) }
            var room = buffer.count - filled
            if let maxLineLength {
                // The first line held: all of `buffer[..<filled]` (the start of
                // a line), or, after a skipped line, up to its `\n`.
                let lineStart = atStart && filled >= 3 && buffer[0] == 0xEF && buffer[1] == 0xBB && buffer[2] == 0xBF ? 3 : 0
                let (length, complete) = buffer.withUnsafeBufferPointer { b -> (Int, Bool) in
                    guard let hit = memchr(b.baseAddress! + lineStart, 0x0A, filled - lineStart) else { return (filled - lineStart, false) }
                    return (UnsafeRawPointer(b.baseAddress! + lineStart).distance(to: UnsafeRawPointer(hit)), true)
                }
                if length > maxLineLength {
                    try overlong(firstLine)
                    firstLine += 1
                    atStart = false
                    if !complete {
                        guard try skipLine(file, &buffer, &filled) else { return }
                    } else {
                        let after = lineStart + length + 1
                        buffer.withUnsafeMutableBytes { raw in _ = memmove(raw.baseAddress!, raw.baseAddress! + after, filled - after) }
                        filled -= after
                    }
                    continue
                }
                // Read no further into an unfinished line than its limit and
                // one byte, which tells it is over.
                if !complete { room = min(room, maxLineLength + 1 - length) }
            }
            let n = buffer.withUnsafeMutableBytes { fread($0.baseAddress! + filled, 1, room, file) }
            if n == 0 && ferror(file) != 0 { throw QueryError(.data, "\(path): read error after line \(firstLine - 1)") }
            filled += n
            let atEnd = n == 0
            var failure: QueryError?
            var consumed = 0
            buffer.withUnsafeBufferPointer { all in
                var start = 0
                if atStart, filled >= 3, all[0] == 0xEF, all[1] == 0xBB, all[2] == 0xBF { start = 3 }
                guard let end = atEnd ? filled : LineBlockReader.lastNewline(all, filled).map({ $0 + 1 }) else { return }
                atStart = false
                let block = UnsafeBufferPointer(start: all.baseAddress! + start, count: end - start)
                do throws(QueryError) {
                    firstLine += try body(block, firstLine)
                } catch {
                    failure = error
                    return
                }
                consumed = end
            }
            if let failure { throw failure }
            if atEnd { return }
            if consumed > 0 {
                buffer.withUnsafeMutableBytes { raw in
                    _ = memmove(raw.baseAddress!, raw.baseAddress! + consumed, filled - consumed)
                }
                filled -= consumed
            }
        }
    }

    /// Reads and drops the rest of a line whose start fills `buffer[..<filled]`,
    /// a buffer at a time; keeps what follows its `\n` at the buffer's start.
    /// False when the input ends first.
    private func skipLine(_ file: UnsafeMutablePointer<FILE>, _ buffer: inout [UInt8], _ filled: inout Int) throws(QueryError) -> Bool {
        while true {
            let n = buffer.withUnsafeMutableBytes { fread($0.baseAddress!, 1, $0.count, file) }
            if n == 0 {
                if ferror(file) != 0 { throw QueryError(.data, "\(path): read error in a line longer than the limit") }
                filled = 0
                return false
            }
            let next: Int? = buffer.withUnsafeMutableBytes { raw in
                guard let hit = memchr(raw.baseAddress!, 0x0A, n) else { return nil }
                let after = raw.baseAddress!.distance(to: UnsafeMutableRawPointer(hit)) + 1
                _ = memmove(raw.baseAddress!, raw.baseAddress! + after, n - after)
                return n - after
            }
            if let next {
                filled = next
                return true
            }
        }
    }

    /// The index of the last `\n` among the first `count` bytes.
    package static func lastNewline(_ bytes: UnsafeBufferPointer<UInt8>, _ count: Int) -> Int? {
        var i = count - 1
        while i >= 0 {
            if bytes[i] == 0x0A { return i }
            i -= 1
        }
        return nil
    }

    /// How many `\n` `bytes` holds.
    package static func newlines(_ bytes: UnsafeBufferPointer<UInt8>) -> Int {
        guard let base = bytes.baseAddress else { return 0 }
        var count = 0
        var start = 0
        while start < bytes.count, let hit = memchr(base + start, 0x0A, bytes.count - start) {
            count += 1
            start = UnsafeRawPointer(base).distance(to: UnsafeRawPointer(hit)) + 1
        }
        return count
    }
}

