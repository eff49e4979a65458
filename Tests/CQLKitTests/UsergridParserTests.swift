import XCTest

@testable import CQLKit

final class UsergridParserTests: XCTestCase {
    func testPlaceholder() throws {
        XCTAssertNotNil(try UsergridParser.parse("a = 1").condition)
    }
}
