import XCTest

@testable import CQLKit

/// The doc-comment examples of the NSPredicate API, verbatim.
final class NSPredicateAPITests: XCTestCase {
    func testParseFormatArgumentArray() throws {
        let q = try NSPredicateParser.parse(
            format: "playerName = %@ AND playerAge > %d",
            argumentArray: ["Dan Stemkosk", 18], className: "GameScore")
        XCTAssertEqual(JSONWriter.string(try WhereJSONEmitter.emit(q, dialect: .parse)),
                       #"{"className":"GameScore","where":{"playerAge":{"$gt":18},"playerName":"Dan Stemkosk"}}"#)
    }

    func testFormatterExample() throws {
        let q = try CQLParser.parse("select * from GameScore where score > 80 and name in ('a', 'b')")
        XCTAssertEqual(try NSPredicateFormatter.format(q), #"score > 80 AND name IN {"a", "b"}"#)
    }

    /// SQL LIKE becomes NSPredicate's LIKE (`%` `*`, `_` `?`, `*` `?` `\\` escaped); a class is a named error.
    func testSQLLikeToNSPredicate() throws {
        let q = try CQLParser.parse(#"select * from T where a like 'd_n%' and b like 'x*?\\'"#)
        XCTAssertEqual(try NSPredicateFormatter.format(q), #"a LIKE "d?n*" AND b LIKE "x\\*\\?\\\\""#)
        let c = try CQLParser.parse("select * from T where a like '[ab]%'")
        XCTAssertThrowsError(try NSPredicateFormatter.format(c)) { XCTAssertEqual(($0 as? QueryError)?.kind, .unsupported) }
    }

    func testLexerExamples() throws {
        XCTAssertEqual(try NSPredicateLexer.tokenize("name ==[c] %@ && age > 3").map(\.kind),
                       [.identifier, .equal, .leftBracket, .identifier, .rightBracket, .placeholder, .and, .identifier, .greater, .integer, .end])
        XCTAssertEqual(try NSPredicateLexer.tokenize("tags.@count == 2 OR name BEGINSWITH[cd] 'é'").map(\.kind),
                       [.identifier, .dot, .collectionOperator, .equal, .integer, .or,
                        .identifier, .beginsWith, .leftBracket, .identifier, .rightBracket, .string, .end])
    }

    func testICURegexExamples() throws {
        let r = SourceRange(0, 0)
        XCTAssertEqual(try ICURegex.translate(#"caf\u00e9|t[aeiou]+"#, at: r), #"caf\x{00e9}|t[aeiou]+"#)
        XCTAssertThrowsError(try ICURegex.translate("[[a-z]&&[^aeiou]]", at: r))
    }

    func testQueryLanguageIsNeverDetectedAsNSPredicate() {
        XCTAssertEqual(QueryLanguage.detect("name == 'x' AND a > 1"), .usergrid)
        XCTAssertEqual(QueryLanguage(rawValue: "nspredicate"), .nspredicate)
    }

    /// A typed argument given as a Value case and as its REST form bind alike.
    func testTypedArgumentsInBothForms() throws {
        let date = DateValue(millisecondsSince1970: 1_509_494_400_000)
        let a = try NSPredicateParser.parse(format: "d > %@", argumentArray: [.date(date)])
        let b = try NSPredicateParser.parse(format: "d > %@", argumentArray: [.object(["__type": "Date", "iso": "2017-11-01T00:00:00.000Z"])])
        XCTAssertEqual(a, b)
        XCTAssertEqual(try NSPredicateFormatter.format(a), #"d > CAST(531187200, "NSDate")"#)
    }
}
