import XCTest
@testable import CQLKit

/// AST-built cases for constructs no CQL text produces, plus the merging and
/// negation rules, for each dialect. Expectations are hand-written.
final class WhereJSONEmitterTests: XCTestCase {
    private func c(_ p: CQLKit.Predicate, _ r: SourceRange? = nil) -> Condition { Condition(p, range: r) }
    private func v(_ x: Value) -> Term { .value(x) }
    private let geo = { (lng: Double, lat: Double) -> Term in .value(.geoPoint(GeoPoint(latitude: lat, longitude: lng))) }

    /// The compact JSON, or `error: message` (kind in brackets when not unsupported).
    private func out(_ cond: Condition, _ d: WhereJSONDialect) -> String {
        do { return JSONWriter.string(try WhereJSONEmitter.emitCondition(cond, dialect: d)) }
        catch { return "error: " + (error.kind == .unsupported ? "" : "[\(error.kind)] ") + error.message }
    }

    private func check(_ cond: Condition, leancloud: String, parse: String, mongo: String, line: UInt = #line) {
        XCTAssertEqual(out(cond, .leancloud), leancloud, "leancloud", line: line)
        XCTAssertEqual(out(cond, .parse), parse, "parse", line: line)
        XCTAssertEqual(out(cond, .mongo), mongo, "mongo", line: line)
    }

    private func check(_ cond: Condition, all: String, line: UInt = #line) {
        check(cond, leancloud: all, parse: all, mongo: all, line: line)
    }

    private func regex(_ k: String, _ p: String) -> Condition { c(.regex(FieldPath(dotted: k), pattern: v(.string(p)), options: "")) }

    // MARK: Merging

    func testDistinctKeysAndOperatorsMerge() {
        let cond = Condition.and([
            c(.exists("name", true)),
            c(.compare("score", .greaterThan, v(80))),
            c(.compare("score", .lessThanOrEqual, v(100))),
        ])
        check(cond, all: #"{"name":{"$exists":true},"score":{"$gt":80,"$lte":100}}"#)
    }

    func testEqualityWithOperatorOnOneKey() {
        let cond = Condition.and([c(.compare("a", .equal, v(1))), c(.compare("a", .greaterThan, v(0)))])
        check(cond, leancloud: #"{"$and":[{"a":1},{"a":{"$gt":0}}]}"#,
              parse: #"{"a":{"$eq":1,"$gt":0}}"#, mongo: #"{"a":{"$eq":1,"$gt":0}}"#)
    }

    func testTwoOrsGoToAnd() {
        let or1 = Condition.or([c(.compare("a", .equal, v(1))), c(.compare("b", .equal, v(2)))])
        let or2 = Condition.or([c(.compare("c", .equal, v(3))), c(.compare("d", .equal, v(4)))])
        let cond = Condition.and([or1, or2, c(.compare("e", .equal, v(5)))])
        check(cond, all: #"{"$and":[{"$or":[{"a":1},{"b":2}]},{"$or":[{"c":3},{"d":4}]}],"e":5}"#)
    }

    func testSameOperatorTwiceCollides() {
        let cond = Condition.and([regex("a", "x"), regex("a", "y"), c(.compare("a", .lessThan, v("z")))])
        check(cond, all: #"{"$and":[{"a":{"$lt":"z","$regex":"x"}},{"a":{"$regex":"y"}}]}"#)
    }

    /// More keys than ConditionMerger searches linearly: the keys after the
    /// ninth merge and collide exactly as the first ones do.
    func testManyKeysMergeLikeFew() {
        var items = (0..<12).map { c(.compare(FieldPath(["k\($0)"]), .equal, v(.int(Int64($0))))) }
        items.append(c(.compare("k10", .greaterThan, v(0))))
        items.append(c(.compare("k1", .greaterThan, v(0))))
        items.append(regex("k11", "x"))
        items.append(regex("k11", "y"))
        let equal = (0..<12).filter { $0 != 1 && $0 != 10 && $0 != 11 }.map { "\"k\($0)\":\($0)" }
        let parse = "{" + (equal + [#""k1":{"$eq":1,"$gt":0}"#, #""k10":{"$eq":10,"$gt":0}"#]).sorted().joined(separator: ",")
        XCTAssertEqual(out(Condition.and(items), .parse),
                       #"{"$and":[{"k11":{"$eq":11,"$regex":"x"}},{"k11":{"$regex":"y"}}],"#
                       + parse.dropFirst() + "}")
    }

    func testConstants() {
        check(c(.constant(true)), all: "{}")
        check(c(.constant(false)), all: #"{"objectId":{"$in":[]}}"#)
        check(c(.not(c(.constant(false)))), all: "{}")
        check(Condition(.or([])), all: #"{"objectId":{"$in":[]}}"#)
    }

    // MARK: Negation

    func testExactNegations() {
        check(c(.not(c(.compare("a", .equal, v(1))))), all: #"{"a":{"$ne":1}}"#)
        check(c(.not(c(.in("a", [v(1), v(2)], negated: false)))), all: #"{"a":{"$nin":[1,2]}}"#)
        check(c(.not(c(.exists("a", true)))), all: #"{"a":{"$exists":false}}"#)
        check(c(.not(c(.not(regex("a", "x"))))), all: #"{"a":{"$regex":"x"}}"#)
    }

    func testGeneralNegationPerDialect() {
        let cond = c(.not(regex("name", "x")), SourceRange(3, 9))
        check(cond, leancloud: "error: 'not regexp' cannot be expressed in the leancloud where-JSON dialect",
              parse: #"{"$nor":[{"name":{"$regex":"x"}}]}"#, mongo: #"{"name":{"$not":{"$regex":"x"}}}"#)
        do {
            _ = try WhereJSONEmitter.emitCondition(cond, dialect: .leancloud)
            XCTFail("expected an error")
        } catch {
            XCTAssertEqual(error.range, SourceRange(3, 9))
        }
        let lt = c(.not(c(.compare("a", .lessThan, v(5)))))
        check(lt, leancloud: "error: 'not <' cannot be expressed in the leancloud where-JSON dialect",
              parse: #"{"$nor":[{"a":{"$lt":5}}]}"#, mongo: #"{"a":{"$not":{"$lt":5}}}"#)
    }

    func testDeMorgan() {
        let notAnd = c(.not(Condition.and([c(.compare("a", .equal, v(1))), regex("b", "x")])))
        check(notAnd, leancloud: "error: 'not regexp' cannot be expressed in the leancloud where-JSON dialect",
              parse: #"{"$or":[{"a":{"$ne":1}},{"$nor":[{"b":{"$regex":"x"}}]}]}"#,
              mongo: #"{"$or":[{"a":{"$ne":1}},{"b":{"$not":{"$regex":"x"}}}]}"#)
        let notOr = c(.not(Condition.or([regex("a", "x"), regex("b", "y")])))
        check(notOr, leancloud: "error: 'not regexp' cannot be expressed in the leancloud where-JSON dialect",
              parse: #"{"$nor":[{"a":{"$regex":"x"}},{"b":{"$regex":"y"}}]}"#,
              mongo: #"{"a":{"$not":{"$regex":"x"}},"b":{"$not":{"$regex":"y"}}}"#)
        let exact = c(.not(Condition.or([c(.compare("a", .equal, v(1))), c(.exists("b", false))])))
        check(exact, all: #"{"a":{"$ne":1},"b":{"$exists":true}}"#)
    }

    func testMongoNegationOfMultiKeyConditionUsesNor() {
        let cond = c(.not(c(.elementMatch("r", Condition.and([c(.compare("", .greaterThan, v(1))), c(.compare("", .lessThan, v(5)))])))))
        XCTAssertEqual(out(cond, .mongo), #"{"r":{"$not":{"$elemMatch":{"$gt":1,"$lt":5}}}}"#)
        let sub = Query(className: "Post", condition: c(.exists("image", true)))
        let notSelect = c(.not(c(.select("a", key: "b", query: sub, negated: false))))
        XCTAssertEqual(out(notSelect, .parse), #"{"a":{"$dontSelect":{"key":"b","query":{"className":"Post","where":{"image":{"$exists":true}}}}}}"#)
    }

    // MARK: Usergrid text matches

    func testTextMatches() {
        check(c(.text("name", .equalsIgnoringCase, "Morgan")), all: #"{"name":{"$options":"i","$regex":"^\\QMorgan\\E\\z"}}"#)
        check(c(.text("name", .wildcard, "Mo*n*")), all: #"{"name":{"$options":"is","$regex":"^\\QMo\\E.*\\Qn\\E.*\\z"}}"#)
        check(c(.text("t", .word, "blue")), all: #"{"t":{"$options":"i","$regex":"(?<![\\p{L}\\p{N}])\\Qblue\\E(?![\\p{L}\\p{N}])"}}"#)
        check(c(.text("t", .wordPrefix, "bl")), all: #"{"t":{"$options":"i","$regex":"(?<![\\p{L}\\p{N}])\\Qbl\\E"}}"#)
        check(c(.not(c(.text("t", .word, "x")))),
              leancloud: "error: 'not' of a case-insensitive match cannot be expressed in the leancloud where-JSON dialect",
              parse: #"{"$nor":[{"t":{"$options":"i","$regex":"(?<![\\p{L}\\p{N}])\\Qx\\E(?![\\p{L}\\p{N}])"}}]}"#,
              mongo: #"{"t":{"$not":{"$options":"i","$regex":"(?<![\\p{L}\\p{N}])\\Qx\\E(?![\\p{L}\\p{N}])"}}}"#)
    }

    func testTextQuoting() {
        XCTAssertEqual(TextRegex.quote(#"a\Eb"#), #"\Qa\E\\E\Qb\E"#)
        XCTAssertEqual(TextRegex.quote(#"a.b\"#), #"\Qa.b\\E"#)
        XCTAssertEqual(TextRegex.regex(.wildcard, "*x")?.pattern, #"^.*\Qx\E\z"#)
        XCTAssertEqual(TextRegex.regex(.equalsIgnoringCase, "")?.pattern, #"^\Q\E\z"#)
    }

    func testLikePatterns() {
        XCTAssertEqual(LikePattern.regex("dennis%"), #"^dennis.*\z"#)
        XCTAssertEqual(LikePattern.regex("a.b_c"), #"^a\.b.c\z"#)
        XCTAssertEqual(LikePattern.regex("[ab]%[^0-9]"), #"^[ab].*[^0-9]\z"#)
        XCTAssertEqual(LikePattern.regex(#"(x)+?{1}|^$\"#), #"^\(x\)\+\?\{1\}\|\^\$\\\z"#)
        XCTAssertEqual(LikePattern.regex("[abc"), #"^\[abc\z"#)
        XCTAssertEqual(LikePattern.regex("[]x]"), #"^[\]x]\z"#)
        XCTAssertEqual(LikePattern.regex(#"[\[%_]"#), #"^[\\\[%_]\z"#)
        XCTAssertEqual(LikePattern.regex("é_"), #"^é.\z"#)
    }

    // MARK: Parse- and Mongo-only operators

    func testPolygonCenterSphereIntersects() {
        let poly = c(.withinPolygon("loc", [geo(0, 0), geo(1, 0), geo(0, 1)]))
        check(poly, leancloud: "error: '$polygon' cannot be expressed in the leancloud where-JSON dialect",
              parse: #"{"loc":{"$geoWithin":{"$polygon":[{"__type":"GeoPoint","latitude":0.0,"longitude":0.0},{"__type":"GeoPoint","latitude":0.0,"longitude":1.0},{"__type":"GeoPoint","latitude":1.0,"longitude":0.0}]}}}"#,
              mongo: #"{"loc":{"$geoWithin":{"$polygon":[[0.0,0.0],[1.0,0.0],[0.0,1.0]]}}}"#)
        check(c(.withinPolygon("loc", [geo(0, 0), geo(1, 0)])), leancloud: "error: '$polygon' cannot be expressed in the leancloud where-JSON dialect",
              parse: "error: [invalidValue] '$polygon' needs at least 3 points, found 2",
              mongo: "error: [invalidValue] '$polygon' needs at least 3 points, found 2")
        let sphere = c(.withinCenterSphere("loc", center: geo(116.4, 39.9), radius: v(0.1)))
        check(sphere, leancloud: "error: '$centerSphere' cannot be expressed in the leancloud where-JSON dialect",
              parse: #"{"loc":{"$geoWithin":{"$centerSphere":[[116.4,39.9],0.1]}}}"#,
              mongo: #"{"loc":{"$geoWithin":{"$centerSphere":[[116.4,39.9],0.1]}}}"#)
        let inter = c(.geoIntersects("area", point: geo(116.4, 39.9)))
        check(inter, leancloud: "error: '$geoIntersects' cannot be expressed in the leancloud where-JSON dialect",
              parse: #"{"area":{"$geoIntersects":{"$point":{"__type":"GeoPoint","latitude":39.9,"longitude":116.4}}}}"#,
              mongo: #"{"area":{"$geoIntersects":{"$geometry":{"coordinates":[116.4,39.9],"type":"Point"}}}}"#)
    }

    func testNearAndBox() {
        let near = c(.near("loc", point: geo(116.4, 39.9), min: Distance(v(500), .meters), max: Distance(v(2), .miles)))
        check(near, leancloud: #"{"loc":{"$maxDistanceInMiles":2,"$minDistanceInKilometers":0.5,"$nearSphere":{"__type":"GeoPoint","latitude":39.9,"longitude":116.4}}}"#,
              parse: #"{"loc":{"$maxDistanceInMiles":2,"$minDistanceInKilometers":0.5,"$nearSphere":{"__type":"GeoPoint","latitude":39.9,"longitude":116.4}}}"#,
              mongo: #"{"loc":{"$maxDistance":0.000505203597049611,"$minDistance":7.848061528802385e-05,"$nearSphere":[116.4,39.9]}}"#)
        let radians = c(.near("loc", point: geo(1, 2), min: nil, max: Distance(v(1), .radians)))
        check(radians, leancloud: #"{"loc":{"$maxDistanceInRadians":1,"$nearSphere":{"__type":"GeoPoint","latitude":2.0,"longitude":1.0}}}"#,
              parse: #"{"loc":{"$maxDistanceInRadians":1,"$nearSphere":{"__type":"GeoPoint","latitude":2.0,"longitude":1.0}}}"#,
              mongo: #"{"loc":{"$maxDistance":1,"$nearSphere":[1.0,2.0]}}"#)
        let inOr = Condition.or([radians, c(.exists("x", true))])
        check(inOr, leancloud: "error: 'near' inside 'or' cannot be expressed in the leancloud where-JSON dialect",
              parse: "error: 'near' inside 'or' cannot be expressed in the parse where-JSON dialect",
              mongo: "error: 'near' inside 'or' cannot be expressed in the mongo where-JSON dialect")
        check(c(.not(radians)), leancloud: "error: 'not near' cannot be expressed in the leancloud where-JSON dialect",
              parse: "error: 'near' inside 'not' cannot be expressed in the parse where-JSON dialect",
              mongo: "error: 'near' inside 'not' cannot be expressed in the mongo where-JSON dialect")
        let box = c(.withinBox("loc", southwest: geo(116.33, 39.97), northeast: geo(116.37, 39.99)))
        check(box, leancloud: #"{"loc":{"$within":{"$box":[{"__type":"GeoPoint","latitude":39.97,"longitude":116.33},{"__type":"GeoPoint","latitude":39.99,"longitude":116.37}]}}}"#,
              parse: #"{"loc":{"$within":{"$box":[{"__type":"GeoPoint","latitude":39.97,"longitude":116.33},{"__type":"GeoPoint","latitude":39.99,"longitude":116.37}]}}}"#,
              mongo: #"{"loc":{"$geoWithin":{"$box":[[116.33,39.97],[116.37,39.99]]}}}"#)
    }

    func testElemMatchTypeModFullTextContainedBy() {
        let em = c(.elementMatch("results", Condition.and([c(.compare("", .greaterThanOrEqual, v(80))), c(.compare("", .lessThan, v(85)))])))
        check(em, leancloud: "error: '$elemMatch' cannot be expressed in the leancloud where-JSON dialect",
              parse: "error: '$elemMatch' cannot be expressed in the parse where-JSON dialect",
              mongo: #"{"results":{"$elemMatch":{"$gte":80,"$lt":85}}}"#)
        let fields = c(.elementMatch("items", Condition.and([c(.compare("product", .equal, v("xyz"))), c(.compare("score", .greaterThanOrEqual, v(8)))])))
        XCTAssertEqual(out(fields, .mongo), #"{"items":{"$elemMatch":{"product":"xyz","score":{"$gte":8}}}}"#)
        XCTAssertEqual(out(c(.elementMatch("a", c(.compare("", .equal, v(3))))), .mongo), #"{"a":{"$elemMatch":{"$eq":3}}}"#)
        XCTAssertEqual(out(c(.compare("", .equal, v(3))), .mongo), "error: an empty key path cannot be expressed in the mongo where-JSON dialect")

        check(c(.type("a", "string")), leancloud: "error: '$type' cannot be expressed in the leancloud where-JSON dialect",
              parse: "error: '$type' cannot be expressed in the parse where-JSON dialect", mongo: #"{"a":{"$type":"string"}}"#)
        check(c(.modulo("n", divisor: v(4), remainder: v(0))), leancloud: "error: '$mod' cannot be expressed in the leancloud where-JSON dialect",
              parse: "error: '$mod' cannot be expressed in the parse where-JSON dialect", mongo: #"{"n":{"$mod":[4,0]}}"#)
        let text = c(.fullText("body", FullTextSearch(term: "coffee", language: "en", caseSensitive: false)))
        check(text, leancloud: "error: '$text' cannot be expressed in the leancloud where-JSON dialect",
              parse: #"{"body":{"$text":{"$search":{"$caseSensitive":false,"$language":"en","$term":"coffee"}}}}"#,
              mongo: "error: '$text' cannot be expressed in the mongo where-JSON dialect")
        let contained = c(.containedBy("tags", [v("a"), v("b")]))
        check(contained, leancloud: "error: '$containedBy' cannot be expressed in the leancloud where-JSON dialect",
              parse: #"{"tags":{"$containedBy":["a","b"]}}"#,
              mongo: "error: '$containedBy' cannot be expressed in the mongo where-JSON dialect")
    }

    func testRelativeTime() {
        let lt = c(.compare("at", .lessThan, .relativeTime("in 2 days")))
        check(lt, leancloud: "error: [binding] the relative time 'in 2 days' is not bound; bind the query with a time ('now') before emitting leancloud where-JSON",
              parse: #"{"at":{"$lt":{"$relativeTime":"in 2 days"}}}"#,
              mongo: "error: [binding] the relative time 'in 2 days' is not bound; bind the query with a time ('now') before emitting mongo where-JSON")
        XCTAssertEqual(out(c(.compare("at", .equal, .relativeTime("now"))), .parse),
                       "error: [binding] the relative time 'now' is not bound; bind the query with a time ('now') before emitting parse where-JSON")
    }

    // MARK: Values and binding

    func testTypedValuesAndMongoDates() {
        let d = DateValue(millisecondsSince1970: 1_313_806_017_931)
        let cond = Condition.and([c(.compare("createdAt", .lessThan, v(.date(d)))),
                                  c(.compare("post", .equal, v(.pointer(Pointer(className: "Post", objectId: "p1")))))])
        check(cond, leancloud: #"{"createdAt":{"$lt":{"__type":"Date","iso":"2011-08-20T02:06:57.931Z"}},"post":{"__type":"Pointer","className":"Post","objectId":"p1"}}"#,
              parse: #"{"createdAt":{"$lt":{"__type":"Date","iso":"2011-08-20T02:06:57.931Z"}},"post":{"__type":"Pointer","className":"Post","objectId":"p1"}}"#,
              mongo: #"{"createdAt":{"$lt":{"$date":"2011-08-20T02:06:57.931Z"}},"post":{"__type":"Pointer","className":"Post","objectId":"p1"}}"#)
        let dollarObject = c(.compare("o", .equal, v(.object(["$gt": 1]))))
        check(dollarObject, leancloud: "error: equality with an object whose keys start with '$' cannot be expressed in the leancloud where-JSON dialect",
              parse: #"{"o":{"$eq":{"$gt":1}}}"#, mongo: #"{"o":{"$eq":{"$gt":1}}}"#)
    }

    func testUnboundTermsAreBindingErrors() {
        let cond = c(.compare("a", .equal, .placeholder(index: 1, range: SourceRange(20, 21))), SourceRange(16, 21))
        XCTAssertThrowsError(try WhereJSONEmitter.emitCondition(cond, dialect: .parse)) { e in
            let e = e as! QueryError
            XCTAssertEqual(e.kind, .binding)
            XCTAssertEqual(e.message, "the 2nd '?' has no value; bind the query's parameters before emitting where-JSON")
            XCTAssertEqual(e.range, SourceRange(20, 21))
        }
        let call = c(.compare("d", .lessThan, .call(.date, [.placeholder(index: 0, range: SourceRange(9, 10))], range: SourceRange(4, 11))))
        XCTAssertEqual(out(call, .leancloud), "error: [binding] the 1st '?' has no value; bind the query's parameters before emitting where-JSON")
        XCTAssertEqual(out(c(.compare("d", .lessThan, .currentTimestamp)), .mongo),
                       "error: [binding] current_timestamp() is not bound; bind the query with a time ('now') before emitting where-JSON")
        let q = Query(className: "T", limit: .placeholder(index: 0, range: nil))
        XCTAssertThrowsError(try WhereJSONEmitter.emit(q, dialect: .leancloud)) { e in
            XCTAssertEqual((e as! QueryError).kind, .binding)
        }
    }

    func testKeyPathsThatCannotBeWritten() {
        XCTAssertEqual(out(c(.exists(FieldPath(["a.b"]), true)), .parse),
                       "error: the key 'a.b' has a component containing '.', which the parse where-JSON dialect cannot express")
        XCTAssertEqual(out(c(.exists("$where", true)), .mongo),
                       "error: the key '$where' has a component starting with '$', which the mongo where-JSON dialect cannot express")
    }

    func testDepthLimit() {
        var cond = c(.exists("a", true))
        for _ in 0..<1000 { cond = Condition(.not(Condition(.not(cond)))) }
        XCTAssertThrowsError(try WhereJSONEmitter.emitCondition(cond, dialect: .parse)) { e in
            XCTAssertEqual((e as! QueryError).kind, .limit)
        }
    }

    // MARK: Request object

    func testRequestObject() throws {
        var q = Query(className: "Post", keys: [SelectedKey("title"), SelectedKey("author", excluded: true)],
                      includes: ["author", "author.team"], count: .withResults,
                      condition: c(.compare("score", .greaterThan, v(1))),
                      order: [OrderKey("score", descending: true), OrderKey("name")], skip: v(20), limit: v(10))
        for d in WhereJSONDialect.allCases {
            XCTAssertEqual(JSONWriter.string(try WhereJSONEmitter.emit(q, dialect: d)),
                           #"{"className":"Post","count":1,"include":"author,author.team","keys":"title,-author","limit":10,"order":"-score,name","skip":20,"where":{"score":{"$gt":1}}}"#)
        }
        q = Query(className: "", count: .only, limit: v(5))
        XCTAssertEqual(JSONWriter.string(try WhereJSONEmitter.emit(q, dialect: .mongo)), #"{"count":1,"limit":0}"#)
        q = Query(className: "T", keys: [SelectedKey("a", alias: "b")])
        XCTAssertThrowsError(try WhereJSONEmitter.emit(q, dialect: .parse)) { e in
            XCTAssertEqual((e as! QueryError).message, "the key alias 'b' (of 'a') cannot be expressed in the parse where-JSON dialect")
        }
        q = Query(className: "T", direct: ["x"])
        XCTAssertThrowsError(try WhereJSONEmitter.emit(q, dialect: .leancloud)) { e in
            XCTAssertEqual((e as! QueryError).message, "'direct' cannot be expressed in the leancloud where-JSON dialect")
        }
    }

    func testSubqueriesAndRelations() throws {
        let sub = Query(className: "GameScore", condition: c(.compare("score", .greaterThan, v(80))), order: [OrderKey("score", descending: true)], limit: v(5))
        let sel = c(.select("name", key: "name", query: sub, negated: false))
        check(sel, leancloud: #"{"name":{"$select":{"key":"name","query":{"className":"GameScore","limit":5,"order":"-score","where":{"score":{"$gt":80}}}}}}"#,
              parse: #"{"name":{"$select":{"key":"name","query":{"className":"GameScore","limit":5,"order":"-score","where":{"score":{"$gt":80}}}}}}"#,
              mongo: "error: 'in (select ...)' cannot be expressed in the mongo where-JSON dialect")
        let inq = c(.inQuery("post", query: Query(className: "Post"), negated: true))
        check(inq, leancloud: #"{"post":{"$notInQuery":{"className":"Post"}}}"#, parse: #"{"post":{"$notInQuery":{"className":"Post"}}}"#,
              mongo: "error: 'not in (select * ...)' cannot be expressed in the mongo where-JSON dialect")
        let rel = c(.relatedTo(object: v(.pointer(Pointer(className: "Post", objectId: "p"))), key: "likes"))
        check(Condition.and([rel, c(.exists("name", true))]),
              leancloud: #"{"$relatedTo":{"key":"likes","object":{"__type":"Pointer","className":"Post","objectId":"p"}},"name":{"$exists":true}}"#,
              parse: #"{"$relatedTo":{"key":"likes","object":{"__type":"Pointer","className":"Post","objectId":"p"}},"name":{"$exists":true}}"#,
              mongo: "error: 'related to' cannot be expressed in the mongo where-JSON dialect")
        XCTAssertEqual(out(Condition.or([rel, c(.exists("name", true))]), .parse),
                       "error: 'related to' inside 'or' cannot be expressed in the parse where-JSON dialect")
    }

    // MARK: Doc examples

    func testDocExamples() throws {
        let q = try CQLParser.parse("select * from GameScore where name is exists and score > 80 and score <= 100 order by -score limit 10")
        XCTAssertEqual(JSONWriter.string(try WhereJSONEmitter.emit(q, dialect: .leancloud)),
                       #"{"className":"GameScore","limit":10,"order":"-score","where":{"name":{"$exists":true},"score":{"$gt":80,"$lte":100}}}"#)
        let c = Condition.or([Condition(.compare("a", .equal, .value(1))), Condition(.exists("b", false))])
        XCTAssertEqual(JSONWriter.string(try WhereJSONEmitter.emitCondition(c, dialect: .parse)), #"{"$or":[{"a":1},{"b":{"$exists":false}}]}"#)
        let n = try CQLParser.parse("select * from T where not (name regexp 'x')")
        XCTAssertEqual(JSONWriter.string(try WhereJSONEmitter.emit(n, dialect: .parse)), #"{"className":"T","where":{"$nor":[{"name":{"$regex":"x"}}]}}"#)
        XCTAssertEqual(JSONWriter.string(try WhereJSONEmitter.emit(n, dialect: .mongo)), #"{"className":"T","where":{"name":{"$not":{"$regex":"x"}}}}"#)
        XCTAssertThrowsError(try WhereJSONEmitter.emit(n, dialect: .leancloud)) { e in
            XCTAssertEqual((e as? QueryError)?.shortDescription, "1:23: 'not regexp' cannot be expressed in the leancloud where-JSON dialect")
        }
    }
}

extension WhereJSONEmitterTests {
    func testMongoObjectIdAsId() throws {
        let q = try CQLParser.parse("select objectId, name from T where objectId in ('a', 'b') and post.objectId = 'x' order by -objectId")
        XCTAssertEqual(JSONWriter.string(try WhereJSONEmitter.emit(q, dialect: .mongo, objectIdAsMongoId: true)),
                       #"{"className":"T","keys":"_id,name","order":"-_id","where":{"_id":{"$in":["a","b"]},"post.objectId":"x"}}"#)
        // Off by default, and only the mongo dialect has it.
        XCTAssertEqual(JSONWriter.string(try WhereJSONEmitter.emit(q, dialect: .mongo)),
                       #"{"className":"T","keys":"objectId,name","order":"-objectId","where":{"objectId":{"$in":["a","b"]},"post.objectId":"x"}}"#)
        XCTAssertEqual(JSONWriter.string(try WhereJSONEmitter.emit(q, dialect: .parse, objectIdAsMongoId: true)),
                       #"{"className":"T","keys":"objectId,name","order":"-objectId","where":{"objectId":{"$in":["a","b"]},"post.objectId":"x"}}"#)
    }
}
