// The JSON data reader: the generic reader (plain, located, typed values),
// the NDJSON loader over the input as a file (every key, and only a few keys),
// and the writer: whatever parsed must be written and read back equal.
import CQLKit
@testable import CQLEval
#if canImport(Glibc)
import Glibc
#endif

private let dataFile = "/tmp/cql-fuzz-json-\(getpid()).ndjson"

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzJSON(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let text = fuzzText(data, size)
    do {
        let value = try JSONReader.parse(text)
        let written = JSONWriter.string(value)
        let again: Value
        do { again = try JSONReader.parse(written) } catch { fuzzFinding("written JSON does not parse: \(error)\n\(written)", text) }
        if JSONWriter.string(again) != written { fuzzFinding("JSON write/read is not stable:\n\(written)", text) }
    } catch { render(error, text) }
    do { _ = try JSONReader.parseLocated(text) } catch { render(error, text) }
    let buffer = UnsafeBufferPointer(start: data, count: size)
    do { _ = try JSONReader.parse(bytes: buffer, decodingTypedValues: true).decodingTypedValues() } catch { render(error, text) }
    // NDJSON through the loader, as `cql eval --data` reads it.
    guard let f = fopen(dataFile, "wb") else { return 0 }
    fwrite(data, 1, size, f)
    fclose(f)
    var all = 0
    var some = 0
    do { try DataLoader.forEachObject(inNDJSON: dataFile) { _, _ in all += 1 } } catch { _ = error.description }
    do {
        try DataLoader.forEachObject(inNDJSON: dataFile, keepingOnly: JSONKeyFilter(["name", "score"])) { _, _, _ in some += 1 }
    } catch { _ = error.description }
    if all != some { fuzzFinding("the key-filtered NDJSON read saw \(some) objects, the full read \(all)", text) }
    return 0
}
