import CQLKit
import Foundation

/// The evaluator's own matching and ordering as plain functions, for a
/// database to call (CQLSQL registers them in SQLite as `cql_regexp`,
/// `cql_sort_value` and the collation `cql_order`), so that the SQL answers
/// exactly as the evaluator does.
///
/// ```swift
/// try EvaluatorFunctions.regexMatches(pattern: "^den", options: "i", subject: "Dennis")   // true
/// let a = EvaluatorFunctions.sortValue(of: ["score": [3, 9]], path: "score", descending: false)
/// let b = EvaluatorFunctions.sortValue(of: ["score": "x"], path: "score", descending: false)
/// EvaluatorFunctions.compareSortValues(a, b)   // -1: numbers before strings
/// ```
public enum EvaluatorFunctions {
    private final class RegexCache: @unchecked Sendable {
        let lock = NSLock()
        var compiled: [[UInt8]: CompiledRegex] = [:]
    }
    private static let cache = RegexCache()

    /// Whether the build's regex engine (``RegexEngineKind/standard``) finds
    /// `pattern` (options from `imxs`) in `subject`, as
    /// the `regexp` predicate does. Patterns are compiled once and cached.
    public static func regexMatches(pattern: String, options: String, subject: String) throws(QueryError) -> Bool {
        // Keyed by bytes: String equality is canonical equivalence, and `é`
        // precomposed and decomposed are different patterns.
        let key = Array((options + "\u{0}" + pattern).utf8)
        cache.lock.lock()
        var regex = cache.compiled[key]
        cache.lock.unlock()
        if regex == nil {
            let r = try CompiledRegex(pattern: pattern, options: options)
            cache.lock.lock()
            if cache.compiled.count > 1000 { cache.compiled.removeAll() }
            cache.compiled[key] = r
            cache.lock.unlock()
            regex = r
        }
        return try regex!.firstMatch(in: subject, scratch: RegexScratch())
    }

    /// Whether `object` matches the condition of a MongoDB where-JSON text
    /// (`{"score":{"$gt":80}}`), with the evaluator's own semantics: what
    /// SQLite's `cql_match(doc, where)` answers (``DocumentMatcher``, which
    /// reads the document's text instead). Plans are built once per text.
    public static func matches(whereJSON: String, object: [String: Value]) throws(QueryError) -> Bool {
        try DocumentMatcher.compiled(whereJSON: whereJSON).plan.matches(object)
    }

    /// What `object` sorts by for the order key `path` (the smallest element
    /// of an array ascending, the largest descending; an empty array before
    /// null; missing as null), encoded as text for ``compareSortValues(_:_:)``.
    public static func sortValue(of object: [String: Value], path: FieldPath, descending: Bool) -> String {
        let ordering = Ordering(keys: [Ordering.Key(path: Accessor(path), descending: descending)],
                                nearPath: nil, nearCenter: nil)
        // One key cannot meet the "parallel arrays" error of compound keys.
        guard let entry = try? ordering.entry(object, index: 0) else { return "E" }
        switch entry.values[0] {
        case .emptyArray: return "E"
        case .value(let v): return "V" + JSONWriter.string(v)
        }
    }

    /// What `object` sorts by for several order keys (`(path, descending)`
    /// pairs), under MongoDB's compound sort-key rule, encoded as text for
    /// ``compareSortKeys(_:_:)``.
    ///
    /// - Throws: the evaluator's "parallel arrays" error when two keys reach
    ///   two different arrays of `object`.
    public static func sortKey(of object: [String: Value], keys: [(path: FieldPath, descending: Bool)]) throws(QueryError) -> String {
        let ordering = Ordering(keys: keys.map { Ordering.Key(path: Accessor($0.path), descending: $0.descending) },
                                nearPath: nil, nearCenter: nil)
        let entry = try ordering.entry(object, index: 0)
        var items: [Value] = [.array(keys.map { .bool($0.descending) })]
        for v in entry.values {
            switch v {
            case .emptyArray: items.append(.array([]))
            case .value(let x): items.append(.array([x]))
            }
        }
        return JSONWriter.string(.array(items))
    }

    /// -1, 0 or 1: the evaluator's order of two ``sortKey(of:keys:)`` texts.
    public static func compareSortKeys(_ a: String, _ b: String) -> Int {
        let x = decodeKey(a), y = decodeKey(b)
        guard x.values.count == y.values.count, x.descending.count == x.values.count else { return 0 }
        return SortKeys.compare(x.values, y.values, x.descending)
    }

    private static func decodeKey(_ s: String) -> (descending: [Bool], values: [SortValue]) {
        guard case .array(let items)? = try? JSONReader.parse(s), case .array(let dirs)? = items.first else { return ([], []) }
        var values: [SortValue] = []
        for item in items.dropFirst() {
            guard case .array(let one) = item else { return ([], []) }
            if let v = one.first {
                guard let typed = try? v.decodingTypedValues() else { return ([], []) }
                values.append(.value(typed))
            } else {
                values.append(.emptyArray)
            }
        }
        return (dirs.map { $0 == .bool(true) }, values)
    }

    /// -1, 0 or 1: the evaluator's order of two ``sortValue(of:path:descending:)`` texts.
    public static func compareSortValues(_ a: String, _ b: String) -> Int {
        SortValue.compare(decode(a), decode(b))
    }

    private static func decode(_ s: String) -> SortValue {
        guard s.hasPrefix("V"), let v = try? JSONReader.parse(String(s.dropFirst())).decodingTypedValues() else { return .emptyArray }
        return .value(v)
    }
}
