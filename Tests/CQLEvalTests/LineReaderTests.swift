import CQLKit
import XCTest

@testable import CQLEval

/// ``LineReader`` splits with memchr over 64 KiB chunks: lines that straddle
/// a chunk boundary, lines longer than a chunk, CRLF, a missing final
/// newline and empty lines must all come out exactly.
final class LineReaderTests: XCTestCase {
    private func lines(of text: String) throws -> [String] {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("lines-\(UUID().uuidString).txt")
        try Data(text.utf8).write(to: url)
        defer { try? FileManager.default.removeItem(at: url) }
        var out: [String] = []
        var numbers: [Int] = []
        try LineReader(path: url.path).forEachLine { (line, number) throws(QueryError) in
            out.append(String(decoding: line, as: UTF8.self))
            numbers.append(number)
        }
        XCTAssertEqual(numbers, Array(1..<(out.count + 1)))
        return out
    }

    func testLinesAcrossChunkBoundaries() throws {
        let chunk = 64 * 1024
        // Lengths chosen so that newlines fall just before, on and after each boundary.
        let expected = [String(repeating: "a", count: chunk - 2), "", "b", String(repeating: "c", count: 3 * chunk + 5),
                        "d\r", "", String(repeating: "e", count: chunk - 1), "last"]
        let got = try lines(of: expected.joined(separator: "\n"))
        XCTAssertEqual(got.count, expected.count)
        // CR before LF is dropped; nothing else changes.
        XCTAssertEqual(got, expected.map { $0.hasSuffix("\r") ? String($0.dropLast()) : $0 })
    }

    func testTrailingNewlineAndEmptyFile() throws {
        XCTAssertEqual(try lines(of: "x\ny\n"), ["x", "y"])
        XCTAssertEqual(try lines(of: ""), [])
        XCTAssertEqual(try lines(of: "\n\n"), ["", ""])
    }
}
