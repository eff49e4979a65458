#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import CQLKit

/// Streaming an NDJSON file on every core: the file is read in blocks of
/// whole lines (``LineBlockReader``), each block is cut at line boundaries
/// into pieces of about `pieceSize` bytes, the cores take the pieces one
/// after another (a core that is ahead takes over the work of one held up,
/// and waits at a block's end for one piece at most), and
/// the pieces' results are joined in input order. Memory is a block and its
/// results, whatever the file's size.
///
/// Used when the written lines do not depend on a running count across the
/// file: the query only counts, or writes every match (no `skip`, no
/// `limit`). The output, the count and the first error (the earliest in the
/// file, with its line number) are those of the one-thread scan.
extension QueryPlan {
    /// Whether ``filterInParallel(stream:keys:spool:)`` gives this plan's result.
    func streamsInParallel(emits: Bool) -> Bool {
        !emits || (skip == 0 && limit == nil)
    }

    /// Evaluates every line of `path`, appends the results to `spool` in
    /// input order, and returns the number of matches.
    func filterInParallel(
        stream path: String, keys: JSONKeyFilter?, emits: Bool, spool: Spool, blockSize: Int = 1 << 20, pieceSize: Int = 16 << 10
    ) throws(QueryError) -> Int {
        let cores = max(1, min(8, sysconf(Int32(_SC_NPROCESSORS_ONLN))))
        let workers = (0..<cores).map { _ in StreamWorker(plan: self, path: path, keys: keys, emits: emits) }
        var pieces: [StreamPiece] = []
        var total = 0
        try LineBlockReader(path: path, blockSize: blockSize).forEachCountedBlock { (block, firstLine) throws(QueryError) -> Int in
            // The pieces number their lines from 1 and count them, so no
            // thread counts a block's lines before the threads start.
            let parts = LineParts(block, count: max(cores, block.count / pieceSize), firstLine: 1, numbered: false)
            while pieces.count < parts.ranges.count { pieces.append(StreamPiece()) }
            ForkJoin.forEach(items: parts.ranges.count, threads: cores) { [pieces] i, thread in
                workers[thread].run(parts.ranges[i], firstLine: 1, into: pieces[i])
            }
            var line = firstLine
            for (i, piece) in pieces.prefix(parts.ranges.count).enumerated() {
                if piece.failure != nil {
                    // The first error of the file, numbered within its piece:
                    // the piece runs again alone, its lines numbered from
                    // their place in the file (its lines before the error
                    // gave no error, and evaluation is deterministic).
                    piece.reset()
                    workers[0].run(parts.ranges[i], firstLine: line, into: piece)
                    if let failure = piece.failure { throw failure }
                }
                total += piece.matched
                if piece.written > 0 { try spool.append(lines: piece.output, count: piece.written) }
                line += piece.lines
                piece.reset()
            }
            return line - firstLine
        }
        return total
    }
}

/// One piece of a block's results: its matches as compact JSON lines (each
/// with its newline), their counts, and the first error in it.
private final class StreamPiece: @unchecked Sendable {
    var output: [UInt8] = []
    var written = 0
    var matched = 0
    /// The lines read (all of the piece's unless it failed).
    var lines = 0
    var failure: QueryError?

    func reset() {
        output.removeAll(keepingCapacity: true)
        written = 0
        matched = 0
        lines = 0
        failure = nil
    }
}

/// One thread's means of evaluating lines: its own parser, scanners and
/// evaluation context, reused for every piece the thread takes.
private final class StreamWorker: @unchecked Sendable {
    let plan: QueryPlan
    let path: String
    let keys: JSONKeyFilter?
    let emits: Bool
    /// Results are the objects as read (no include, no keys).
    let copiesLines: Bool
    let parser = JSONLineParser(decodingTypedValues: true)
    let scan = JSONLineScan()
    let inner = JSONLineScan()
    let context = EvalContext()
    let condition: ScanCondition

    init(plan: QueryPlan, path: String, keys: JSONKeyFilter?, emits: Bool) {
        self.plan = plan
        self.path = path
        self.keys = keys
        self.emits = emits
        copiesLines = plan.projection == nil && plan.includer.isEmpty
        condition = ScanCondition(plan.condition)
    }

    func run(_ part: UnsafeBufferPointer<UInt8>, firstLine: Int, into piece: StreamPiece) {
        // A failure left by an earlier piece of this thread is not this one's.
        context.failure = nil
        var number = firstLine
        do throws(QueryError) {
            try LineSplitter.forEachLine(part) { (bytes) throws(QueryError) in
                try line(bytes, number, into: piece)
                number += 1
            }
            piece.lines = number - firstLine
        } catch {
            piece.failure = error
        }
    }

    /// The sequential scan's work for one line (`QueryPlan.filter(stream:output:)`).
    private func line(_ bytes: UnsafeBufferPointer<UInt8>, _ number: Int, into piece: StreamPiece) throws(QueryError) {
        guard bytes.contains(where: { $0 != 0x20 && $0 != 0x09 && $0 != 0x0D }) else { return }
        // The scan checks the line and the condition reads the members it
        // needs from it (ScanCondition); a line the scan leaves (an error, a
        // rare form) is read by the reader, which gives the object or the error.
        var object: [String: Value]?
        var result: Bool?
        if let keys, scan.scan(bytes) {
            result = try located(number) { () throws(QueryError) in
                try plan.matches(scanned: scan, condition, keys: keys, parser: parser, inner: inner, context: context)
            }
        }
        if result == nil {
            let read = try DataLoader.object(line: bytes, number: number, file: path, parser: parser, keepingOnly: keys)
            object = read
            result = try located(number) { () throws(QueryError) in try plan.matches(read, context) }
        }
        let isMatch = result!
        guard isMatch else { return }
        piece.matched += 1
        guard emits else { return }
        // An unshaped object's line is rewritten in the writer's form from its
        // bytes when that is certain to give the same text (JSONCanonicalCopy).
        // A scanned line (`object == nil`) the scan cannot write, the whole
        // line's canonical copy refuses too (it refuses what writeSorted
        // refuses, and writeSorted re-copies members with it).
        if copiesLines, object == nil ? scan.writeSorted(to: &piece.output) : JSONCanonicalCopy.write(bytes, to: &piece.output) {
            piece.output.append(0x0A)
            piece.written += 1
            return
        }
        let whole = keys == nil ? object! : try DataLoader.object(line: bytes, number: number, file: path, parser: parser)
        JSONWriter.write(.object(plan.shape(whole)), to: &piece.output)
        piece.output.append(0x0A)
        piece.written += 1
    }

    /// `body`'s result; an error it throws names the file and line.
    @inline(__always)
    private func located<T>(_ number: Int, _ body: () throws(QueryError) -> T) throws(QueryError) -> T {
        do throws(QueryError) {
            return try body()
        } catch {
            var e = error
            e.message = "\(path):\(number): \(e.message)"
            throw e
        }
    }
}
