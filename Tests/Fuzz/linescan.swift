// `cql eval`'s NDJSON fast path against the reader and the writer, on
// arbitrary lines: the structural scan (`JSONLineScan`, with UTF-8 text and
// typed values) and the byte copies (`writeSorted`, `JSONCanonicalCopy`).
// The input is tried as a line, as the body of a string member and as a
// member's value, so UTF-8 sequences and typed values meet the scan whole.
import CQLKit
@testable import CQLEval

nonisolated(unsafe) private let scan = JSONLineScan()
nonisolated(unsafe) private let inner = JSONLineScan()
nonisolated(unsafe) private let parser = JSONLineParser(decodingTypedValues: true)
private let filters = [JSONKeyFilter(["a", "v"]), JSONKeyFilter(["createdAt", "title", "tags", "meta", "location", "author"])]

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzLineScan(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let input = Array(UnsafeBufferPointer(start: data, count: size))
    check(input)
    check(Array(#"{"a":""#.utf8) + input + Array(#"","b":1}"#.utf8))
    check(Array(#"{"v":"#.utf8) + input + Array("}".utf8))
    return 0
}

private func check(_ bytes: [UInt8]) {
    bytes.withUnsafeBufferPointer { line in
        let text = String(decoding: line, as: UTF8.self)
        let read = try? JSONReader.parse(bytes: line, decodingTypedValues: true)
        // The byte copy, scan or not.
        var copied: [UInt8] = []
        if JSONCanonicalCopy.write(line, to: &copied) {
            guard let read else { return }  // it checks the form only of lines the reader accepts
            if copied != Array(JSONWriter.string(read).utf8) { fuzzFinding("JSONCanonicalCopy writes another line than JSONWriter", text) }
        }
        guard scan.scan(line) else { return }
        guard case .object(let whole)? = read else { fuzzFinding("the line scan accepts a line the reader rejects (or that is no object)", text) }
        for filter in filters {
            let expected = try? JSONReader.parse(bytes: line, decodingTypedValues: true, keepingOnly: filter)
            if scan.object(keepingOnly: filter, parser: parser).map(Value.object) != expected {
                fuzzFinding("the line scan keeps other members than the reader", text)
            }
        }
        // Each member as the condition builds it alone; an object member's
        // own members through the inner scan (two-step paths).
        for k in 0..<scan.count {
            let key = String(decoding: scan.key(k), as: UTF8.self)
            guard scan.lastMember(named: Array(key.utf8)) == k else { continue }
            if scan.builtValue(k, parser) != whole[key] { fuzzFinding("the line scan builds member \(key) otherwise", text) }
            guard scan.members[k].kind == .object, case .object(let members)? = whole[key], inner.scan(scan.value(k)) else { continue }
            for j in 0..<inner.count {
                let name = String(decoding: inner.key(j), as: UTF8.self)
                if inner.lastMember(named: Array(name.utf8)) == j && inner.builtValue(j, parser) != members[name] {
                    fuzzFinding("the inner scan builds \(key).\(name) otherwise", text)
                }
            }
        }
        var out: [UInt8] = [0x41]
        if scan.writeSorted(to: &out) {
            if out != [0x41] + Array(JSONWriter.string(.object(whole)).utf8) { fuzzFinding("the line scan writes another line than JSONWriter", text) }
        } else if out != [0x41] {
            fuzzFinding("a refused sorted write left bytes behind", text)
        }
    }
}
