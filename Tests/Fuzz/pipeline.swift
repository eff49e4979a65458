// The whole pipeline: the language detected as the CLI does, parse, bind
// (time functions), the optimizer, every emitter (SQL included, prepared by
// SQLite itself), and evaluation over a small fixed store whose strings come
// from the input (so patterns from the input run) — as written and optimized.
import CQLKit

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzPipeline(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let text = fuzzText(data, size)
    let language = QueryLanguage.detect(text)
    do {
        let query = try language.parse(text, className: "T")
        let bound = try Binder.bind(query, parameters: [], now: DateValue(millisecondsSince1970: 1_700_000_000_000))
        emitEverything(bound, text)
        checkSQL(bound, text)
        evaluate(bound, text)
        do {
            let optimized = try Optimizer().optimize(bound).query
            emitEverything(optimized, text)
            checkSQL(optimized, text)
            evaluate(optimized, text)
        } catch { render(error, text) }
    } catch { render(error, text) }
    return 0
}
