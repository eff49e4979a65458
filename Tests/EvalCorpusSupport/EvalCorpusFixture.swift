import CQLEval
import CQLKit
import CorpusSupport
import Foundation

/// Finds and loads what the eval corpus cases refer to, and checks a case's
/// answer; shared by the corpus driver, the translation differential test and
/// `cql-regex-check` (the build without trait `PCRE2`). Stores are loaded
/// once per path.
public final class EvalCorpusFixture {
    /// The `Corpus/` directory.
    public static let corpusRoot: URL? = Corpus.root

    var stores: [String: DocumentStore] = [:]

    public init() {}

    public static func allCases(root: URL) throws -> [CorpusCase] { try Corpus.cases(in: "eval") }

    /// Runs case `c` (as read, or ``Optimizer``-optimized) with `limits` and
    /// returns what is wrong with its answer, or `nil` when it is the
    /// expected one (`ids` in order, `results`, `count`, or an `error`
    /// containing the expected text). On the Swift regex engine, a case with
    /// `refused-without-pcre2: CONSTRUCT` expects that engine's refusal of
    /// CONSTRUCT instead.
    public func failure(of c: CorpusCase, root: URL, optimized: Bool, limits: EvaluationLimits = .default) -> String? {
        if limits.regexEngine == .swift, let construct = c["refused-without-pcre2"] {
            var refusing = c
            refusing.fields["error"] = "the Swift regex engine does not run \(construct)"
            refusing.fields["ids"] = nil
            refusing.fields["count"] = nil
            refusing.fields["results"] = nil
            refusing.fields["refused-without-pcre2"] = nil
            return failure(of: refusing, root: root, optimized: optimized, limits: limits)
        }
        guard let text = c["query"] else { return "no query" }
        guard c["ids"] != nil || c["count"] != nil || c["error"] != nil || c["results"] != nil else {
            return "needs ids, results, count or error"
        }
        let result: QueryResult
        do throws(QueryError) {
            let parameters = try c["params"].map(parseParams) ?? []
            var bound = try Binder.bind(try parse(c), parameters: parameters,
                                        now: DateValue(millisecondsSince1970: 1_700_000_000_000))
            if optimized { bound = try Optimizer.optimize(bound) }
            let store = try store(for: c, className: bound.className, root: root)
            result = try QueryPlan(bound, store: store, source: text, limits: limits).run()
        } catch {
            if let expected = c["error"], error.message.contains(expected) { return nil }
            return "\(c["error"].map { "expected error containing '\($0)', got" } ?? "unexpected error:") \(error.rendered())"
        }
        if let expected = c["error"] {
            return "expected error containing '\(expected)', got \(result.objects.count) results"
        }
        var problems: [String] = []
        if let expected = c["ids"] {
            let want = expected.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
            let got = result.objects.map { $0["objectId"]?.stringValue ?? JSONWriter.string(.object($0)) }
            if got != want {
                problems.append("ids\n  want: \(want.joined(separator: ", "))\n  got:  \(got.joined(separator: ", "))")
            }
        }
        if let expected = c["results"] {
            // Whole objects, one compact sorted-key JSON line each, in order.
            let want = expected.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
            let got = result.objects.map { JSONWriter.string(.object($0)) }
            if got != want {
                problems.append("results\n  want: \(want.joined(separator: "\n        "))\n  got:  \(got.joined(separator: "\n        "))")
            }
        }
        if let expected = c["count"], Int(expected.trimmingCharacters(in: .whitespaces)) != result.count {
            problems.append("count want \(expected), got \(result.count.map(String.init) ?? "none")")
        }
        return problems.isEmpty ? nil : problems.joined(separator: "\n")
    }

    /// The case's query: `from:` names the language (default CQL), `class:`
    /// the class for Usergrid, NSPredicate and bare where-JSON, `options: literal`
    /// Usergrid's exact string `=`, `args:` / `vars:` NSPredicate's arguments.
    public func parse(_ c: CorpusCase) throws(QueryError) -> Query {
        let text = c["query"] ?? ""
        let language = c["from"].flatMap { QueryLanguage(rawValue: $0.trimmingCharacters(in: .whitespaces)) } ?? .cql
        var arguments: [Value] = []
        if let a = c["args"] {
            guard case .array(let items) = try JSONReader.parse(a) else { throw QueryError(.binding, "args must be a JSON array") }
            arguments = items
        }
        var variables: [String: Value] = [:]
        if let v = c["vars"] {
            guard case .object(let o) = try JSONReader.parse(v) else { throw QueryError(.binding, "vars must be a JSON object") }
            variables = o
        }
        return try language.parse(text, className: c["class"] ?? "", literal: c["options"]?.contains("literal") ?? false,
                                  arguments: arguments, variables: variables)
    }

    public func parseParams(_ text: String) throws(QueryError) -> [Value] {
        guard case .array(let items) = try JSONReader.parse(text) else {
            throw QueryError(.binding, "params must be a JSON array")
        }
        return items
    }

    /// Inline `docs` (one object per line, in the query's class), or the
    /// `data` path (loaded once per path).
    public func store(for c: CorpusCase, className: String, root: URL) throws(QueryError) -> DocumentStore {
        if let docs = c["docs"] {
            var objects: [[String: Value]] = []
            for line in docs.split(separator: "\n") where !line.trimmingCharacters(in: .whitespaces).isEmpty {
                guard case .object(let o) = try JSONReader.parse(String(line)).decodingTypedValues() else {
                    throw QueryError(.data, "docs: expected one JSON object per line")
                }
                objects.append(o)
            }
            return DocumentStore([className: objects])
        }
        var path = c["data"]?.trimmingCharacters(in: .whitespaces) ?? "data"
        if path.hasPrefix("Corpus/") { path.removeFirst("Corpus/".count) }
        if let cached = stores[path] { return cached }
        let full = root.appendingPathComponent(path).path
        let store = try DocumentStore.load(path: full, className: Self.isDirectory(full) ? nil : className)
        stores[path] = store
        return store
    }

    private static func isDirectory(_ path: String) -> Bool {
        var directory: ObjCBool = false
        return FileManager.default.fileExists(atPath: path, isDirectory: &directory) && directory.boolValue
    }
}
