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
/// The input is read in blocks of about `blockSize` bytes of whole lines
/// (``LineBlockReader``: memory is a block and the output of two, whatever
/// the input's size). Each block is cut into pieces of about `pieceSize` bytes
/// (``LineParts``); the cores take the pieces one after another
/// (``ForkJoin/forEach(items:threads:_:)``), each piece translated into its
/// own buffer, and the buffers are written in input order, while the next
/// block is translated. So the output,
/// the messages (each with its line number, in line order) and the exit
/// status are those of translating the lines one after the other. A block
/// under `parallelFrom` bytes stays on one thread, where a thread would cost
/// more than it saves.
struct LineTranslation {
    let translator: Translator
    /// The input's name in error messages (`queries.txt`, `<stdin>`).
    let name: String
    var blockSize = 1 << 20
    var parallelFrom = 16 << 10
    /// Small pieces let a core that is ahead take over the work of one that
    /// is held up (this machine is shared), and keep the wait at a block's
    /// end short (a core that finishes first waits at most for one piece);
    /// 16 KiB is ~200 lines, well under a millisecond of work, and 64 pieces
    /// to a 1 MiB block cost nothing to hand out.
    var pieceSize = 16 << 10

    /// What one piece of a block gave: its output lines, its messages for
    /// stderr (errors and warnings, in line order) and its counts.
    private final class PieceResult: @unchecked Sendable {
        var output: [UInt8] = []
        var messages: [String] = []
        var lines = 0
        var failures = 0
    }

    /// Translates every line that `reader` reads, writes the results with
    /// ``Output``, and returns how many lines there were and how many failed.
    func run(_ reader: LineBlockReader) throws(CommandFailure) -> (lines: Int, failures: Int) {
        let cores = max(1, min(8, sysconf(Int32(_SC_NPROCESSORS_ONLN))))
        // Two sets of piece results, used in turn: while one block's pieces
        // are translated into one set, the previous block's results, in the
        // other, are written (the first item of the block's work), so the
        // other core does not wait for the writing.
        var sets: [[PieceResult]] = [[], []]
        var current = 0
        var unwritten: ArraySlice<PieceResult> = []
        var lines = 0, failures = 0
        /// Writes results to stdout and stderr, in order.
        func write(_ results: ArraySlice<PieceResult>) {
            for result in results {
                Output.bytes(result.output)
                for message in result.messages { Output.error(message) }
            }
        }
        /// Counts written results and empties them for reuse.
        func done(_ results: ArraySlice<PieceResult>) {
            for result in results {
                failures += result.failures
                lines += result.lines
                result.output.removeAll(keepingCapacity: true)
                result.messages.removeAll()
                result.lines = 0
                result.failures = 0
            }
        }
        do {
            try reader.forEachBlock({ block, firstLine in
                let parts = LineParts(block, count: block.count < parallelFrom ? 1 : max(cores, block.count / pieceSize), firstLine: firstLine)
                while sets[current].count < parts.ranges.count { sets[current].append(PieceResult()) }
                let results = sets[current]
                let previous = unwritten
                let first = previous.isEmpty ? 0 : 1
                ForkJoin.forEach(items: first + parts.ranges.count, threads: cores) { item in
                    if item < first { return write(previous) }
                    let i = item - first
                    translate(parts.ranges[i], firstLine: parts.firstLines[i], into: results[i])
                }
                done(previous)
                unwritten = results.prefix(parts.ranges.count)
                current = 1 - current
            }, overlong: { line in
                // The lines before it first, then its empty output line and
                // its error, as for any bad line.
                write(unwritten)
                done(unwritten)
                unwritten = []
                lines += 1
                failures += 1
                Output.bytes([0x0A])
                Output.error(Self.overlongMessage(name: name, line: line))
            })
        } catch {
            write(unwritten)  // the lines read before the input failed
            throw CommandFailure("error: " + error.message)
        }
        write(unwritten)
        done(unwritten)
        return (lines, failures)
    }

    /// The longest line read (``LineBlockReader/maxLineLength``): a query's
    /// limit, and a `\r` before the `\n` (dropped before translating).
    static let maxLineLength = QueryLimits.default.maxQueryLength + 1

    /// The error of a line longer than ``maxLineLength``, said as the limit
    /// check says it (at the first byte past the limit), without the line's
    /// length: the rest of the line is skipped as it is read, not counted
    /// into memory.
    static func overlongMessage(name: String, line: Int) -> String {
        let limit = QueryLimits.default.maxQueryLength
        return "error: \(name):\(line):\(limit + 1): the query is more than \(limit) bytes long; the limit is \(limit) bytes "
            + "(the rest of the line is skipped)"
    }

    /// One piece's lines, numbered from `firstLine`: a blank line and a line
    /// that fails both give an empty output line; a failure's message gets
    /// the input's name and the line's number.
    private func translate(_ part: UnsafeBufferPointer<UInt8>, firstLine: Int, into result: PieceResult) {
        // The piece's output, messages and counts are locals while its lines
        // are translated, moved out of and back into `result`: a class's
        // stored properties cost a dynamic exclusivity check on every access,
        // four a line.
        var output: [UInt8] = []
        swap(&output, &result.output)
        var messages: [String] = []
        swap(&messages, &result.messages)
        var lines = 0, failures = 0
        var lineNumber = firstLine - 1
        // Where-JSON is about 1.3 times its CQL: room for it at once, rather
        // than growing (and copying) the buffer several times per piece.
        output.reserveCapacity(part.count * 3 / 2)
        // One parser for the piece's lines (a piece is one thread's), so a
        // line's parse allocates no token buffer nor parser state.
        let cqlParser = ReusableCQLParser()
        LineSplitter.forEachLine(part) { line in
            lineNumber += 1
            lines += 1
            if line.allSatisfy({ $0 == 0x20 || $0 == 0x09 }) {
                output.append(0x0A)
                return
            }
            let mark = output.count
            var warnings: [String] = []
            var failed: CommandFailure?
            do throws(CommandFailure) {
                let text = try Self.text(of: line)
                try translator.write(text, to: &output, warnings: &warnings, cqlParser: cqlParser)
            } catch let failure {
                output.removeSubrange(mark...)
                failed = failure
            }
            // Warnings come before the line's error, as when they are printed at once.
            if !warnings.isEmpty { messages.append(contentsOf: warnings.map { "warning: " + $0 }) }
            if let failed {
                failures += 1
                messages.append(failed.text.replacingFirst("<input>:1:", with: "\(name):\(lineNumber):")
                    .replacingFirst("<input>:", with: "\(name):\(lineNumber): "))
            }
            output.append(0x0A)
        }
        swap(&output, &result.output)
        swap(&messages, &result.messages)
        result.lines += lines
        result.failures += failures
    }

    /// A line's text; a line that is not UTF-8 is that line's error, at its
    /// first bad byte (its text shown with U+FFFD in place of the bad bytes).
    static func text(of line: UnsafeBufferPointer<UInt8>) throws(CommandFailure) -> String {
        // Decoding (which repairs) and comparing costs a third of
        // `String(validating:as:)`, whose generic path is slow.
        var text = String(decoding: line, as: UTF8.self)
        let repaired = text.withUTF8 { decoded in
            decoded.count != line.count || (!line.isEmpty && memcmp(decoded.baseAddress!, line.baseAddress!, line.count) != 0)
        }
        guard repaired else { return text }
        // Not UTF-8: the error is at the first byte of the first sequence
        // that does not decode; the text shows U+FFFD in place of bad bytes.
        var decoder = UTF8()
        var bytes = line.makeIterator()
        var firstBad = 0
        while case .scalarValue(let scalar) = decoder.decode(&bytes) {
            firstBad += UTF8.width(scalar)
        }
        let error = QueryError(.syntax, "the line is not valid UTF-8", range: SourceRange(firstBad, firstBad + 1), source: text)
        throw CommandFailure(error)
    }
}
