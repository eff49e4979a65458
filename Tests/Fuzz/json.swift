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
    checkLineScan(buffer, text)
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

nonisolated(unsafe) private let lineScan = JSONLineScan()
nonisolated(unsafe) private let lineParser = JSONLineParser(decodingTypedValues: true)
private let scanFilter = JSONKeyFilter(["name", "score", "a"])

/// `cql eval`'s structural line scan: a line it accepts, the reader accepts
/// too, with the same kept members, and its sorted write is JSONWriter's.
private func checkLineScan(_ line: UnsafeBufferPointer<UInt8>, _ text: String) {
    guard lineScan.scan(line) else { return }
    guard case .object? = try? JSONReader.parse(bytes: line, decodingTypedValues: true) else {
        fuzzFinding("the line scan accepts a line the reader rejects (or that is no object)", text)
    }
    let expected = try? JSONReader.parse(bytes: line, decodingTypedValues: true, keepingOnly: scanFilter)
    if lineScan.object(keepingOnly: scanFilter, parser: lineParser).map(Value.object) != expected {
        fuzzFinding("the line scan keeps other members than the reader", text)
    }
    var out: [UInt8] = []
    if lineScan.writeSorted(to: &out) {
        let whole = (try? JSONReader.parse(bytes: line, decodingTypedValues: true)) ?? .null
        if String(decoding: out, as: UTF8.self) != JSONWriter.string(whole) { fuzzFinding("the line scan writes another line than JSONWriter", text) }
    }
}
