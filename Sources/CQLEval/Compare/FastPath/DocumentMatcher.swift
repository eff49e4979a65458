import CQLKit
import Foundation

/// The evaluator's test of one condition (MongoDB where-JSON) on documents
/// given as JSON text, reading each document once: what SQLite's
/// `cql_match(doc, where)` runs for every row.
///
/// Why: SQL that tests each leaf with `json_type` + `json_extract` makes
/// SQLite (no parse cache) re-parse the document text twice per leaf. Here
/// the structural scan (CQLKit's `JSONLineScan`) checks the text once and the
/// condition builds only the members it reads, as `cql eval` does on an
/// NDJSON line (`ScanCondition`); a document the scan leaves (a rare
/// form, or an error) is read by the reader, which gives the object or the
/// error. So the answer, and any error, is `QueryPlan.matches` on the
/// document read by ``DataFiles/object(json:)``.
///
/// Not thread-safe: one matcher holds its scratch scanners, so one thread
/// (one running statement) uses it at a time. The compiled plan is shared
/// (`compiled(whereJSON:)`).
///
/// ```swift
/// let m = try DocumentMatcher(whereJSON: #"{"priority":{"$gte":4},"done":false}"#)
/// try m.matches(Array(#"{"priority":5,"done":false}"#.utf8))   // true
/// ```
public final class DocumentMatcher {
    /// What compiling a where-JSON text gives: immutable, shared by the
    /// matchers of every thread.
    final class Compiled: Sendable {
        let plan: QueryPlan
        let condition: ScanCondition
        /// The root keys the condition reads (`nil`: it needs the whole
        /// object, so the scan is not used).
        let keys: JSONKeyFilter?

        init(whereJSON: String) throws(QueryError) {
            let query = try WhereJSONReader.read(
                try JSONReader.parse("{\"where\":" + whereJSON + "}").decodingTypedValues(), className: "T")
            plan = try QueryPlan(query, store: DocumentStore())
            condition = ScanCondition(plan.condition)
            keys = plan.condition.rootKeys.map(JSONKeyFilter.init)
        }
    }

    private final class Cache: @unchecked Sendable {
        let lock = NSLock()
        var compiled: [String: Compiled] = [:]
    }
    private static let cache = Cache()

    let compiled: Compiled
    private let parser = JSONLineParser(decodingTypedValues: true)
    private let scan = JSONLineScan()
    private let inner = JSONLineScan()
    private let context = EvalContext()

    /// A matcher for `whereJSON`; its plan is compiled once per text and
    /// shared (a cache of at most 1000 texts).
    public init(whereJSON: String) throws(QueryError) {
        compiled = try DocumentMatcher.compiled(whereJSON: whereJSON)
    }

    static func compiled(whereJSON: String) throws(QueryError) -> Compiled {
        cache.lock.lock()
        let found = cache.compiled[whereJSON]
        cache.lock.unlock()
        if let found { return found }
        let c = try Compiled(whereJSON: whereJSON)
        cache.lock.lock()
        if cache.compiled.count > 1000 { cache.compiled.removeAll() }
        cache.compiled[whereJSON] = c
        cache.lock.unlock()
        return c
    }

    /// Whether the document (JSON text of an object) matches.
    /// - Throws: `.data` ("<row>:line:column: ...") when the text is not a
    ///   JSON object; `.pattern` when a regex exceeds its match limit.
    public func matches(_ document: UnsafeBufferPointer<UInt8>) throws(QueryError) -> Bool {
        let plan = compiled.plan
        // A failure thrown for an earlier document is not this one's.
        context.failure = nil
        if let keys = compiled.keys, scan.scan(document),
            let r = try plan.matches(scanned: scan, compiled.condition, keys: keys, parser: parser, inner: inner, context: context)
        {
            return r
        }
        // The reader's object (or error), exactly as DataFiles.object(json:).
        let object = try DataLoader.object(line: document, number: 1, file: "<row>", parser: parser, keepingOnly: compiled.keys)
        return try plan.matches(object, context)
    }

    /// ``matches(_:)-(UnsafeBufferPointer<UInt8>)`` on the bytes of an array.
    public func matches(_ document: [UInt8]) throws(QueryError) -> Bool {
        var result: Result<Bool, QueryError> = .success(false)
        document.withUnsafeBufferPointer { b in result = Result { () throws(QueryError) in try matches(b) } }
        return try result.get()
    }
}
