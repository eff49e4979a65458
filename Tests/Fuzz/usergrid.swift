// The Usergrid ql front end (plain and literal string matching), then every
// emitter over what parsed.
import CQLKit

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzUsergrid(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let text = fuzzText(data, size)
    for literal in [false, true] {
        do {
            let query = try UsergridParser.parse(text, options: .init(className: "pets", literal: literal, limit: 10))
            emitEverything(query, text)
        } catch { render(error, text) }
    }
    return 0
}
