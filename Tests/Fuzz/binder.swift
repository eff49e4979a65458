// The binder: a CQL query (first line) with placeholders bound to the JSON
// array on the second line (typed REST values decoded), time functions
// resolved; then every emitter and the evaluator over the bound query.
import CQLKit

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzBinder(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let text = fuzzText(data, size)
    let parts = text.split(separator: "\n", maxSplits: 1, omittingEmptySubsequences: false)
    let queryText = String(parts[0])
    var parameters: [Value] = []
    if parts.count > 1, case .array(let items)? = try? JSONReader.parse(String(parts[1])).decodingTypedValues() {
        parameters = items
    }
    guard let query = try? CQLParser.parse(queryText) else { return 0 }
    do {
        let bound = try Binder.bind(query, parameters: parameters, now: DateValue(millisecondsSince1970: 1_700_000_000_000))
        emitEverything(bound, queryText)
        evaluate(bound, queryText)
    } catch { render(error, queryText) }
    return 0
}
