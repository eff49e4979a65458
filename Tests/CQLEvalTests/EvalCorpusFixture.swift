import CQLKit
import CorpusSupport
import Foundation

@testable import CQLEval

/// Finds and loads what the eval corpus cases refer to; shared by the corpus
/// driver and the translation differential test. Stores are loaded once per path.
final class EvalCorpusFixture {
    /// The `Corpus/` directory.
    static let corpusRoot: URL? = Corpus.root

    var stores: [String: DocumentStore] = [:]

    static func allCases(root: URL) throws -> [CorpusCase] { try Corpus.cases(in: "eval") }

    /// The case's query: `from:` names the language (default CQL), `class:`
    /// the class for Usergrid, NSPredicate and bare where-JSON, `options: literal`
    /// Usergrid's exact string `=`, `args:` / `vars:` NSPredicate's arguments.
    func parse(_ c: CorpusCase) throws(QueryError) -> Query {
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

    func parseParams(_ text: String) throws(QueryError) -> [Value] {
        guard case .array(let items) = try JSONReader.parse(text) else {
            throw QueryError(.binding, "params must be a JSON array")
        }
        return items
    }

    /// Inline `docs` (one object per line, in the query's class), or the
    /// `data` path (loaded once per path).
    func store(for c: CorpusCase, className: String, root: URL) throws(QueryError) -> DocumentStore {
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
        let store = try DocumentStore.load(path: full, className: DataLoader.isDirectory(full) ? nil : className)
        stores[path] = store
        return store
    }
}
