import CQLKit
import Foundation

extension EvaluatorFunctions {
    /// The last `$select` test built, keyed by its paths and the subquery's
    /// objects: SQLite calls ``selectMatches(object:paths:documents:)`` once
    /// per row with the same (uncorrelated) subquery text.
    private final class SelectCache: @unchecked Sendable {
        let lock = NSLock()
        var key: (String, String)?
        var node: Node?
    }
    private static let selectCache = SelectCache()

    /// Whether `object` matches `select path in (select key from ...)` when
    /// the subquery yields `documents` (a JSON array of the objects' JSON
    /// texts), with the evaluator's own planning of `$select`: the values
    /// `key` reaches in each object, matched by `path` as `in` matches
    /// (fan-out over arrays, null matching missing). `paths` is
    /// `[[path steps], [key steps]]`. What SQLite's `cql_select(doc, paths,
    /// documents)` calls.
    ///
    /// ```swift
    /// try EvaluatorFunctions.selectMatches(object: ["team": "red"], paths: #"[["team"],["name"]]"#,
    ///                                      documents: #"["{\"name\":\"red\"}"]"#)   // true
    /// ```
    public static func selectMatches(object: [String: Value], paths: String, documents: String) throws(QueryError) -> Bool {
        selectCache.lock.lock()
        var node = selectCache.key.map { $0 == (paths, documents) } == true ? selectCache.node : nil
        selectCache.lock.unlock()
        if node == nil {
            guard case .array(let p) = try JSONReader.parse(paths), p.count == 2,
                case .array(let pathSteps) = p[0], case .array(let keySteps) = p[1],
                case .array(let texts) = try JSONReader.parse(documents, maxDepth: 2)
            else { throw QueryError(.invalidValue, "cql_select: malformed arguments") }
            let keyPath = Accessor(FieldPath(keySteps.compactMap(\.stringValue)))
            var values: [Value] = []
            for case .string(let text) in texts {
                let o = try DataFiles.object(json: text)
                _ = keyPath.visit(.object(o), present: { values.append($0); return false }, missing: { false })
            }
            let n: Node = values.isEmpty ? .constant(false) : .member(Accessor(FieldPath(pathSteps.compactMap(\.stringValue))), MemberSet(values))
            selectCache.lock.lock()
            selectCache.key = (paths, documents)
            selectCache.node = n
            selectCache.lock.unlock()
            node = n
        }
        let context = EvalContext()
        let r = node!.matches(.object(object), context)
        if let failure = context.failure { throw failure }
        return r
    }
}
