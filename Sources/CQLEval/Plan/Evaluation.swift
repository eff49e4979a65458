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
    /// - A single file names its class: a query without one (Usergrid `ql`,
    ///   a bare where-JSON condition) reads the file's class (its name
    ///   without extension), so `one.ndjson` is the collection `one`.
    /// - A directory without the query's class is no error (the query
    ///   matches nothing, as on a server with an empty class), but
    ///   `warning` hears about it: it is usually a misspelt class or a
    ///   forgotten `--class`.
    ///
    /// ```swift
    /// let q = try Binder.bind(try CQLParser.parse("select count(*), * from GameScore where score > ?"),
    ///                         parameters: [80])
    /// let count = try Evaluation.run(q, dataPath: "Corpus/data") { print($0) }
    /// // prints each matching GameScore; count == the number of matches
    /// ```
    /// - Parameters:
    ///   - query: the bound query.
    ///   - dataPath: the data directory or file (above).
    ///   - countOnly: count and write nothing (`cql eval --count`).
    ///   - source: the query text, so errors render with a caret.
    ///   - warning: told, in one sentence, when the data directory has no
    ///     file for the query's class.
    ///   - output: receives each matching object's line (above), in result
    ///     order.
    /// - Returns: the number of matches (before skip/limit) when `countOnly`
    ///   or the query selects `count(*)`; else `nil`.
    /// - Throws: `QueryError`; `.data` errors name file and line.
    @discardableResult
    public static func run(
        _ query: Query, dataPath: String, countOnly: Bool = false, source: String? = nil,
        warning: (String) -> Void = { _ in }, output: (String) -> Void
    ) throws(QueryError) -> Int? {
        var q = query
        if countOnly { q.count = .only }
        let isDirectory = DataLoader.isDirectory(dataPath)
        if !isDirectory && q.className.isEmpty { q.className = DataLoader.className(ofFile: dataPath) }
        // One consistent snapshot against concurrent `cql exec` writes.
        let lock = isDirectory ? try DataDirectory.Lock(dataPath, exclusive: false) : nil
        defer { lock?.release() }
        let mainFile = streamableFile(for: q, dataPath: dataPath)
        var store = DocumentStore()
        if isDirectory {
            try store.load(path: dataPath, skippingClass: mainFile == nil ? nil : q.className)
            if mainFile == nil && store.collections[q.className] == nil {
                warning(missingClassMessage(q.className, directory: dataPath))
            }
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

    static func missingClassMessage(_ className: String, directory: String) -> String {
        if className.isEmpty {
            return "the query names no class, so nothing in the directory '\(directory)' is read; give the class (Usergrid queries and bare where-JSON conditions carry none)"
        }
        return "the directory '\(directory)' has no data for the class '\(className)' (no \(className).ndjson or \(className).json); the query matches nothing"
    }

    /// The NDJSON file holding `query.className` when it can be streamed.
    private static func streamableFile(for query: Query, dataPath: String) -> String? {
        let countOnly = query.count == .only
        guard countOnly || (query.order.isEmpty && query.includes.isEmpty && query.condition?.mentionsNear != true),
            !subqueries(query, use: query.className)
        else { return nil }
        if DataLoader.isDirectory(dataPath) {
            let files = (try? DataLoader.dataFiles(inDirectory: dataPath)) ?? []
            let mine = files.filter { $0.className == query.className }
            guard mine.count == 1, streamable(mine[0].path) else { return nil }
            return mine[0].path
        }
        return streamable(dataPath) ? dataPath : nil
    }

    /// JSON Lines without a `#` header line (which the parallel scan would
    /// not skip): the other files are loaded.
    private static func streamable(_ path: String) -> Bool {
        DataLoader.readFormat(of: path) == .ndjson && DataLoader.header(ofFile: path) == nil
    }

    /// Whether a sub-query of `q` (at any depth, inside `$elemMatch` too)
    /// reads `className`: the file streamed would then also be loaded.
    private static func subqueries(_ q: Query, use className: String) -> Bool {
        guard let c = q.condition else { return false }
        return c.contains(entering: .everything) { $0.subquery?.className == className }
    }
}
