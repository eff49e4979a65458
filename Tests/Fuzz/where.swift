// The where-JSON front end (a bare `where` object or a whole request), then
// every emitter over what was read.
import CQLKit

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzWhereJSON(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let text = fuzzText(data, size)
    do {
        let query = try WhereJSONReader.read(text, className: "T")
        emitEverything(query, text)
    } catch { render(error, text) }
    return 0
}
