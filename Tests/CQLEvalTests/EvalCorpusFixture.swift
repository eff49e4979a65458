import CQLKit
import CorpusSupport
import Foundation

@testable import CQLEval

/// Finds and loads what the eval corpus cases refer to; shared by the corpus
/// driver and the translation differential test. Stores are loaded once per path.
final class EvalCorpusFixture {
    /// The `Corpus/` directory holding `eval/`.
    static let corpusRoot: URL? = {
        var url = URL(fileURLWithPath: #filePath)
        while url.path != "/" {
            url.deleteLastPathComponent()
            let candidate = url.appendingPathComponent("Corpus")
            if FileManager.default.fileExists(atPath: candidate.appendingPathComponent("eval").path) { return candidate }
        }
        return nil
    }()

    var stores: [String: DocumentStore] = [:]

    static func allCases(root: URL) throws -> [CorpusCase] {
        let dir = root.appendingPathComponent("eval")
        let names = try FileManager.default.contentsOfDirectory(atPath: dir.path).filter { $0.hasSuffix(".cases") }.sorted()
        var cases: [CorpusCase] = []
        for name in names {
            let text = try String(contentsOf: dir.appendingPathComponent(name), encoding: .utf8)
            cases += try Corpus.parse(text, file: "Corpus/eval/\(name)")
        }
        return cases
    }

    /// The case's query: `from:` names the language (default CQL), `class:`
    /// the class for Usergrid and bare where-JSON, `options: literal` Usergrid's
    /// exact string `=`.
    func parse(_ c: CorpusCase) throws(QueryError) -> Query {
        let text = c["query"] ?? ""
        let language = c["from"].flatMap { QueryLanguage(rawValue: $0.trimmingCharacters(in: .whitespaces)) } ?? .cql
        return try language.parse(text, className: c["class"] ?? "", literal: c["options"]?.contains("literal") ?? false)
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
