import XCTest

@testable import CQLEval

/// The line loop `eval` over NDJSON and `translate --lines` share: lines end
/// at `\n`, lose a `\r` before it, a last line needs no `\n`, and an error
/// from the body stops the loop.
final class LineSplitterTests: XCTestCase {
    private func lines(_ text: [UInt8]) -> [String] {
        var out: [String] = []
        text.withUnsafeBufferPointer { LineSplitter.forEachLine($0) { out.append(String(decoding: $0, as: UTF8.self)) } }
        return out
    }

    func testLineEndings() {
        XCTAssertEqual(lines(Array("a\r\nbb\n\nc".utf8)), ["a", "bb", "", "c"])
        XCTAssertEqual(lines(Array("a\n".utf8)), ["a"])
        XCTAssertEqual(lines(Array("\n\n".utf8)), ["", ""])
        XCTAssertEqual(lines(Array("\r\n".utf8)), [""])
        // Only the `\r` just before `\n` goes; others are the line's.
        XCTAssertEqual(lines(Array("a\rb\r\r\n\r".utf8)), ["a\rb\r", ""])
        XCTAssertEqual(lines([]), [])
    }

    func testRandomBuffersSplitLikeSplittingTheText() {
        var rng = SystemRandomNumberGenerator()
        let alphabet: [UInt8] = [0x0A, 0x0D, 0x61, 0x62, 0x20]
        for _ in 0..<2_000 {
            let text = (0..<Int.random(in: 0...40, using: &rng)).map { _ in alphabet.randomElement(using: &rng)! }
            var expected = text.split(separator: 0x0A, omittingEmptySubsequences: false).map { line -> String in
                String(decoding: line.last == 0x0D ? line.dropLast() : line, as: UTF8.self)
            }
            if text.last == 0x0A || text.isEmpty { expected.removeLast() }
            XCTAssertEqual(lines(text), expected, "\(text)")
        }
    }

    func testAnErrorStopsTheLoop() {
        struct Stop: Error {}
        var seen = 0
        let text = Array("a\nb\nc\n".utf8)
        XCTAssertThrowsError(try text.withUnsafeBufferPointer { (buffer) throws(Stop) in
            try LineSplitter.forEachLine(buffer) { (line) throws(Stop) in
                seen += 1
                if line.first == UInt8(ascii: "b") { throw Stop() }
            }
        })
        XCTAssertEqual(seen, 2)
    }
}
