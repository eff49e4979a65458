#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import CQLKit

/// Output lines held back until the input has been read to the end without
/// error (design.md: nothing is printed for a half-read result). Up to
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
                var start = 0
                for i in 0..<n where chunk[i] == 0x0A {
                    pending.append(contentsOf: chunk[start..<i])
                    output(String(decoding: pending, as: UTF8.self))
                    pending.removeAll(keepingCapacity: true)
                    start = i + 1
                }
                pending.append(contentsOf: chunk[start..<n])
            }
            if ferror(file) != 0 { throw QueryError(.data, "cannot read the temporary results file") }
            return
        }
        var start = 0
        for i in buffer.indices where buffer[i] == 0x0A {
            output(String(decoding: buffer[start..<i], as: UTF8.self))
            start = i + 1
        }
    }
}
