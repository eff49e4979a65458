import CQLEval
import CQLKit
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// `translate --lines`: every line of a text translated as its own query,
/// on every core.
///
/// The text is taken in blocks of about `blockSize` bytes of whole lines;
/// each block is cut into one part per core (``LineParts``), the parts are
/// translated at once, each into its own buffer, and the buffers are written
/// in input order. So the output, the error messages (each with its line
/// number, in line order) and the exit status are those of translating the
/// lines one after the other; memory is a block's output, whatever the
/// text's size. A block under `parallelFrom` bytes stays on one thread,
/// where a thread would cost more than it saves.
struct LineTranslation {
    let translator: Translator
    /// The input's name in error messages (`queries.txt`, `<stdin>`).
    let name: String
    var blockSize = 1 << 20
    var parallelFrom = 16 << 10

    /// What one part of a block gave: its output lines, its messages for
    /// stderr (errors and warnings, in line order) and its counts.
    private final class PartResult: @unchecked Sendable {
        var output: [UInt8] = []
        var messages: [String] = []
        var lines = 0
        var failures = 0
    }

    /// Translates every line of `text`, writes the results with ``Output``,
    /// and returns how many lines there were and how many failed.
    func run(_ text: UnsafeBufferPointer<UInt8>) -> (lines: Int, failures: Int) {
        let cores = max(1, min(8, sysconf(Int32(_SC_NPROCESSORS_ONLN))))
        let results = (0..<cores).map { _ in PartResult() }
        var lines = 0, failures = 0
        var start = 0
        while start < text.count {
            // A block ends after the last `\n` within blockSize bytes (or at
            // the next `\n` when one line is longer, or at the text's end).
            var end = min(text.count, start + blockSize)
            if end < text.count {
                let window = UnsafeBufferPointer(rebasing: text[start..<end])
                if let cut = window.lastIndex(of: 0x0A) {
                    end = start + cut + 1
                } else if let base = text.baseAddress, let hit = memchr(base + end, 0x0A, text.count - end) {
                    end = UnsafeRawPointer(base).distance(to: UnsafeRawPointer(hit)) + 1
                } else {
                    end = text.count
                }
            }
            let block = UnsafeBufferPointer(rebasing: text[start..<end])
            let parts = LineParts(block, count: block.count < parallelFrom ? 1 : cores, firstLine: lines + 1)
            ForkJoin.run(count: parts.ranges.count) { i in
                translate(parts.ranges[i], firstLine: parts.firstLines[i], into: results[i])
            }
            for result in results.prefix(parts.ranges.count) {
                Output.bytes(result.output)
                for message in result.messages { Output.error(message) }
                failures += result.failures
                lines += result.lines
                result.output.removeAll(keepingCapacity: true)
                result.messages.removeAll()
                result.lines = 0
                result.failures = 0
            }
            start = end
        }
        return (lines, failures)
    }

    /// One part's lines, numbered from `firstLine`: a blank line and a line
    /// that fails both give an empty output line; a failure's message gets
    /// the input's name and the line's number.
    private func translate(_ part: UnsafeBufferPointer<UInt8>, firstLine: Int, into result: PartResult) {
        var lineNumber = firstLine - 1
        LineSplitter.forEachLine(part) { line in
            lineNumber += 1
            result.lines += 1
            if line.allSatisfy({ $0 == 0x20 || $0 == 0x09 }) {
                result.output.append(0x0A)
                return
            }
            let text = String(decoding: line, as: UTF8.self)
            let mark = result.output.count
            var warnings: [String] = []
            var failed: CommandFailure?
            do throws(CommandFailure) {
                try translator.write(text, to: &result.output, warnings: &warnings)
            } catch let failure {
                result.output.removeSubrange(mark...)
                failed = failure
            }
            // Warnings come before the line's error, as when they are printed at once.
            result.messages.append(contentsOf: warnings.map { "warning: " + $0 })
            if let failed {
                result.failures += 1
                result.messages.append(failed.text.replacingFirst("<input>:1:", with: "\(name):\(lineNumber):")
                    .replacingFirst("<input>:", with: "\(name):\(lineNumber): "))
            }
            result.output.append(0x0A)
        }
    }
}
