#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import CQLKit

/// Reads a file line by line through a fixed-size buffer, so an NDJSON file
/// of any size is processed in constant memory (plus the longest line).
struct LineReader {
    let path: String
    /// How the file is named in error messages.
    let displayName: String

    init(path: String, displayName: String? = nil) {
        self.path = path
        self.displayName = displayName ?? path
    }

    /// Calls `body` with each line (without `\n` or `\r\n`) and its 1-based
    /// number. A UTF-8 byte order mark at the start is skipped.
    func forEachLine(_ body: (UnsafeBufferPointer<UInt8>, Int) throws(QueryError) -> Void) throws(QueryError) {
        guard let file = fopen(path, "rb") else {
            throw QueryError(.data, "\(displayName): cannot open the file (\(String(cString: strerror(errno))))")
        }
        defer { fclose(file) }
        var chunk = [UInt8](repeating: 0, count: 64 * 1024)
        var pending: [UInt8] = []
        var lineNumber = 0
        var first = true

        func emit(_ line: UnsafeBufferPointer<UInt8>) throws(QueryError) {
            lineNumber += 1
            var l = line
            if first {
                first = false
                if l.count >= 3, l[0] == 0xEF, l[1] == 0xBB, l[2] == 0xBF { l = UnsafeBufferPointer(rebasing: l[3...]) }
            }
            if let last = l.last, last == 0x0D { l = UnsafeBufferPointer(rebasing: l[..<(l.count - 1)]) }
            try body(l, lineNumber)
        }

        while true {
            let n = chunk.withUnsafeMutableBytes { fread($0.baseAddress, 1, $0.count, file) }
            if n == 0 {
                if ferror(file) != 0 { throw QueryError(.data, "\(displayName): read error after line \(lineNumber)") }
                break
            }
            var failure: QueryError?
            chunk.withUnsafeBufferPointer { buf in
                guard let base = buf.baseAddress else { return }
                var start = 0
                // memchr finds each newline with vector instructions.
                while start < n, let hit = memchr(base + start, 0x0A, n - start) {
                    let i = UnsafeRawPointer(base).distance(to: UnsafeRawPointer(hit))
                    do throws(QueryError) {
                        if pending.isEmpty {
                            try emit(UnsafeBufferPointer(rebasing: buf[start..<i]))
                        } else {
                            pending.append(contentsOf: buf[start..<i])
                            let line = pending
                            pending.removeAll(keepingCapacity: true)
                            try line.withUnsafeBufferPointer { (l) throws(QueryError) in try emit(l) }
                        }
                    } catch {
                        failure = error
                        return
                    }
                    start = i + 1
                }
                pending.append(contentsOf: buf[start..<n])
            }
            if let failure { throw failure }
        }
        if !pending.isEmpty {
            let line = pending
            try line.withUnsafeBufferPointer { (l) throws(QueryError) in try emit(l) }
        }
    }
}
