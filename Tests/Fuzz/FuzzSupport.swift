// Shared by every libFuzzer harness in this folder. Not part of any SwiftPM
// target: scripts/fuzz compiles these files with the CQLKit and CQLEval
// sources (`swiftc -sanitize=fuzzer,address`), one binary per harness.
import CQLKit
@testable import CQLEval

/// The input as text. Invalid UTF-8 becomes U+FFFD, as it does when the
/// command line reads a file.
func fuzzText(_ data: UnsafePointer<UInt8>, _ size: Int) -> String {
    String(decoding: UnsafeBufferPointer(start: data, count: size), as: UTF8.self)
}

/// A broken invariant: libFuzzer records the input as a crash.
func fuzzFinding(_ message: String, _ input: String) -> Never {
    fatalError("fuzz finding: \(message)\n--- input ---\n\(input)\n---")
}

/// Renders an error with its source, as the CLI does (line, column, caret);
/// the caret rendering must never trap on a range the parser produced.
func render(_ error: QueryError, _ source: String) {
    let text = error.withSource(source).description
    if text.isEmpty { fuzzFinding("an error without a message", source) }
}

/// Every emitter over a query: where-JSON in each dialect (written as JSON
/// and read back), CQL text (parsed back) and Usergrid text (parsed back).
/// Emitters may refuse (`.unsupported`, `.limit`); what they write must be
/// readable by the matching front end.
func emitEverything(_ query: Query, _ source: String) {
    _ = ASTPrinter.describe(query)
    for dialect in [WhereJSONDialect.leancloud, .parse, .mongo] {
        do {
            let request = try WhereJSONEmitter.emit(query, dialect: dialect)
            let text = JSONWriter.string(request)
            do { _ = try JSONReader.parse(text) } catch { fuzzFinding("emitted where-JSON does not parse: \(error)\n\(text)", source) }
        } catch { render(error, source) }
    }
    do {
        let cql = try CQLFormatter.format(query)
        do { _ = try CQLParser.parse(cql) } catch { fuzzFinding("formatted CQL does not parse: \(error)\n\(cql)", source) }
    } catch { render(error, source) }
    for literal in [false, true] {
        do {
            let ql = try UsergridFormatter.format(query, literal: literal)
            _ = try? UsergridParser.parse(ql, options: .init(className: query.className, literal: literal))
        } catch { render(error, source) }
    }
}

/// A small fixed store whose strings include `text`, so patterns from the
/// input run over subjects from the input too.
func fixedStore(_ text: String) -> DocumentStore {
    let subject = String(text.prefix(256))
    let rows: [[String: Value]] = [
        ["objectId": "a1", "name": .string(subject), "score": 10, "tags": ["x", "y"],
         "loc": .geoPoint(GeoPoint(latitude: 10, longitude: 20)), "o": .object(["k": .string(subject), "n": 1.5])],
        ["objectId": "a2", "name": "dennis", "score": -3, "tags": [], "cheatMode": true, "o": .object(["k": "v"])],
        ["objectId": "a3", "name": .null, "score": 2.5, "tags": .array([.string(subject), 1, .null])],
        ["objectId": "a4"],
    ]
    var store = DocumentStore()
    for className in ["T", "GameScore", "_User", "Post"] { store.add(rows, to: className) }
    return store
}

/// Plans `query` over the fixed store and runs it (limits and regex errors
/// are fine; crashes and hangs are findings).
func evaluate(_ query: Query, _ source: String) {
    do {
        let plan = try QueryPlan(query, store: fixedStore(source), source: source)
        _ = try plan.run()
    } catch { render(error, source) }
}

/// Every emitter over a write: CQL text (parsed back into the same
/// statement) and the REST request in each dialect (read back).
func emitWrite(_ statement: Statement, _ source: String) {
    _ = ASTPrinter.describe(statement)
    do {
        let cql = try CQLFormatter.format(statement)
        do {
            let again = try CQLParser.parseStatement(cql)
            if again != statement { fuzzFinding("formatted CQL reads back as another statement:\n\(cql)", source) }
        } catch { fuzzFinding("formatted CQL does not parse: \(error)\n\(cql)", source) }
    } catch { render(error, source) }
    for dialect in [WhereJSONDialect.leancloud, .parse, .mongo] {
        do {
            let text = JSONWriter.string(try RESTEmitter.emit(statement, dialect: dialect))
            do { _ = try RESTReader.read(text) } catch { render(error, source) }
        } catch { render(error, source) }
    }
}
