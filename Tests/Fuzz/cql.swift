// The CQL front end: lexer and parser, then every emitter over what parsed.
import CQLKit

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzCQL(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let text = fuzzText(data, size)
    do {
        let query = try CQLParser.parse(text)
        emitEverything(query, text)
    } catch { render(error, text) }
    // The same text as a statement: a write is formatted and emitted as REST.
    do {
        let statement = try CQLParser.parseStatement(text)
        if statement.isWrite { emitWrite(statement, text) }
    } catch { render(error, text) }
    return 0
}
