import CQLKit

/// What ``QueryPlan/filter(stream:output:)`` reports.
public struct StreamResult: Sendable, Equatable {
    /// How many lines were handed to `output`.
    public var written: Int
    /// The number of matches before skip/limit, when the query asked for a count.
    public var count: Int?
    /// The `skip` of the next page when more matches follow (Usergrid cursor).
    public var nextSkip: Int?
}

extension QueryPlan {
    /// Runs the plan over the objects of an NDJSON file and hands each result,
    /// as one line of compact JSON (sorted keys, typed values in REST form),
    /// to `output`, in result order.
    ///
    /// When the plan keeps input order (no `order`, no `near`;
    /// ``preservesInputOrder``) or only counts, the file is read line by line
    /// in constant memory. Otherwise it is loaded, then evaluated. Either way `output` is
    /// called only after the whole file was read without error: matching
    /// lines are held back (in memory up to a few MiB, then in a temporary
    /// file), so nothing is printed for a half-read input. The file is always
    /// read to the end, so bad data anywhere is reported even with a `limit`.
    ///
    /// A query that only counts, or writes every match (no `skip`, no
    /// `limit`), runs on every core: blocks of whole lines are cut into one
    /// part per core and the results joined in input order. There each line
    /// is checked by a structural scan (`JSONLineScan`) and the condition
    /// reads only the values it needs from it (`ScanCondition`); a line
    /// outside the scan's common form is read by the JSON reader instead. A
    /// result that is the object as read (no keys, no include) is written
    /// from the line's own bytes with its members sorted when that gives
    /// exactly the text re-serializing it would (the scan, or
    /// `JSONCanonicalCopy`, says when); otherwise the line is read whole and
    /// re-serialized. The output bytes are the same either way.
    ///
    /// ```swift
    /// // GameScore.ndjson: {"objectId":"a","score":90}\n{"objectId":"b","score":70}
    /// let plan = try QueryPlan(query /* score > 80 */)
    /// let r = try plan.filter(stream: "GameScore.ndjson") { print($0) }
    /// // prints {"objectId":"a","score":90}; r.written == 1
    /// ```
    /// - Throws: `.data` naming file, line and column for bad input; query
    ///   errors as ``run()``.
    public func filter(stream path: String, output: (String) -> Void) throws(QueryError) -> StreamResult {
        // A count alone does not depend on order, so it always streams.
        guard preservesInputOrder || query.count == .only else {
            var objects: [[String: Value]] = []
            try DataLoader.forEachObject(inNDJSON: path) { (o, _) throws(QueryError) in objects.append(o) }
            let result = try run(over: objects)
            for o in result.objects { output(JSONWriter.string(.object(o))) }
            return StreamResult(written: result.objects.count, count: result.count, nextSkip: result.nextSkip)
        }
        let spool = Spool()
        let end = limit.map { skip.addingReportingOverflow($0).overflow ? Int.max : skip + $0 }
        let emits = query.count != .only
        var total = 0
        // Lines are parsed keeping only the keys the condition reads; a line
        // to write is parsed again, whole.
        let keys = condition.rootKeys.map(JSONKeyFilter.init)
        if streamsInParallel(emits: emits) {
            total = try filterInParallel(stream: path, keys: keys, emits: emits, spool: spool)
        } else {
            try sequentialFilter(path, keys: keys, emits: emits, end: end, spool: spool, total: &total)
        }
        try spool.replay(output)
        return StreamResult(
            written: spool.lineCount,
            count: query.count == .none ? nil : total,
            nextSkip: (end.map { total > $0 } ?? false) ? skip + spool.lineCount : nil)
    }

    /// One line after the other, on this thread: `skip` and `limit` count
    /// matches across the whole file.
    private func sequentialFilter(
        _ path: String, keys: JSONKeyFilter?, emits: Bool, end: Int?, spool: Spool, total: inout Int
    ) throws(QueryError) {
        let context = EvalContext()
        try DataLoader.forEachObject(inNDJSON: path, keepingOnly: keys) { (object, line, bytes) throws(QueryError) in
            let matched: Bool
            do throws(QueryError) {
                matched = try matches(object, context)
            } catch {
                var e = error
                e.message = "\(path):\(line): \(e.message)"
                throw e
            }
            guard matched else { return }
            if emits && total >= skip && (end.map { total < $0 } ?? true) {
                let whole = keys == nil ? object : try DataLoader.object(line: bytes, number: line, file: path)
                try spool.append(JSONWriter.string(.object(shape(whole))))
            }
            total += 1
        }
    }
}
