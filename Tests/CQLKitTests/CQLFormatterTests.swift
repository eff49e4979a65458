import XCTest
@testable import CQLKit

/// The canonical CQL formatter on hand-built ASTs (the corpus checks it on
/// parsed queries, with the round trip).
final class CQLFormatterTests: XCTestCase {
    private func c(_ p: CQLKit.Predicate) -> Condition { Condition(p) }
    private func v(_ x: Value) -> Term { .value(x) }

    private func fmt(_ q: Query) -> String {
        do { return try CQLFormatter.format(q) } catch { return "error: " + error.message }
    }

    private func fmt(_ cond: Condition) -> String { fmt(Query(className: "T", condition: cond)) }

    func testStatementShape() {
        let q = Query(className: "GameScore", keys: [SelectedKey("name"), SelectedKey("score")], includes: ["a", "b.c"],
                      count: .withResults, condition: c(.compare("score", .greaterThan, v(80))),
                      order: [OrderKey("score", descending: true), OrderKey("name")], skip: v(10), limit: v(20))
        XCTAssertEqual(fmt(q), "select count(*), include a, include b.c, name, score from GameScore where score > 80 limit 10, 20 order by -score, name")
        XCTAssertEqual(fmt(Query(className: "T", count: .only)), "select count(*) from T")
        XCTAssertEqual(fmt(Query(className: "T", count: .withResults)), "select count(*), * from T")
        XCTAssertEqual(fmt(Query(className: "T", includes: ["post"], limit: v(5))), "select include post, * from T limit 5")
        XCTAssertEqual(fmt(Query(className: "")), "error: CQL needs a class name")
        XCTAssertEqual(fmt(Query(className: "T", skip: v(5))), "error: a skip without a limit cannot be expressed in CQL ('limit skip, count')")
        XCTAssertEqual(fmt(Query(className: "Order", order: [OrderKey(FieldPath(["from", "limit", "0", "01"]))])),
                       "select * from `Order` order by `from`.`limit`.0.`01`")
    }

    func testPrecedenceAndNegation() {
        let a = c(.compare("a", .equal, v(1))), b = c(.compare("b", .equal, v(2))), d = c(.compare("d", .equal, v(3)))
        XCTAssertEqual(fmt(Condition.and([Condition.or([a, b]), d])), "select * from T where (a = 1 or b = 2) and d = 3")
        XCTAssertEqual(fmt(Condition.or([Condition.and([a, b]), d])), "select * from T where a = 1 and b = 2 or d = 3")
        XCTAssertEqual(fmt(Condition.and([c(.not(Condition.or([a, b]))), d])), "select * from T where not (a = 1 or b = 2) and d = 3")
        XCTAssertEqual(fmt(c(.not(c(.like("name", pattern: v("x%")))))), "select * from T where not (name like 'x%')")
        // CQL has no true/false: `in ()` matches nothing, `not in ()` everything.
        XCTAssertEqual(fmt(c(.constant(true))), "select * from T where objectId not in ()")
        XCTAssertEqual(fmt(Condition.and([a, c(.constant(false))])), "select * from T where a = 1 and objectId in ()")
    }

    func testLiteralsAndStrings() {
        let d = DateValue(millisecondsSince1970: 1_313_806_017_931)
        let list: [Term] = [v(1), v(-2), v(1.0), v(2.5e-7), v("it's \\ \n\u{1}"), v(nil), v(true),
                            v(.date(d)), v(.pointer(Pointer(className: "Post", objectId: "x"))), v(.bytes(base64: "aGk=")),
                            v(.file(FileReference(id: "f1"))), v(.file(FileReference(name: "a.png"))), v(.relation(className: "_User")),
                            v(.object(["b": 1, "a b": [1, 2]])), v(.typedObject(className: "Post", fields: ["title": "t"]))]
        XCTAssertEqual(fmt(c(.in("k", list, negated: false))),
                       #"select * from T where k in (1, -2, 1.0, 2.5e-07, 'it''s \\ \n\u0001', null, true, date('2011-08-20T02:06:57.931Z'), pointer('Post', 'x'), base64('aGk='), file('f1'), {__type: 'File', name: 'a.png'}, {__type: 'Relation', className: '_User'}, {'a b': [1, 2], b: 1}, {__type: 'Object', className: 'Post', title: 't'})"#)
        XCTAssertEqual(fmt(c(.compare("d", .lessThan, .currentTimestamp))), "select * from T where d < current_timestamp()")
        XCTAssertEqual(fmt(c(.compare("d", .lessThan, .relativeTime("in 1 day")))), "error: '$relativeTime' cannot be expressed in CQL")
    }

    func testRegexTextAndPlaceholders() {
        XCTAssertEqual(fmt(c(.regex("n", pattern: v(#"^a\d"#), options: "im"))), #"select * from T where n regexp '(?im)^a\\d'"#)
        XCTAssertEqual(fmt(c(.text("n", .equalsIgnoringCase, "Mo'rgan"))), #"select * from T where n regexp '(?i)^\\QMo''rgan\\E\\z'"#)
        XCTAssertEqual(fmt(c(.text("n", .wildcard, "Mo*"))), #"select * from T where n regexp '(?is)^\\QMo\\E.*\\z'"#)
        XCTAssertEqual(fmt(c(.regex("n", pattern: .placeholder(index: 0, range: nil), options: "i"))),
                       "error: regexp options ('i') on a pattern that is not a string constant cannot be expressed in CQL")
        let q = Query(className: "T", condition: Condition.and([c(.compare("a", .equal, .placeholder(index: 0, range: nil))),
                                                                 c(.compare("d", .lessThan, .call(.date, [.placeholder(index: 1, range: nil)], range: nil)))]),
                      skip: .placeholder(index: 2, range: nil), limit: .placeholder(index: 3, range: nil))
        XCTAssertEqual(fmt(q), "select * from T where a = ? and d < date(?) limit ?, ?")
        var swapped = q
        swapped.skip = .placeholder(index: 3, range: nil)
        swapped.limit = .placeholder(index: 2, range: nil)
        XCTAssertEqual(fmt(swapped), "error: the placeholders are not in text order (#1, #2, #4, #3), which CQL's positional '?' cannot express")
    }

    func testGeoAndSubqueries() {
        let p: Term = v(.geoPoint(GeoPoint(latitude: 39.9, longitude: 116.4)))
        XCTAssertEqual(fmt(c(.near("loc", point: p, min: Distance(v(500), .meters), max: Distance(v(1), .kilometers)))),
                       "select * from T where loc near geopoint(116.4, 39.9) min 0.5 km max 1 km")
        XCTAssertEqual(fmt(c(.near("loc", point: p, min: nil, max: Distance(v(0.1), .radians)))),
                       "select * from T where loc near geopoint(116.4, 39.9) max 0.1 radians")
        XCTAssertEqual(fmt(c(.withinBox("loc", southwest: p, northeast: p))),
                       "select * from T where loc within geopoint(116.4, 39.9) and geopoint(116.4, 39.9)")
        let sub = Query(className: "GameScore", condition: c(.compare("score", .greaterThan, v(80))), limit: v(3))
        XCTAssertEqual(fmt(c(.select("name", key: "name", query: sub, negated: true))),
                       "select * from T where name not in (select name from GameScore where score > 80 limit 3)")
        XCTAssertEqual(fmt(c(.inQuery("post", query: Query(className: "Post"), negated: false))),
                       "select * from T where post in (select * from Post)")
        XCTAssertEqual(fmt(c(.relatedTo(object: v(.pointer(Pointer(className: "Post", objectId: "1"))), key: "in"))),
                       "select * from T where related `in` to pointer('Post', '1')")
    }

    func testUnsupportedConstructs() {
        let cases: [(Condition, String)] = [
            (c(.elementMatch("a", c(.exists("b", true)))), "$elemMatch"),
            (c(.type("a", "string")), "$type"),
            (c(.modulo("a", divisor: v(2), remainder: v(0))), "$mod"),
            (c(.fullText("a", FullTextSearch(term: "x"))), "$text"),
            (c(.containedBy("a", [v(1)])), "$containedBy"),
            (c(.withinPolygon("a", [])), "$polygon"),
            (c(.withinCenterSphere("a", center: v(1), radius: v(1))), "$centerSphere"),
            (c(.geoIntersects("a", point: v(1))), "$geoIntersects"),
        ]
        for (cond, name) in cases {
            XCTAssertEqual(fmt(cond), "error: '\(name)' cannot be expressed in CQL")
        }
        XCTAssertEqual(fmt(Query(className: "T", keys: [SelectedKey("a", excluded: true)])), "error: the excluded key '-a' cannot be expressed in CQL")
        XCTAssertEqual(fmt(Query(className: "T", keys: [SelectedKey("a", alias: "b")])), "error: the key alias 'b' (of 'a') cannot be expressed in CQL")
        XCTAssertEqual(fmt(Query(className: "T", direct: ["x"])), "error: 'direct' cannot be expressed in CQL")
    }

    func testDocExample() throws {
        let q = try CQLParser.parse(#"SELECT * FROM GameScore WHERE score>80 AND (name='a' OR name="b") ORDER BY score DESC LIMIT 10"#)
        XCTAssertEqual(try CQLFormatter.format(q), "select * from GameScore where score > 80 and (name = 'a' or name = 'b') limit 10 order by -score")
    }
}
