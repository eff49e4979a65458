import XCTest
@testable import CQLKit

// XCTest re-exports Foundation, whose `Predicate` would shadow the AST's.
private typealias Predicate = CQLKit.Predicate

/// Each UsergridQuery call and the AST it yields (the AST the Usergrid
/// parser gives the equivalent `ql`).
final class UsergridQueryBuilderTests: XCTestCase {
    private func condition(_ q: UsergridQuery) throws -> Condition? {
        try q.build().condition
    }

    private func buildError(_ q: UsergridQuery) -> QueryError? {
        do {
            _ = try q.build()
            return nil
        } catch {
            return error
        }
    }

    private func c(_ p: Predicate) -> Condition { Condition(p) }

    func testEmptyQueryAndCollection() throws {
        XCTAssertEqual(try UsergridQuery("pets").build(), Query(className: "pets"))
        XCTAssertEqual(try UsergridQuery().collection("users").build().className, "users")
        XCTAssertEqual(try UsergridQuery("x").type("dogs").build().className, "dogs")
        XCTAssertEqual(try UsergridQuery().build().className, "")
    }

    func testStringEqualityIsCaseInsensitive() throws {
        let q = UsergridQuery("pets")
        let expected = c(.text("name", .equalsIgnoringCase, "Fido"))
        XCTAssertEqual(try condition(q.eq("name", value: "Fido")), expected)
        XCTAssertEqual(try condition(q.equals("name", value: "Fido")), expected)
        XCTAssertEqual(try condition(q.filter("name", value: "Fido")), expected)
        XCTAssertEqual(try condition(q.eq("name", value: "Mor*g*")), c(.text("name", .wildcard, "Mor*g*")))
        // Quotes are values, not text: nothing to escape.
        XCTAssertEqual(try condition(q.eq("name", value: "O'Brien")), c(.text("name", .equalsIgnoringCase, "O'Brien")))
    }

    func testLiteralStringEquality() throws {
        let q = UsergridQuery("pets", literal: true)
        XCTAssertEqual(try condition(q.eq("name", value: "Fido")), c(.compare("name", .equal, .value("Fido"))))
        XCTAssertEqual(try condition(q.eq("name", value: "F*")), c(.compare("name", .equal, .value("F*"))))
    }

    func testNonStringEqualityIsExact() throws {
        let q = UsergridQuery("pets")
        XCTAssertEqual(try condition(q.eq("age", value: 3)), c(.compare("age", .equal, .value(3))))
        XCTAssertEqual(try condition(q.eq("w", value: 1.5)), c(.compare("w", .equal, .value(1.5))))
        // `true` stays a boolean (the SDK sent `1`).
        XCTAssertEqual(try condition(q.eq("good", value: true)), c(.compare("good", .equal, .value(true))))
        let uuid = "c6ee8a1c-3ef4-11e2-8861-02e81adcf3d0"
        XCTAssertEqual(try condition(q.eq("uuid", value: uuid)), c(.compare("uuid", .equal, .value(.string(uuid)))))
        XCTAssertEqual(
            try condition(q.eq("uuid", value: "c6ee8a1c-3ef4-11e2-8861-02e81adcf3d")),
            c(.text("uuid", .equalsIgnoringCase, "c6ee8a1c-3ef4-11e2-8861-02e81adcf3d"))
        )
    }

    func testOrderedComparisons() throws {
        let q = UsergridQuery("pets")
        let cases: [(UsergridQuery, ComparisonOperator)] = [
            (q.gt("age", value: 3), .greaterThan), (q.greaterThan("age", value: 3), .greaterThan),
            (q.gte("age", value: 3), .greaterThanOrEqual), (q.greaterThanOrEqual("age", value: 3), .greaterThanOrEqual),
            (q.lt("age", value: 3), .lessThan), (q.lessThan("age", value: 3), .lessThan),
            (q.lte("age", value: 3), .lessThanOrEqual), (q.lessThanOrEqual("age", value: 3), .lessThanOrEqual),
        ]
        for (query, op) in cases {
            XCTAssertEqual(try condition(query), c(.compare("age", op, .value(3))))
        }
        XCTAssertEqual(try condition(q.gt("name", value: "m")), c(.compare("name", .greaterThan, .value("m"))))
    }

    func testContains() throws {
        let q = UsergridQuery("pets")
        XCTAssertEqual(try condition(q.contains("bio", value: "blue")), c(.text("bio", .word, "blue")))
        XCTAssertEqual(try condition(q.containsString("bio", value: "bl*")), c(.text("bio", .wordPrefix, "bl")))
        XCTAssertEqual(try condition(q.containsWord("bio", value: "blue")), c(.text("bio", .word, "blue")))
    }

    func testLocationWithin() throws {
        let p = GeoPoint(latitude: 37.776753, longitude: -122.407846)
        XCTAssertEqual(
            try condition(UsergridQuery("pets").locationWithin(500, latitude: 37.776753, longitude: -122.407846)),
            c(.near("location", point: .value(.geoPoint(p)), min: nil, max: Distance(.value(500), .meters)))
        )
        XCTAssertEqual(
            try condition(UsergridQuery("pets").locationWithin(12.5, latitude: 37.776753, longitude: -122.407846)),
            c(.near("location", point: .value(.geoPoint(p)), min: nil, max: Distance(.value(12.5), .meters)))
        )
        XCTAssertEqual(
            buildError(UsergridQuery().locationWithin(5, latitude: -122.4, longitude: 37.7))?.message,
            "clause on 'location': invalid GeoPoint: latitude -122.4 is outside -90...90"
        )
        XCTAssertEqual(
            buildError(UsergridQuery().locationWithin(-5, latitude: 1, longitude: 2))?.message,
            "clause on 'location': the within distance must not be negative, found -5"
        )
    }

    func testClausesAreANDedAndAndBindsTighterThanOr() throws {
        let a = c(.compare("a", .equal, .value(1))), b = c(.compare("b", .equal, .value(2)))
        let cc = c(.compare("c", .equal, .value(3)))
        let q = UsergridQuery("t")
        XCTAssertEqual(try condition(q.eq("a", value: 1).eq("b", value: 2)), c(.and([a, b])))
        XCTAssertEqual(try condition(q.eq("a", value: 1).and().eq("b", value: 2)), c(.and([a, b])))
        // a or b and c  ==  a or (b and c)
        XCTAssertEqual(
            try condition(q.eq("a", value: 1).or().eq("b", value: 2).and().eq("c", value: 3)),
            c(.or([a, c(.and([b, cc]))]))
        )
        // a and b or c  ==  (a and b) or c
        XCTAssertEqual(
            try condition(q.eq("a", value: 1).eq("b", value: 2).or().eq("c", value: 3)),
            c(.or([c(.and([a, b])), cc]))
        )
        XCTAssertEqual(
            try condition(q.eq("a", value: 1).or().eq("b", value: 2).or().eq("c", value: 3)),
            c(.or([a, b, cc]))
        )
    }

    func testNotAppliesToTheNextClause() throws {
        let a = c(.compare("a", .equal, .value(1))), b = c(.compare("b", .equal, .value(2)))
        let q = UsergridQuery("t")
        // A leading not() is kept (the SDK dropped it).
        XCTAssertEqual(try condition(q.not().eq("a", value: 1)), c(.not(a)))
        XCTAssertEqual(try condition(q.not().eq("a", value: 1).eq("b", value: 2)), c(.and([c(.not(a)), b])))
        XCTAssertEqual(try condition(q.eq("a", value: 1).not().eq("b", value: 2)), c(.and([a, c(.not(b))])))
        XCTAssertEqual(try condition(q.eq("a", value: 1).or().not().eq("b", value: 2)), c(.or([a, c(.not(b))])))
        XCTAssertEqual(try condition(q.eq("a", value: 1).and().not().eq("b", value: 2)), c(.and([a, c(.not(b))])))
        XCTAssertEqual(try condition(q.not().not().eq("a", value: 1)), c(.not(c(.not(a)))))
    }

    func testMisplacedConnectorsAreErrors() {
        let q = UsergridQuery("t")
        XCTAssertEqual(buildError(q.or().eq("a", value: 1))?.message, "or() must come between two clauses; it comes first")
        XCTAssertEqual(buildError(q.and().eq("a", value: 1))?.message, "and() must come between two clauses; it comes first")
        XCTAssertEqual(
            buildError(q.eq("a", value: 1).or().or().eq("b", value: 1))?.message,
            "or() must come between two clauses; it follows or()"
        )
        XCTAssertEqual(
            buildError(q.eq("a", value: 1).not().and().eq("b", value: 1))?.message,
            "and() must come between two clauses; it follows not()"
        )
        XCTAssertEqual(buildError(q.eq("a", value: 1).or())?.message, "or() needs a clause after it; it comes last")
        XCTAssertEqual(buildError(q.eq("a", value: 1).not())?.message, "not() needs a clause after it; it comes last")
        XCTAssertEqual(buildError(q.not())?.kind, .invalidValue)
    }

    func testSortKeysKeepTheirOrder() throws {
        let q = try UsergridQuery("t")
            .desc("age").asc("name").ascending("b").descending("c").sort("d", .asc).sort("e", .desc)
            .build()
        XCTAssertEqual(q.order, [
            OrderKey("age", descending: true), OrderKey("name"), OrderKey("b"),
            OrderKey("c", descending: true), OrderKey("d"), OrderKey("e", descending: true),
        ])
    }

    func testLimitAndCursor() throws {
        let q = UsergridQuery("t").eq("a", value: 1).limit(20).cursor("LTU2ODc0MzQzOkdFM")
        XCTAssertEqual(try q.build().limit, .value(20))
        XCTAssertEqual(q.limit, 20)
        XCTAssertEqual(q.cursor, "LTU2ODc0MzQzOkdFM")
        XCTAssertNil(q.cursor(nil).cursor)
        XCTAssertNil(try UsergridQuery("t").build().limit)
        XCTAssertEqual(buildError(UsergridQuery("t").limit(-1))?.message, "limit must not be negative, found -1")
    }

    func testBadValuesAndKeys() {
        XCTAssertEqual(
            buildError(UsergridQuery("t").gt("w", value: Double.infinity))?.message,
            "clause on 'w': inf is not a finite number"
        )
        XCTAssertEqual(buildError(UsergridQuery("t").eq("", value: 1))?.message, "clause on '': a key must not be empty")
        XCTAssertEqual(buildError(UsergridQuery("t").asc("a."))?.message, "sort on 'a.': the key 'a.' has an empty step")
    }
}
