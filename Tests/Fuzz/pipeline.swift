// The whole pipeline: the language detected as the CLI does, parse, bind
// (time functions), the optimizer, every emitter (SQL included, prepared by
// SQLite itself), and evaluation over a small fixed store whose strings come
// from the input (so patterns from the input run) — as written and optimized.
import CQLEval
import CQLKit

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzPipeline(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let text = fuzzText(data, size)
    // A write: bound, every emitter, its SQL, and applied to the fixed store.
    if let statement = try? CQLParser.parseStatement(text), statement.isWrite {
        do {
            let bound = try Binder.bind(statement, parameters: [], now: DateValue(millisecondsSince1970: 1_700_000_000_000))
            emitWrite(bound, text)
            checkWriteSQL(bound, text)
            var store = fixedStore(text)
            var n = 0
            do { _ = try StatementExecutor.apply(bound, to: &store, now: DateValue(millisecondsSince1970: 1_700_000_000_000),
                                                 newObjectId: { n += 1; return "new\(n)" }) } catch { render(error, text) }
        } catch { render(error, text) }
        return 0
    }
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
