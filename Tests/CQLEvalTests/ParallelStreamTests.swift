import CQLKit
import XCTest

@testable import CQLEval

/// The parallel NDJSON scan (blocks of whole lines, pieces of ~16 KiB) must
/// give the one-thread scan's lines, count and first error, whatever the
/// block size: tiny blocks put line boundaries, long lines, a byte order mark
/// and CRLF endings at every position a block or part can start or end.
final class ParallelStreamTests: XCTestCase {
    private var dir: URL!

    override func setUpWithError() throws {
        dir = FileManager.default.temporaryDirectory.appendingPathComponent("parallel-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
    }

    override func tearDownWithError() throws {
        try? FileManager.default.removeItem(at: dir)
    }

    private func write(_ text: String) throws -> String {
        let url = dir.appendingPathComponent("T.ndjson")
        try text.write(to: url, atomically: true, encoding: .utf8)
        return url.path
    }

    private func plan(_ cql: String) throws -> QueryPlan {
        try QueryPlan(Binder.bind(CQLParser.parse(cql), parameters: []))
    }

    /// The lines the parallel scan writes, and its count.
    private func parallel(_ plan: QueryPlan, _ path: String, blockSize: Int, pieceSize: Int = 16 << 10, emits: Bool = true) throws -> ([String], Int) {
        let spool = Spool()
        let keys = plan.condition.rootKeys.map(JSONKeyFilter.init)
        let total = try plan.filterInParallel(stream: path, keys: keys, emits: emits, spool: spool, blockSize: blockSize, pieceSize: pieceSize)
        var lines: [String] = []
        try spool.replay { lines.append($0) }
        return (lines, total)
    }

    func testSameLinesAndCountAsLoadingEverything() throws {
        var text = "\u{FEFF}"
        for i in 0..<300 {
            let pad = String(repeating: "x", count: (i * 37) % 150)
            text += #"{"i":\#(i),"pad":"\#(pad)","t":\#(i % 3 == 0 ? "true" : "false")}"#
            text += i % 7 == 0 ? "\r\n" : (i % 11 == 0 ? "\n  \n" : "\n")
        }
        let path = try write(text)
        let plan = try plan("select * from T where t = true and i >= 10")
        var objects: [[String: Value]] = []
        try DataLoader.forEachObject(inNDJSON: path) { (o, _) throws(QueryError) in objects.append(o) }
        let expected = try plan.run(over: objects).objects.map { JSONWriter.string(.object($0)) }
        XCTAssertEqual(expected.count, 96)
        // Pieces of 16 KiB (the default: one per core here), of 300 bytes
        // (tens per block) and of a byte (a piece per line).
        for blockSize in [1, 16, 64, 200, 1000, 1 << 20] {
            for pieceSize in [16 << 10, 300, 1] {
                let (lines, total) = try parallel(plan, path, blockSize: blockSize, pieceSize: pieceSize)
                XCTAssertEqual(lines, expected, "block size \(blockSize), piece size \(pieceSize)")
                XCTAssertEqual(total, expected.count)
                XCTAssertEqual(try parallel(plan, path, blockSize: blockSize, pieceSize: pieceSize, emits: false).1, expected.count)
            }
        }
    }

    func testFirstErrorNamesItsLine() throws {
        var lines = (0..<200).map { #"{"i":\#($0)}"# }
        lines[150] = #"{"i":1"#
        lines[170] = "[1]"
        let path = try write(lines.joined(separator: "\n"))
        let plan = try plan("select * from T where i > 5")
        // The pieces number their lines from 1 and a failed one runs again
        // numbered from its place: every cut of the file names line 151.
        for blockSize in [8, 100, 1000, 1 << 20] {
            for pieceSize in [1, 50, 300, 16 << 10] {
                XCTAssertThrowsError(try parallel(plan, path, blockSize: blockSize, pieceSize: pieceSize)) { error in
                    let message = (error as? QueryError)?.message ?? ""
                    XCTAssertTrue(message.hasPrefix("\(path):151:"), "block size \(blockSize), piece size \(pieceSize): \(message)")
                }
            }
        }
    }
}
