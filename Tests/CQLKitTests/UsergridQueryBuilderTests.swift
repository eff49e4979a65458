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
        // Nothing asked: Usergrid's page of 10, newest first.
        XCTAssertEqual(
            try UsergridQuery("pets").build(),
            Query(className: "pets", order: [OrderKey("created", descending: true)], limit: .value(10)))
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
        // A string range ignores case, as the parser reads `name > 'm'`; literal keeps it exact.
        XCTAssertEqual(try condition(q.gt("name", value: " m ")), c(.text("name", .greaterThanIgnoringCase, "m")))
        XCTAssertEqual(
            try condition(UsergridQuery("pets", literal: true).gt("name", value: "m")),
            c(.compare("name", .greaterThan, .value("m"))))
        XCTAssertEqual(try UsergridQuery("pets").lte("name", value: "Delta").build(), try UsergridParser.parse("name <= 'Delta'", options: .init(className: "pets")))
    }

    func testContains() throws {
        let q = UsergridQuery("pets")
        XCTAssertEqual(try condition(q.contains("bio", value: "blue")), c(.text("bio", .word, "blue")))
        XCTAssertEqual(try condition(q.containsString("bio", value: "bl*")), c(.text("bio", .wordPrefix, "bl")))
        XCTAssertEqual(try condition(q.containsWord("bio", value: "blue")), c(.text("bio", .word, "blue")))
        XCTAssertEqual(
            buildError(q.contains("bio", value: "b*e"))?.message,
            "clause on 'bio': '*' in 'contains' is only allowed at the end (a word prefix such as 'bl*')"
        )
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
        // Sorting by the within field is nearest first (no order key), as the parser reads it.
        let nearest = UsergridQuery("pets").locationWithin(500, latitude: 1, longitude: 2)
        XCTAssertEqual(try nearest.desc("location").build().order, [])
        XCTAssertEqual(try nearest.build().order, [])
        XCTAssertEqual(
            try nearest.desc("location").build(),
            try UsergridParser.parse("location within 500 of 1, 2 order by location desc", options: .init(className: "pets")))
        XCTAssertEqual(buildError(nearest.asc("location").asc("name"))?.kind, .unsupported)
        XCTAssertEqual(
            try UsergridQuery("pets").fromString("location within 500 of 1, 2 order by location").build().order, [])
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

    func testLimitAndCursorAsTheParserAppliesThem() throws {
        let cursor = UsergridOptions.cursor(offset: 40)
        let q = UsergridQuery("t").eq("a", value: 1).limit(20).cursor(cursor)
        let built = try q.build()
        XCTAssertEqual(built.limit, .value(20))
        XCTAssertEqual(built.skip, .value(40))
        XCTAssertEqual(q.limit, 20)
        XCTAssertEqual(q.cursor, cursor)
        XCTAssertNil(q.cursor(nil).cursor)
        XCTAssertNil(try q.cursor(nil).build().skip)
        XCTAssertEqual(try UsergridQuery("t").build().limit, .value(10))
        // Usergrid clamps the page size to 1000.
        XCTAssertEqual(try UsergridQuery("t").limit(5000).build().limit, .value(1000))
        XCTAssertEqual(buildError(UsergridQuery("t").limit(0))?.message, "limit must be at least 1, found 0")
        XCTAssertEqual(
            buildError(UsergridQuery("t").cursor("nope"))?.message,
            "invalid cursor 'nope': expected a cursor returned with an earlier page"
        )
        // The same AST as the parser with the same options.
        XCTAssertEqual(
            built,
            try UsergridParser.parse("a = 1", options: UsergridOptions(className: "t", limit: 20, cursor: cursor))
        )
    }

    func testBadValuesAndKeys() {
        XCTAssertEqual(
            buildError(UsergridQuery("t").gt("w", value: Double.infinity))?.message,
            "clause on 'w': inf is not a finite number"
        )
        XCTAssertEqual(buildError(UsergridQuery("t").eq("", value: 1))?.message, "clause on '': a key must not be empty")
        XCTAssertEqual(buildError(UsergridQuery("t").asc("a."))?.message, "sort on 'a.': the key 'a.' has an empty step")
    }

    // MARK: Same AST as the parser

    func testSameASTAsTheParser() throws {
        let q = UsergridQuery("pets")
        let cases: [(UsergridQuery, String)] = [
            (q.eq("name", value: "Fido"), "name = 'Fido'"),
            (q.eq("name", value: "Mor*g"), "name = 'Mor*g'"),
            (q.eq("name", value: "O'Brien"), #"name = 'O\'Brien'"#),
            (q.eq("uuid", value: "c6ee8a1c-3ef4-11e2-8861-02e81adcf3d0"), "uuid = c6ee8a1c-3ef4-11e2-8861-02e81adcf3d0"),
            (q.eq("age", value: 3), "age = 3"),
            (q.eq("w", value: 1.5), "w = 1.5"),
            (q.eq("good", value: true), "good = true"),
            (q.gt("age", value: -3), "age > -3"),
            (q.gte("age", value: 3), "age >= 3"),
            (q.lt("name", value: "m"), "name < 'm'"),
            (q.lte("age", value: 3), "age lte 3"),
            (q.contains("bio", value: "blue"), "bio contains 'blue'"),
            (q.contains("bio", value: "bl*"), "bio contains 'bl*'"),
            (q.locationWithin(500, latitude: 37.776753, longitude: -122.407846), "location within 500 of 37.776753, -122.407846"),
            (q.locationWithin(12.5, latitude: 37.776753, longitude: -122.407846), "location within 12.5 of 37.776753, -122.407846"),
            (q.eq("a", value: 1).or().eq("b", value: 2).eq("c", value: 3), "a = 1 or b = 2 and c = 3"),
            (q.eq("a", value: 1).eq("b", value: 2).or().eq("c", value: 3), "a = 1 and b = 2 or c = 3"),
            (q.not().eq("a", value: 1).eq("b", value: 2), "not a = 1 and b = 2"),
            (q.eq("a", value: 1).or().not().eq("b", value: 2), "a = 1 or not b = 2"),
            (q.not().not().eq("a", value: 1), "not not a = 1"),
            (q.desc("age").asc("name"), "order by age desc, name"),
            (q.gt("age", value: 1).desc("age"), "where age > 1 order by age desc"),
        ]
        for (builder, ql) in cases {
            XCTAssertEqual(try builder.build(), try UsergridParser.parse(ql, options: UsergridOptions(className: "pets")), ql)
        }
        XCTAssertEqual(
            try UsergridQuery("pets", literal: true).eq("name", value: "Fido").build(),
            try UsergridParser.parse("name = 'Fido'", options: UsergridOptions(className: "pets", literal: true))
        )
    }

    // MARK: where-JSON

    private func json(_ q: UsergridQuery, _ dialect: WhereJSONDialect = .leancloud) throws -> String {
        JSONWriter.string(try WhereJSONEmitter.emit(q.build(), dialect: dialect))
    }

    func testWhereJSON() throws {
        let q = UsergridQuery("pets")
        let cases: [(UsergridQuery, String)] = [
            (q, #"{"className":"pets","limit":10,"order":"-created"}"#),
            (q.eq("name", value: "Fido"), #"{"className":"pets","limit":10,"order":"-created","where":{"name":{"$options":"i","$regex":"^\\QFido\\E\\z"}}}"#),
            (q.eq("name", value: "Mor*g"), #"{"className":"pets","limit":10,"order":"-created","where":{"name":{"$options":"is","$regex":"^\\QMor\\E.*\\Qg\\E\\z"}}}"#),
            (UsergridQuery("pets", literal: true).eq("name", value: "Fido"), #"{"className":"pets","limit":10,"order":"-created","where":{"name":"Fido"}}"#),
            (q.eq("age", value: 3), #"{"className":"pets","limit":10,"order":"-created","where":{"age":3}}"#),
            (q.eq("good", value: true), #"{"className":"pets","limit":10,"order":"-created","where":{"good":true}}"#),
            (q.gt("age", value: 3), #"{"className":"pets","limit":10,"order":"-created","where":{"age":{"$gt":3}}}"#),
            (q.gte("age", value: 3).lt("age", value: 9), #"{"className":"pets","limit":10,"order":"-created","where":{"age":{"$gte":3,"$lt":9}}}"#),
            (q.lte("w", value: 2.5), #"{"className":"pets","limit":10,"order":"-created","where":{"w":{"$lte":2.5}}}"#),
            (
                q.contains("bio", value: "blue"),
                #"{"className":"pets","limit":10,"order":"-created","where":{"bio":{"$options":"i","$regex":"(?<![\\p{L}\\p{N}])\\Qblue\\E(?![\\p{L}\\p{N}])"}}}"#
            ),
            (
                q.containsWord("bio", value: "bl*"),
                #"{"className":"pets","limit":10,"order":"-created","where":{"bio":{"$options":"i","$regex":"(?<![\\p{L}\\p{N}])\\Qbl\\E"}}}"#
            ),
            (
                q.locationWithin(500, latitude: 37.776753, longitude: -122.407846),
                #"{"className":"pets","limit":10,"where":{"location":{"$maxDistanceInKilometers":0.5,"$nearSphere":{"__type":"GeoPoint","latitude":37.776753,"longitude":-122.407846}}}}"#
            ),
            (
                q.eq("a", value: 1).or().eq("b", value: 2).and().eq("c", value: 3),
                #"{"className":"pets","limit":10,"order":"-created","where":{"$or":[{"a":1},{"b":2,"c":3}]}}"#
            ),
            // not(=) has an exact rewrite in every dialect.
            (q.not().eq("age", value: 3), #"{"className":"pets","limit":10,"order":"-created","where":{"age":{"$ne":3}}}"#),
            (
                q.desc("age").asc("name").limit(20).cursor(UsergridOptions.cursor(offset: 40)),
                #"{"className":"pets","limit":20,"order":"-age,name","skip":40}"#
            ),
        ]
        for (builder, expected) in cases {
            XCTAssertEqual(try json(builder), expected)
        }
    }

    func testNegationNeedsADialectThatHasIt() throws {
        let q = UsergridQuery("pets").eq("a", value: 1).or().not().gt("age", value: 3)
        XCTAssertEqual(try json(q, .parse), #"{"className":"pets","limit":10,"order":"-created","where":{"$or":[{"a":1},{"$nor":[{"age":{"$gt":3}}]}]}}"#)
        XCTAssertEqual(try json(q, .mongo), #"{"className":"pets","limit":10,"order":"-created","where":{"$or":[{"a":1},{"age":{"$not":{"$gt":3}}}]}}"#)
        XCTAssertThrowsError(try json(q)) { e in
            XCTAssertEqual((e as? QueryError)?.kind, .unsupported)
        }
    }

    // MARK: fromString and text

    func testFromStringKeepsLimitAndCursor() throws {
        let cursor = UsergridOptions.cursor(offset: 10)
        let q = UsergridQuery("pets").limit(5).cursor(cursor)
            .fromString("select name, age where color = 'blue' or age > 3 order by name")
        let built = try q.build()
        XCTAssertEqual(
            built,
            try UsergridParser.parse(
                "select name, age where color = 'blue' or age > 3 order by name",
                options: UsergridOptions(className: "pets", limit: 5, cursor: cursor))
        )
        XCTAssertEqual(
            try json(q, .parse),
            #"{"className":"pets","keys":"name,age","limit":5,"order":"name","skip":10,"where":{"$or":[{"color":{"$options":"i","$regex":"^\\Qblue\\E\\z"}},{"age":{"$gt":3}}]}}"#
        )
    }

    func testFromStringIsOneClause() throws {
        let q = try UsergridQuery("pets").not().fromString("a = 1 or b = 2").eq("c", value: 3).desc("c").build()
        XCTAssertEqual(q, try UsergridParser.parse("not (a = 1 or b = 2) and c = 3 order by c desc", options: UsergridOptions(className: "pets")))
        let e = buildError(UsergridQuery("pets").fromString("a = 1 garbage"))
        XCTAssertEqual(e?.kind, .syntax)
        XCTAssertEqual(e?.source, "a = 1 garbage")
        XCTAssertNotNil(e?.range)
    }

    func testQueryStringAndURLQuery() throws {
        let q = UsergridQuery("pets").not().eq("name", value: "O'Brien").desc("age")
        XCTAssertEqual(try q.queryString(), #"select * where not name = 'O\'Brien' order by age desc"#)
        XCTAssertEqual(try UsergridQuery("pets").eq("good", value: true).queryString(), "select * where good = true")
        let u = UsergridQuery("pets").eq("name", value: "A&B").limit(5).cursor(UsergridOptions.cursor(offset: 10))
        XCTAssertEqual(
            try u.urlQuery(),
            "ql=select%20%2A%20where%20name%20%3D%20%27A%26B%27&limit=5&cursor=b2Zmc2V0OjEw"
        )
    }

    /// The examples in the doc comments of the public API.
    func testDocExamples() throws {
        let query = UsergridQuery("pets")
            .eq("name", value: "Fido")
            .or()
            .not().gt("age", value: 3)
            .desc("age")
            .limit(20)
        XCTAssertEqual(try query.queryString(), "select * where name = 'Fido' or not age > 3 order by age desc")
        XCTAssertEqual(
            try json(query, .parse),
            #"{"className":"pets","limit":20,"order":"-age","where":{"$or":[{"name":{"$options":"i","$regex":"^\\QFido\\E\\z"}},{"$nor":[{"age":{"$gt":3}}]}]}}"#
        )
        XCTAssertEqual(
            try json(UsergridQuery("pets").fromString("color = 'blue' or age > 3 order by name").limit(5), .parse),
            #"{"className":"pets","limit":5,"order":"name","where":{"$or":[{"color":{"$options":"i","$regex":"^\\Qblue\\E\\z"}},{"age":{"$gt":3}}]}}"#
        )
        XCTAssertEqual(
            try UsergridQuery("pets").eq("name", value: "A&B").limit(5).urlQuery(),
            "ql=select%20%2A%20where%20name%20%3D%20%27A%26B%27&limit=5"
        )
    }
}
