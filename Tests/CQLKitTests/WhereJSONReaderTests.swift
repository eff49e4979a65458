import XCTest
@testable import CQLKit

// Foundation (through XCTest) has a `Predicate` too.
private typealias Predicate = CQLKit.Predicate

/// The where-JSON reader against hand-built ASTs: every operator, the request
/// parameters, and positioned errors.
final class WhereJSONReaderTests: XCTestCase {
    // MARK: Helpers

    private func condition(_ text: String, file: StaticString = #filePath, line: UInt = #line) -> Predicate? {
        do throws(QueryError) {
            return try WhereJSONReader.read(text).condition?.predicate
        } catch {
            XCTFail("\(text): \(error)", file: file, line: line)
            return nil
        }
    }

    private func assertReads(_ text: String, _ expected: Predicate, file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertEqual(condition(text, file: file, line: line), expected, text, file: file, line: line)
    }

    private func assertError(_ text: String, _ expected: String, kind: QueryError.Kind? = nil, className: String = "",
                             file: StaticString = #filePath, line: UInt = #line) {
        do throws(QueryError) {
            let q = try WhereJSONReader.read(text, className: className)
            XCTFail("\(text): expected an error, read \(q)", file: file, line: line)
        } catch {
            XCTAssertEqual(error.shortDescription, expected, text, file: file, line: line)
            if let kind { XCTAssertEqual(error.kind, kind, text, file: file, line: line) }
            XCTAssertEqual(error.source, text, file: file, line: line)
        }
    }

    private func c(_ p: Predicate) -> Condition { Condition(p) }
    private func v(_ value: Value) -> Term { .value(value) }
    private func geo(_ lat: Double, _ lng: Double) -> Term { .value(.geoPoint(GeoPoint(latitude: lat, longitude: lng))) }

    // MARK: Requests

    func testMustShowRequest() throws {
        let q = try WhereJSONReader.read(#"{"className":"GameScore","where":{"score":{"$gte":1000}},"order":"-score","limit":3}"#)
        XCTAssertEqual(q, Query(
            className: "GameScore",
            condition: c(.compare("score", .greaterThanOrEqual, v(1000))),
            order: [OrderKey("score", descending: true)],
            limit: v(3)))
        XCTAssertEqual(q.range, SourceRange(0, 84))
        XCTAssertEqual(q.source, #"{"className":"GameScore","where":{"score":{"$gte":1000}},"order":"-score","limit":3}"#)
        XCTAssertEqual(q.condition?.range, SourceRange(50, 54))
    }

    /// The issue's example: where-JSON → CQL, and that CQL parsed and
    /// emitted gives the same where-JSON back (in every dialect).
    func testMustShowThroughCQLAndBack() throws {
        let text = #"{"className":"GameScore","where":{"score":{"$gte":1000}},"order":"-score","limit":3}"#
        let q = try WhereJSONReader.read(text)
        let cql = try CQLFormatter.format(q)
        XCTAssertEqual(cql, "select * from GameScore where score >= 1000 limit 3 order by -score")
        let parsed = try CQLParser.parse(cql)
        XCTAssertEqual(parsed, q)
        for dialect in WhereJSONDialect.allCases {
            let back = try WhereJSONEmitter.emit(parsed, dialect: dialect)
            XCTAssertEqual(JSONWriter.string(back), JSONWriter.string(try JSONReader.parse(text)), "\(dialect)")
        }
    }

    func testRequestParameters() throws {
        let q = try WhereJSONReader.read(#"""
            {"className":"Post","where":{},"order":"createdAt, -score,+name","skip":"20","limit":10,
             "keys":"title,author.name,-body","include":["author","author.avatar"],"count":true}
            """#)
        XCTAssertEqual(q.className, "Post")
        XCTAssertNil(q.condition)
        XCTAssertEqual(q.order, [OrderKey("createdAt"), OrderKey("score", descending: true), OrderKey("name")])
        XCTAssertEqual(q.skip, v(20))
        XCTAssertEqual(q.limit, v(10))
        XCTAssertEqual(q.keys, [SelectedKey("title"), SelectedKey("author.name"), SelectedKey("body", excluded: true)])
        XCTAssertEqual(q.includes, ["author", "author.avatar"])
        XCTAssertEqual(q.count, .withResults)
    }

    func testCountWithLimitZeroIsCountOnly() throws {
        let q = try WhereJSONReader.read(#"{"className":"T","count":1,"limit":0}"#)
        XCTAssertEqual(q.count, .only)
        XCTAssertNil(q.limit)
        let r = try WhereJSONReader.read(#"{"className":"T","count":"0","limit":0}"#)
        XCTAssertEqual(r.count, .none)
        XCTAssertEqual(r.limit, v(0))
    }

    func testBareConditionAndArrayForms() throws {
        XCTAssertEqual(try WhereJSONReader.read(#"{"a":1}"#, className: "T"),
                       Query(className: "T", condition: c(.compare("a", .equal, v(1)))))
        assertReads(#"[{"a":1},{"b":{"$gt":2}}]"#, .and([c(.compare("a", .equal, v(1))), c(.compare("b", .greaterThan, v(2)))]))
        XCTAssertNil(try WhereJSONReader.read("[]").condition)
        XCTAssertNil(try WhereJSONReader.read("{}").condition)
        // A `where` array is an implicit AND too.
        XCTAssertEqual(try WhereJSONReader.read(#"{"where":[{"a":1},{"a":2}]}"#).condition,
                       c(.and([c(.compare("a", .equal, v(1))), c(.compare("a", .equal, v(2)))])))
    }

    func testClassNameArgument() throws {
        XCTAssertEqual(try WhereJSONReader.read(#"{"where":{}}"#, className: "A").className, "A")
        XCTAssertEqual(try WhereJSONReader.read(#"{"className":"A"}"#, className: "A").className, "A")
        assertError(#"{"className":"B"}"#, "1:14: className: className 'B' conflicts with the class 'A' the query is for",
                    className: "A")
    }

    func testReadFromValueHasPathButNoRange() {
        let doc: Value = .object(["where": .object(["score": .object(["$in": 5])])])
        XCTAssertThrowsError(try WhereJSONReader.read(doc)) { e in
            let e = e as! QueryError
            XCTAssertEqual(e.path, "where.score.$in")
            XCTAssertNil(e.range)
            XCTAssertEqual(e.shortDescription, "where.score.$in: expected an array, found an integer")
        }
        let typed: Value = .object(["at": .object(["$lt": .date(DateValue(millisecondsSince1970: 5))])])
        XCTAssertEqual(try WhereJSONReader.read(typed).condition,
                       c(.compare("at", .lessThan, v(.date(DateValue(millisecondsSince1970: 5))))))
    }

    // MARK: Values and comparisons

    func testEqualityValueForms() {
        assertReads(#"{"a":null}"#, .compare("a", .equal, v(.null)))
        assertReads(#"{"a":[1,"x"]}"#, .compare("a", .equal, v([1, "x"])))
        assertReads(#"{"a":{"b":1,"c":[true]}}"#, .compare("a", .equal, v(.object(["b": 1, "c": [true]]))))
        assertReads(#"{"p":{"__type":"Pointer","className":"Post","objectId":"x1"}}"#,
                    .compare("p", .equal, v(.pointer(Pointer(className: "Post", objectId: "x1")))))
        let d = Value.date(DateValue(millisecondsSince1970: 1_434_909_772_249))
        assertReads(#"{"at":{"__type":"Date","iso":"2015-06-21T18:02:52.249Z"}}"#, .compare("at", .equal, v(d)))
        assertReads(#"{"at":{"$date":"2015-06-21T18:02:52.249Z"}}"#, .compare("at", .equal, v(d)))
        assertReads(#"{"at":{"$gt":{"$date":1434909772249}}}"#, .compare("at", .greaterThan, v(d)))
        assertReads(#"{"o":{"x":{"$date":"2015-06-21T18:02:52.249Z"}}}"#, .compare("o", .equal, v(.object(["x": d]))))
        assertReads(#"{"a.b.c":"x"}"#, .compare(FieldPath(["a", "b", "c"]), .equal, v("x")))
    }

    func testComparisonOperatorsOnOneKeyAreANDedInKeyOrder() {
        assertReads(#"{"s":{"$lt":9,"$gte":1.5,"$ne":3,"$lte":8,"$gt":0,"$eq":4}}"#, .and([
            c(.compare("s", .equal, v(4))), c(.compare("s", .greaterThan, v(0))),
            c(.compare("s", .greaterThanOrEqual, v(1.5))), c(.compare("s", .lessThan, v(9))),
            c(.compare("s", .lessThanOrEqual, v(8))), c(.compare("s", .notEqual, v(3))),
        ]))
        assertReads(#"{"b":1,"a":2}"#, .and([c(.compare("a", .equal, v(2))), c(.compare("b", .equal, v(1)))]))
    }

    func testRelativeTime() {
        assertReads(#"{"at":{"$gt":{"$relativeTime":"3 days ago"}}}"#, .compare("at", .greaterThan, .relativeTime("3 days ago")))
        XCTAssertEqual(try Binder.bind(WhereJSONReader.read(#"{"at":{"$lt":{"$relativeTime":"in 1 day"}}}"#),
                                       parameters: [], now: DateValue(millisecondsSince1970: 0)).condition,
                       c(.compare("at", .lessThan, v(.date(DateValue(millisecondsSince1970: 86_400_000))))))
        assertError(#"{"at":{"$eq":{"$relativeTime":"now"}}}"#,
                    "1:31: at.$eq.$relativeTime: '$relativeTime' is only allowed as the value of $lt, $lte, $gt or $gte")
        assertError(#"{"at":{"$relativeTime":"now"}}"#,
                    "1:24: at.$relativeTime: '$relativeTime' is only allowed as the value of $lt, $lte, $gt or $gte")
    }

    // MARK: Lists, sizes, existence, patterns

    func testListOperators() {
        assertReads(#"{"a":{"$in":[1,"x",null]}}"#, .in("a", [v(1), v("x"), v(.null)], negated: false))
        assertReads(#"{"a":{"$nin":[]}}"#, .in("a", [], negated: true))
        assertReads(#"{"a":{"$all":[1,2]}}"#, .all("a", [v(1), v(2)]))
        assertReads(#"{"a":{"$containedBy":["x"]}}"#, .containedBy("a", [v("x")]))
        assertReads(#"{"a":{"$size":2}}"#, .size("a", v(2)))
        assertReads(#"{"a":{"$exists":false}}"#, .exists("a", false))
    }

    func testRegex() {
        assertReads(#"{"n":{"$regex":"^\\Qa.b\\E","$options":"im"}}"#, .regex("n", pattern: v("^\\Qa.b\\E"), options: "im"))
        assertReads(#"{"n":{"$regex":"x"}}"#, .regex("n", pattern: v("x"), options: ""))
        assertReads(#"{"n":{"$not":{"$regex":"x","$options":"s"}}}"#, .not(c(.regex("n", pattern: v("x"), options: "s"))))
    }

    func testMongoOperators() {
        assertReads(#"{"a":{"$not":{"$gt":5,"$lt":1}}}"#,
                    .not(c(.and([c(.compare("a", .greaterThan, v(5))), c(.compare("a", .lessThan, v(1)))]))))
        assertReads(#"{"a":{"$type":"string"}}"#, .type("a", "string"))
        assertReads(#"{"a":{"$type":[2,"null"]}}"#, .or([c(.type("a", "string")), c(.type("a", "null"))]))
        assertReads(#"{"a":{"$mod":[4,1]}}"#, .modulo("a", divisor: v(4), remainder: v(1)))
        assertReads(#"{"r":{"$elemMatch":{"$gte":80,"$lt":85}}}"#, .elementMatch("r", c(.and([
            c(.compare(FieldPath([]), .greaterThanOrEqual, v(80))), c(.compare(FieldPath([]), .lessThan, v(85))),
        ]))))
        assertReads(#"{"r":{"$elemMatch":{"name":"x","n":{"$gt":1}}}}"#, .elementMatch("r", c(.and([
            c(.compare("n", .greaterThan, v(1))), c(.compare("name", .equal, v("x"))),
        ]))))
    }

    func testLogic() {
        let a = c(.compare("a", .equal, v(1))), b = c(.compare("b", .equal, v(2)))
        assertReads(#"{"$or":[{"a":1},{"b":2}]}"#, .or([a, b]))
        assertReads(#"{"$and":[{"a":1},{"b":2}]}"#, .and([a, b]))
        assertReads(#"{"$nor":[{"a":1},{"b":2}]}"#, .not(c(.or([a, b]))))
        assertReads(#"{"$nor":[{"a":1}]}"#, .not(a))
        assertReads(#"{"$or":[{"a":1},{}]}"#, .or([a, c(.constant(true))]))
        // Compound elements may wrap their condition in a `where`.
        assertReads(#"{"$or":[{"where":{"a":1}},{"b":2}]}"#, .or([a, b]))
        assertReads(#"{"c":3,"$and":[{"a":1},{"b":2}]}"#, .and([a, b, c(.compare("c", .equal, v(3)))]))
    }

    func testFullText() {
        assertReads(#"{"t":{"$text":{"$search":{"$term":"coffee","$language":"en","$caseSensitive":true}}}}"#,
                    .fullText("t", FullTextSearch(term: "coffee", language: "en", caseSensitive: true)))
    }

    // MARK: Subqueries

    func testSubqueries() {
        let sub = Query(className: "Post", condition: c(.exists("image", true)), limit: v(5))
        assertReads(#"{"post":{"$inQuery":{"className":"Post","where":{"image":{"$exists":true}},"limit":5}}}"#,
                    .inQuery("post", query: sub, negated: false))
        assertReads(#"{"post":{"$notInQuery":{"className":"Post","where":{"image":{"$exists":true}},"limit":5}}}"#,
                    .inQuery("post", query: sub, negated: true))
        let scores = Query(className: "GameScore", condition: c(.compare("score", .greaterThan, v(80))))
        assertReads(#"{"name":{"$select":{"query":{"className":"GameScore","where":{"score":{"$gt":80}}},"key":"name"}}}"#,
                    .select("name", key: "name", query: scores, negated: false))
        assertReads(#"{"name":{"$dontSelect":{"key":"name","query":{"className":"GameScore","where":{"score":{"$gt":80}}}}}}"#,
                    .select("name", key: "name", query: scores, negated: true))
        assertReads(#"{"$relatedTo":{"object":{"__type":"Pointer","className":"Post","objectId":"p1"},"key":"likes"}}"#,
                    .relatedTo(object: v(.pointer(Pointer(className: "Post", objectId: "p1"))), key: "likes"))
    }

    // MARK: Geo

    func testNearSphere() {
        assertReads(#"{"loc":{"$nearSphere":{"__type":"GeoPoint","latitude":39.9,"longitude":116.4},"$maxDistanceInKilometers":1,"$minDistanceInKilometers":0.5}}"#,
                    .near("loc", point: geo(39.9, 116.4), min: Distance(v(0.5), .kilometers), max: Distance(v(1), .kilometers)))
        assertReads(#"{"loc":{"$nearSphere":[116.4,39.9],"$maxDistance":0.1}}"#,
                    .near("loc", point: geo(39.9, 116.4), min: nil, max: Distance(v(0.1), .radians)))
        assertReads(#"{"loc":{"$nearSphere":{"$geometry":{"type":"Point","coordinates":[116.4,39.9]},"$maxDistance":500}}}"#,
                    .near("loc", point: geo(39.9, 116.4), min: nil, max: Distance(v(500), .meters)))
        assertReads(#"{"loc":{"$nearSphere":{"latitude":1,"longitude":2},"$maxDistanceInMiles":3}}"#,
                    .near("loc", point: geo(1, 2), min: nil, max: Distance(v(3), .miles)))
    }

    func testGeoShapes() {
        assertReads(#"{"loc":{"$within":{"$box":[[116.33,39.97],{"__type":"GeoPoint","latitude":39.99,"longitude":116.37}]}}}"#,
                    .withinBox("loc", southwest: geo(39.97, 116.33), northeast: geo(39.99, 116.37)))
        assertReads(#"{"loc":{"$geoWithin":{"$polygon":[[0,0],[0,1],[1,1]]}}}"#,
                    .withinPolygon("loc", [geo(0, 0), geo(1, 0), geo(1, 1)]))
        assertReads(#"{"loc":{"$geoWithin":{"$geometry":{"type":"Polygon","coordinates":[[[0,0],[0,1],[1,1],[0,0]]]}}}}"#,
                    .withinPolygon("loc", [geo(0, 0), geo(1, 0), geo(1, 1)]))
        assertReads(#"{"loc":{"$geoWithin":{"$centerSphere":[[116.4,39.9],0.01]}}}"#,
                    .withinCenterSphere("loc", center: geo(39.9, 116.4), radius: v(0.01)))
        assertReads(#"{"area":{"$geoIntersects":{"$point":{"__type":"GeoPoint","latitude":1,"longitude":2}}}}"#,
                    .geoIntersects("area", point: geo(1, 2)))
        assertReads(#"{"area":{"$geoIntersects":{"$geometry":{"type":"Point","coordinates":[2,1]}}}}"#,
                    .geoIntersects("area", point: geo(1, 2)))
    }

    // MARK: Errors

    func testPositionedErrors() {
        assertError(#"{"where":{"score":{"$in":5}}}"#, "1:26: where.score.$in: expected an array, found an integer", kind: .syntax)
        assertError("{\"where\":{\n  \"a\":{\"$foo\":1}}}", "2:15: where.a.$foo: unknown operator '$foo'")
        assertError(#"{"n":{"$regex":"x","$options":"g"}}"#, "1:31: n.$options: invalid regex option 'g' in 'g' (allowed: i, m, x, s)", kind: .pattern)
        assertError(#"{"l":{"$nearSphere":[200,0]}}"#, "1:22: l.$nearSphere[0]: longitude 200.0 is out of range -180...180", kind: .invalidValue)
        assertError(#"{"className":"T","limt":1}"#,
                    "1:25: limt: unknown request parameter 'limt' (expected one of where, order, limit, skip, keys, include, count, returnACL, className)")
        assertError(#"{"p":{"$inQuery":{"where":{}}}}"#, "1:18: p.$inQuery: a subquery needs a 'className'")
        assertError(#"{"$or":[{"where":{"a":1},"limit":1}]}"#,
                    "1:34: $or[0].limit: a compound sub-query ($or/$and/$nor element) carries no 'limit'")
        assertError(#"{"a":{"$gt":1,"b":2}}"#,
                    "1:19: a.b: expected an operator, found the plain key 'b' (an object of operators holds nothing else)")
        assertError(#"{"a":{"$size":-1}}"#, "1:15: a.$size: expected a non-negative integer, found -1")
        assertError(#"{"a":{"$exists":"1"}}"#, "1:17: a.$exists: expected true, false or a number, found a string")
        assertError(#"{"a":{"$in":[{"$gt":1}]}}"#, "1:14: a.$in[0]: expected a value, found an operator object ($gt)")
        assertError("5", "1:1: expected a request object, a condition object or an array of conditions, found an integer")
        assertError(#"{"a":1,}"#, "1:8: invalid JSON: expected a string key, found '}'")
    }

    func testNestingLimit() {
        let deep = String(repeating: #"{"$or":["#, count: 150) + #"{"a":1}"# + String(repeating: "]}", count: 150)
        XCTAssertThrowsError(try WhereJSONReader.read(deep)) { e in
            XCTAssertEqual((e as! QueryError).kind, .limit)
        }
        let deepNot = String(repeating: #"{"$not":"#, count: 150) + #"{"$gt":1}"# + String(repeating: "}", count: 150)
        XCTAssertThrowsError(try WhereJSONReader.read(#"{"a":"# + deepNot + "}")) { e in
            XCTAssertEqual((e as! QueryError).kind, .limit)
        }
        // A built Value is not bounded by the JSON reader.
        var value: Value = .object(["a": 1])
        for _ in 0..<2000 { value = .object(["$or": [value]]) }
        XCTAssertThrowsError(try WhereJSONReader.read(value)) { e in
            XCTAssertEqual((e as! QueryError).kind, .limit)
        }
    }
}
