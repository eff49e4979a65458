#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import CQLKit

/// Streaming an NDJSON file on every core: the file is read in blocks of
/// whole lines (``LineBlockReader``), each block is cut at line boundaries
/// into one part per core, the parts are evaluated at once, and their
/// results are joined in input order. Memory is a block and its results,
/// whatever the file's size.
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
        stream path: String, keys: JSONKeyFilter?, emits: Bool, spool: Spool, blockSize: Int = 1 << 20
    ) throws(QueryError) -> Int {
        let cores = max(1, min(8, sysconf(Int32(_SC_NPROCESSORS_ONLN))))
        let workers = (0..<cores).map { _ in StreamWorker(plan: self, path: path, keys: keys, emits: emits) }
        var total = 0
        try LineBlockReader(path: path, blockSize: blockSize).forEachBlock { (block, firstLine) throws(QueryError) in
            let parts = LineParts(block, count: workers.count, firstLine: firstLine)
            ForkJoin.run(count: parts.ranges.count) { i in
                workers[i].run(parts.ranges[i], firstLine: parts.firstLines[i])
            }
            for w in workers.prefix(parts.ranges.count) {
                if let failure = w.failure { throw failure }
                total += w.matched
                if w.written > 0 { try spool.append(lines: w.output, count: w.written) }
                w.reset()
            }
        }
        return total
    }
}

/// One thread's share of a block: its own parser and evaluation context,
/// and the results of its part (compact JSON lines, each with its newline).
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
    var output: [UInt8] = []
    var written = 0
    var matched = 0
    var failure: QueryError?

    init(plan: QueryPlan, path: String, keys: JSONKeyFilter?, emits: Bool) {
        self.plan = plan
        self.path = path
        self.keys = keys
        self.emits = emits
        copiesLines = plan.projection == nil && plan.includer.isEmpty
        condition = ScanCondition(plan.condition)
    }

    func reset() {
        output.removeAll(keepingCapacity: true)
        written = 0
        matched = 0
    }

    func run(_ part: UnsafeBufferPointer<UInt8>, firstLine: Int) {
        guard let base = part.baseAddress else { return }
        var start = 0
        var number = firstLine
        do throws(QueryError) {
            while start < part.count {
                var end = part.count
                if let hit = memchr(base + start, 0x0A, part.count - start) {
                    end = UnsafeRawPointer(base).distance(to: UnsafeRawPointer(hit))
                }
                var stop = end
                if stop > start && base[stop - 1] == 0x0D { stop -= 1 }
                try line(UnsafeBufferPointer(rebasing: part[start..<stop]), number)
                number += 1
                start = end + 1
            }
        } catch {
            failure = error
        }
    }

    /// The sequential scan's work for one line (`QueryPlan.filter(stream:output:)`).
    private func line(_ bytes: UnsafeBufferPointer<UInt8>, _ number: Int) throws(QueryError) {
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
        matched += 1
        guard emits else { return }
        // An unshaped object's line is rewritten in the writer's form from its
        // bytes when that is certain to give the same text (JSONCanonicalCopy).
        if copiesLines, (object == nil && scan.writeSorted(to: &output)) || JSONCanonicalCopy.write(bytes, to: &output) {
            output.append(0x0A)
            written += 1
            return
        }
        let whole = keys == nil ? object! : try DataLoader.object(line: bytes, number: number, file: path, parser: parser)
        JSONWriter.write(.object(plan.shape(whole)), to: &output)
        output.append(0x0A)
        written += 1
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
