#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import CQLKit

/// Output lines held back until the input has been read to the end without
/// error (README.md, "A tour of the `cql` command", **eval**: nothing is
/// printed for a half-read result). Up to
/// `memoryLimit` bytes stay in memory; beyond that they go to an anonymous
/// temporary file, so memory stays bounded however many lines match.
final class Spool {
    let memoryLimit: Int
    private var buffer: [UInt8] = []
    private var file: UnsafeMutablePointer<FILE>?
    private(set) var lineCount = 0

    init(memoryLimit: Int = 4 << 20) { self.memoryLimit = memoryLimit }

    deinit { if let file { fclose(file) } }

    func append(_ line: String) throws(QueryError) {
        buffer.append(contentsOf: line.utf8)
        buffer.append(0x0A)
        lineCount += 1
        if buffer.count >= memoryLimit { try flushToFile() }
    }

    /// Appends `count` lines already written with their newlines.
    func append(lines bytes: [UInt8], count: Int) throws(QueryError) {
        buffer.append(contentsOf: bytes)
        lineCount += count
        if buffer.count >= memoryLimit { try flushToFile() }
    }

    private func flushToFile() throws(QueryError) {
        if file == nil {
            guard let f = tmpfile() else { throw QueryError(.data, "cannot create a temporary file for the results") }
            file = f
        }
        let written = buffer.withUnsafeBytes { fwrite($0.baseAddress, 1, $0.count, file) }
        guard written == buffer.count else { throw QueryError(.data, "cannot write the temporary results file") }
        buffer.removeAll(keepingCapacity: true)
    }

    /// Hands every line (without its newline) to `output`, in order.
    func replay(_ output: (String) -> Void) throws(QueryError) {
        if let file {
            try flushToFile()
            rewind(file)
            var chunk = [UInt8](repeating: 0, count: 64 * 1024)
            var pending: [UInt8] = []
            while true {
                let n = chunk.withUnsafeMutableBytes { fread($0.baseAddress, 1, $0.count, file) }
                if n == 0 { break }
                chunk.withUnsafeBufferPointer { buf in
                    let rest = Spool.forEachLine(UnsafeBufferPointer(rebasing: buf[..<n])) { line in
                        if pending.isEmpty { return output(String(decoding: line, as: UTF8.self)) }
                        pending.append(contentsOf: line)
                        output(String(decoding: pending, as: UTF8.self))
                        pending.removeAll(keepingCapacity: true)
                    }
                    pending.append(contentsOf: UnsafeBufferPointer(rebasing: buf[rest..<n]))
                }
            }
            if ferror(file) != 0 { throw QueryError(.data, "cannot read the temporary results file") }
            return
        }
        _ = buffer.withUnsafeBufferPointer { Spool.forEachLine($0) { output(String(decoding: $0, as: UTF8.self)) } }
    }

    /// Calls `body` with each newline-terminated line of `bytes` (found with
    /// memchr); returns where the unterminated rest begins.
    private static func forEachLine(_ bytes: UnsafeBufferPointer<UInt8>, _ body: (UnsafeBufferPointer<UInt8>) -> Void) -> Int {
        guard let base = bytes.baseAddress else { return 0 }
        var start = 0
        while start < bytes.count, let hit = memchr(base + start, 0x0A, bytes.count - start) {
            let i = UnsafeRawPointer(base).distance(to: UnsafeRawPointer(hit))
            body(UnsafeBufferPointer(rebasing: bytes[start..<i]))
            start = i + 1
        }
        return start
    }
}
