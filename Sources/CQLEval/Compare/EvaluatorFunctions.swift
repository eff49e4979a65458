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
        var compiled: [[UInt8]: PCRE2Regex] = [:]
    }
    private static let cache = RegexCache()

    /// Whether PCRE2 finds `pattern` (options from `imxs`) in `subject`, as
    /// the `regexp` predicate does. Patterns are compiled once and cached.
    public static func regexMatches(pattern: String, options: String, subject: String) throws(QueryError) -> Bool {
        // Keyed by bytes: String equality is canonical equivalence, and `é`
        // precomposed and decomposed are different patterns.
        let key = Array((options + "\u{0}" + pattern).utf8)
        cache.lock.lock()
        var regex = cache.compiled[key]
        cache.lock.unlock()
        if regex == nil {
            let r = try PCRE2Regex(pattern: pattern, options: options)
            cache.lock.lock()
            if cache.compiled.count > 1000 { cache.compiled.removeAll() }
            cache.compiled[key] = r
            cache.lock.unlock()
            regex = r
        }
        return try regex!.firstMatch(in: subject, scratch: RegexScratch())
    }

    /// What `object` sorts by for the order key `path` (the smallest element
    /// of an array ascending, the largest descending; an empty array before
    /// null; missing as null), encoded as text for ``compareSortValues(_:_:)``.
    public static func sortValue(of object: [String: Value], path: FieldPath, descending: Bool) -> String {
        let ordering = Ordering(keys: [Ordering.Key(path: Accessor(path), descending: descending)],
                                nearPath: nil, nearCenter: nil)
        switch ordering.entry(object, index: 0).values[0] {
        case .emptyArray: return "E"
        case .value(let v): return "V" + JSONWriter.string(v)
        }
    }

    /// -1, 0 or 1: the evaluator's order of two ``sortValue(of:path:descending:)`` texts.
    public static func compareSortValues(_ a: String, _ b: String) -> Int {
        Ordering.SortValue.compare(decode(a), decode(b))
    }

    private static func decode(_ s: String) -> Ordering.SortValue {
        guard s.hasPrefix("V"), let v = try? JSONReader.parse(String(s.dropFirst())).decodingTypedValues() else { return .emptyArray }
        return .value(v)
    }
}
