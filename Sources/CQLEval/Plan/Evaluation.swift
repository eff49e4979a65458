import CQLKit

/// The whole of `cql eval` below the command line: load the data, plan the
/// bound query, evaluate, write NDJSON in result order.
public enum Evaluation {
    /// Evaluates `query` over the data at `dataPath` and hands each result
    /// line (compact JSON, sorted keys, no newline) to `output`.
    ///
    /// - `dataPath` is a directory of `<ClassName>.ndjson|.json` files (needed
    ///   for subqueries, include and relations), or one file holding the
    ///   objects of `query.className`.
    /// - When the query's own collection is an NDJSON file, no subquery reads
    ///   that class, and results keep input order (no `order`, no `near`, no
    ///   `include`) or are only counted, that file is streamed in constant
    ///   memory; the other collections are loaded.
    /// - Nothing is written unless the input was read completely and
    ///   without error.
    ///
    /// ```swift
    /// let q = try Binder.bind(try CQLParser.parse("select count(*), * from GameScore where score > ?"),
    ///                         parameters: [80])
    /// let count = try Evaluation.run(q, dataPath: "Corpus/data") { print($0) }
    /// // prints each matching GameScore; count == the number of matches
    /// ```
    /// - Parameters:
    ///   - countOnly: count and write nothing (`cql eval --count`).
    ///   - source: the query text, so errors render with a caret.
    /// - Returns: the number of matches (before skip/limit) when `countOnly`
    ///   or the query selects `count(*)`; else `nil`.
    /// - Throws: `QueryError`; `.data` errors name file and line.
    @discardableResult
    public static func run(
        _ query: Query, dataPath: String, countOnly: Bool = false, source: String? = nil, output: (String) -> Void
    ) throws(QueryError) -> Int? {
        var q = query
        if countOnly { q.count = .only }
        // One consistent snapshot against concurrent `cql exec` writes.
        let lock = DataLoader.isDirectory(dataPath) ? try DataDirectory.Lock(dataPath, exclusive: false) : nil
        defer { lock?.release() }
        let mainFile = streamableFile(for: q, dataPath: dataPath)
        var store = DocumentStore()
        if DataLoader.isDirectory(dataPath) {
            try store.load(path: dataPath, skippingClass: mainFile == nil ? nil : q.className)
        } else if mainFile == nil {
            try store.load(path: dataPath, className: q.className)
        }
        let plan = try QueryPlan(q, store: store, source: source)
        if let mainFile {
            return try plan.filter(stream: mainFile, output: output).count
        }
        let result = try plan.run()
        for o in result.objects { output(JSONWriter.string(.object(o))) }
        return result.count
    }

    /// The NDJSON file holding `query.className` when it can be streamed.
    private static func streamableFile(for query: Query, dataPath: String) -> String? {
        let countOnly = query.count == .only
        guard countOnly || (query.order.isEmpty && query.includes.isEmpty && !mentionsNear(query.condition)),
            !subqueries(query.condition, use: query.className)
        else { return nil }
        if DataLoader.isDirectory(dataPath) {
            let files = (try? DataLoader.dataFiles(inDirectory: dataPath)) ?? []
            let mine = files.filter { $0.className == query.className }
            guard mine.count == 1, DataLoader.format(of: mine[0].path) == .ndjson else { return nil }
            return mine[0].path
        }
        return DataLoader.format(of: dataPath) == .json ? nil : dataPath
    }

    private static func mentionsNear(_ c: Condition?) -> Bool {
        guard let c else { return false }
        switch c.predicate {
        case .near: return true
        case .and(let items), .or(let items): return items.contains { mentionsNear($0) }
        case .not(let inner): return mentionsNear(inner)
        default: return false
        }
    }

    private static func subqueries(_ c: Condition?, use className: String) -> Bool {
        guard let c else { return false }
        switch c.predicate {
        case .select(_, _, let q, _), .inQuery(_, let q, _):
            return q.className == className || subqueries(q.condition, use: className)
        case .and(let items), .or(let items): return items.contains { subqueries($0, use: className) }
        case .not(let inner), .elementMatch(_, let inner): return subqueries(inner, use: className)
        default: return false
        }
    }
}
