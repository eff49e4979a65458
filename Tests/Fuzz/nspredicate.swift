// The NSPredicate front end: a format string (line 1) with the JSON array of
// its `%@ %K %d` arguments (line 2, optional), then every emitter over what
// parsed, the NSPredicate formatter among them.
import CQLKit

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzNSPredicate(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let text = fuzzText(data, size)
    let parts = text.split(separator: "\n", maxSplits: 1, omittingEmptySubsequences: false)
    let format = String(parts[0])
    var arguments: [Value] = []
    if parts.count > 1, case .array(let items)? = try? JSONReader.parse(String(parts[1])) { arguments = items }
    do {
        let query = try NSPredicateParser.parse(format: format, argumentArray: arguments, variables: ["X": 1], className: "T")
        emitEverything(query, format)
        for conditionOnly in [false, true] {
            do { _ = try NSPredicateFormatter.format(query, conditionOnly: conditionOnly) } catch { render(error, format) }
        }
    } catch { render(error, format) }
    return 0
}
