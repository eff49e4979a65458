import XCTest
@testable import CQLKit

final class DiagnosticsTests: XCTestCase {
    func testCaretCountsUnicodeScalarsAndKeepsTabs() {
        let source = "select *\n\tfrom T where nom = 'é' and x >> 1"
        let offset = Array(source.utf8).firstIndex(of: UInt8(ascii: ">"))! + 1
        let e = QueryError(.syntax, "boom", range: SourceRange(offset, offset + 1), source: source)
        XCTAssertEqual(e.rendered(), "<input>:2:32: boom\n\tfrom T where nom = 'é' and x >> 1\n\t" + String(repeating: " ", count: 30) + "^")
    }

    func testLongLinesAreCutAroundTheCaret() {
        let source = String(repeating: "a", count: 1000) + "XYZ" + String(repeating: "b", count: 1000)
        let e = QueryError(.syntax, "here", range: SourceRange(1000, 1003), source: source)
        let lines = e.rendered().split(separator: "\n").map(String.init)
        XCTAssertEqual(lines[0], "<input>:1:1001: here")
        XCTAssertTrue(lines[1].hasPrefix("...") && lines[1].hasSuffix("..."), lines[1])
        XCTAssertLessThanOrEqual(lines[1].count, 166)
        // The caret stands under the X of XYZ, three wide.
        let caretColumn = lines[2].firstIndex(of: "^")!.utf16Offset(in: lines[2])
        XCTAssertEqual(Array(lines[1])[caretColumn...].prefix(3), ["X", "Y", "Z"])
        XCTAssertTrue(lines[2].hasSuffix("^~~"))
    }

    func testErrorWithoutPosition() {
        XCTAssertEqual(QueryError(.binding, "no").rendered(inputName: "<params>"), "<params>: no")
        XCTAssertEqual(QueryError(.invalidValue, "bad", path: "where.a").shortDescription, "where.a: bad")
    }
}
