// The CQL front end: lexer and parser, then every emitter over what parsed;
// and a parser reused from input to input (as `translate --lines` keeps one
// per piece) must read each input exactly as a fresh one does.
import CQLKit

/// The harness runs one input at a time, on one thread.
nonisolated(unsafe) private let reusedParser = ReusableCQLParser()

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzCQL(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let text = fuzzText(data, size)
    do {
        let query = try CQLParser.parse(text)
        emitEverything(query, text)
    } catch { render(error, text) }
    // The same text as a statement: a write is formatted and emitted as REST.
    let fresh: Result<Statement, QueryError>
    do throws(QueryError) {
        let statement = try CQLParser.parseStatement(text)
        fresh = .success(statement)
        if statement.isWrite { emitWrite(statement, text) }
    } catch {
        fresh = .failure(error)
        render(error, text)
    }
    let reused: Result<Statement, QueryError>
    do throws(QueryError) { reused = .success(try reusedParser.parseStatement(text)) } catch { reused = .failure(error) }
    switch (fresh, reused) {
    case (.success(let a), .success(let b)) where a == b && a.range == b.range:
        break
    case (.failure(let a), .failure(let b)) where a.kind == b.kind && a.message == b.message && a.range == b.range && a.source == b.source:
        break
    default:
        func shown(_ r: Result<Statement, QueryError>) -> String {
            switch r {
            case .success(let s): return ASTPrinter.describe(s) + " at \(s.range.map { "\($0)" } ?? "-")"
            case .failure(let e): return e.description
            }
        }
        fatalError("the reused parser read \(text.debugDescription) as \(shown(reused)), a fresh one as \(shown(fresh))")
    }
    return 0
}
