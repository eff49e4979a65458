import XCTest
@testable import CQLKit

// XCTest re-exports Foundation, whose `Predicate` would shadow the AST's.
private typealias Predicate = CQLKit.Predicate

#if canImport(FoundationEssentials)
import FoundationEssentials
#elseif canImport(Foundation)
import Foundation
#endif

/// Each LCQuery call and the AST it yields.
final class LCQueryBuilderTests: XCTestCase {
    private func predicate(_ key: String, _ c: LCQueryConstraint) throws -> Predicate? {
        try LCQuery("Todo").where(key, c).build().condition?.predicate
    }

    private func buildError(_ q: LCQuery) -> QueryError? {
        do {
            _ = try q.build()
            return nil
        } catch {
            return error
        }
    }

    func testEmptyQuery() throws {
        XCTAssertEqual(try LCQuery("Todo").build(), Query(className: "Todo"))
        XCTAssertEqual(try LCQuery("").build().className, "")
    }

    func testComparisons() throws {
        let cases: [(LCQueryConstraint, ComparisonOperator, Value)] = [
            (.equalTo("x"), .equal, .string("x")),
            (.notEqualTo(1), .notEqual, .int(1)),
            (.lessThan(2.5), .lessThan, .double(2.5)),
            (.lessThanOrEqualTo(Int64(9)), .lessThanOrEqual, .int(9)),
            (.greaterThan(true), .greaterThan, .bool(true)),
            (.greaterThanOrEqualTo(3), .greaterThanOrEqual, .int(3)),
        ]
        for (c, op, v) in cases {
            XCTAssertEqual(try predicate("priority", c), .compare("priority", op, .value(v)))
        }
    }

    func testValueConversions() throws {
        XCTAssertEqual(try predicate("a", .equalTo(Value.null)), .compare("a", .equal, .value(.null)))
        XCTAssertEqual(try predicate("a", .equalTo([1, 2])), .compare("a", .equal, .value([1, 2])))
        XCTAssertEqual(try predicate("a", .equalTo(["k": "v"])), .compare("a", .equal, .value(.object(["k": "v"]))))
        let missing: Int? = nil
        XCTAssertEqual(try predicate("a", .equalTo(missing)), .compare("a", .equal, .value(.null)))
        XCTAssertEqual(try predicate("a", .equalTo(Float(0.5))), .compare("a", .equal, .value(.double(0.5))))
        XCTAssertEqual(try predicate("a", .equalTo(UInt8(7))), .compare("a", .equal, .value(.int(7))))
        let post = Pointer(className: "Post", objectId: "p1")
        XCTAssertEqual(try predicate("post", .equalTo(post)), .compare("post", .equal, .value(.pointer(post))))
        let at = DateValue(millisecondsSince1970: 1_434_909_772_249)
        XCTAssertEqual(try predicate("at", .lessThan(at)), .compare("at", .lessThan, .value(.date(at))))
        let file = FileReference(id: "f1")
        XCTAssertEqual(try predicate("f", .equalTo(file)), .compare("f", .equal, .value(.file(file))))
    }

    func testFoundationDateIsRoundedToMilliseconds() throws {
        // 1434909772.249 * 1000 is 1434909772248.9998 in binary floating point.
        let date = Date(timeIntervalSince1970: 1_434_909_772.249)
        XCTAssertEqual(
            try predicate("createdAt", .lessThan(date)),
            .compare("createdAt", .lessThan, .value(.date(DateValue(millisecondsSince1970: 1_434_909_772_249))))
        )
        let far = Date(timeIntervalSince1970: 1e12)
        XCTAssertEqual(
            buildError(LCQuery("T").where("at", .equalTo(far)))?.message,
            "equalTo on key 'at': the date 1000000000000.0 seconds since 1970 is outside the years 0000...9999"
        )
    }

    func testUnsignedOverflowIsAnError() {
        XCTAssertEqual(
            buildError(LCQuery("T").where("n", .equalTo(UInt64.max)))?.message,
            "equalTo on key 'n': the integer 18446744073709551615 does not fit in 64 bits"
        )
    }

    func testNonFiniteDoublesAreErrors() {
        let e = buildError(LCQuery("T").where("n", .containedIn([1, Double.nan])))
        XCTAssertEqual(e?.kind, .invalidValue)
        XCTAssertEqual(e?.message, "containedIn on key 'n': nan is not a finite number")
        XCTAssertEqual(
            buildError(LCQuery("T").where("n", .equalTo([Value.double(.infinity)])))?.message,
            "equalTo on key 'n': inf is not a finite number"
        )
    }

    func testLists() throws {
        XCTAssertEqual(try predicate("tags", .containedIn(["a", 1])), .in("tags", [.value("a"), .value(1)], negated: false))
        XCTAssertEqual(try predicate("tags", .notContainedIn(["a"])), .in("tags", [.value("a")], negated: true))
        XCTAssertEqual(try predicate("tags", .containedAllIn([1, 2])), .all("tags", [.value(1), .value(2)]))
        XCTAssertEqual(try predicate("tags", .containedIn([])), .in("tags", [], negated: false))
        XCTAssertEqual(try predicate("tags", .equalToSize(2)), .size("tags", .value(2)))
        XCTAssertEqual(
            buildError(LCQuery("T").where("tags", .equalToSize(-1)))?.message,
            "equalToSize on key 'tags': the size must not be negative, found -1"
        )
    }

    func testExistence() throws {
        XCTAssertEqual(try predicate("name", .existed), .exists("name", true))
        XCTAssertEqual(try predicate("name", .notExisted), .exists("name", false))
    }

    func testStringConstraintsQuoteTheirText() throws {
        XCTAssertEqual(try predicate("t", .prefixedBy("a.b")), .regex("t", pattern: .value(#"^\Qa.b\E"#), options: ""))
        XCTAssertEqual(try predicate("t", .suffixedBy("(x)")), .regex("t", pattern: .value(#"\Q(x)\E$"#), options: ""))
        XCTAssertEqual(try predicate("t", .matchedSubstring("*")), .regex("t", pattern: .value(#"\Q*\E"#), options: ""))
        // A `\E` in the text must not end the quote.
        XCTAssertEqual(
            try predicate("t", .matchedSubstring(#"a\Eb"#)),
            .regex("t", pattern: .value(#"\Qa\E\\E\Qb\E"#), options: "")
        )
        XCTAssertEqual(
            try predicate("t", .prefixedBy(#"x\\E"#)),
            .regex("t", pattern: .value(#"^\Qx\\E\\E\Q\E"#), options: "")
        )
        XCTAssertEqual(try predicate("t", .prefixedBy("")), .regex("t", pattern: .value(#"^\Q\E"#), options: ""))
        XCTAssertEqual(try predicate("t", .prefixedBy("é")), .regex("t", pattern: .value(#"^\Qé\E"#), options: ""))
    }

    func testRegularExpressions() throws {
        XCTAssertEqual(try predicate("t", .matchedRegularExpression("^a.*")), .regex("t", pattern: .value("^a.*"), options: ""))
        XCTAssertEqual(
            try predicate("t", .matchedRegularExpression("^a", option: "ixms")),
            .regex("t", pattern: .value("^a"), options: "ixms")
        )
        let e = buildError(LCQuery("T").where("t", .matchedRegularExpression("a", option: "ig")))
        XCTAssertEqual(e?.kind, .pattern)
        XCTAssertEqual(e?.message, #"matchedRegularExpression on key 't': invalid regex option 'g' in "ig": only i, m, x and s are allowed"#)
    }

    func testSubqueries() throws {
        let posts = LCQuery("Post").where("image", .existed).limit(5)
        let sub = Query(className: "Post", condition: Condition(.exists("image", true)), limit: .value(5))
        XCTAssertEqual(try predicate("post", .matchedQuery(posts)), .inQuery("post", query: sub, negated: false))
        XCTAssertEqual(try predicate("post", .notMatchedQuery(posts)), .inQuery("post", query: sub, negated: true))
        XCTAssertEqual(
            try predicate("name", .matchedQueryAndKey(query: posts, key: "author.name")),
            .select("name", key: "author.name", query: sub, negated: false)
        )
        XCTAssertEqual(
            try predicate("name", .notMatchedQueryAndKey(query: posts, key: "title")),
            .select("name", key: "title", query: sub, negated: true)
        )
        let post = Pointer(className: "Post", objectId: "51e3a359e4b015ead4d95ddc")
        XCTAssertEqual(try predicate("likes", .relatedTo(post)), .relatedTo(object: .value(.pointer(post)), key: "likes"))
    }

    func testSubqueryErrorsPropagate() {
        let bad = LCQuery("Post").where("n", .equalTo(Double.nan))
        XCTAssertEqual(
            buildError(LCQuery("T").where("post", .matchedQuery(bad)))?.message,
            "matchedQuery on key 'post': equalTo on key 'n': nan is not a finite number"
        )
    }

    func testGeo() throws {
        let p = GeoPoint(latitude: 39.9, longitude: 116.4)
        XCTAssertEqual(
            try predicate("location", .locatedNear(p)),
            .near("location", point: .value(.geoPoint(p)), min: nil, max: nil)
        )
        XCTAssertEqual(
            try predicate("location", .locatedNear(p, within: .kilometers(1))),
            .near("location", point: .value(.geoPoint(p)), min: nil, max: Distance(.value(1), .kilometers))
        )
        XCTAssertEqual(
            try predicate("location", .locatedNear(p, minimal: .miles(0.5), maximal: .radians(1.5))),
            .near("location", point: .value(.geoPoint(p)), min: Distance(.value(0.5), .miles), max: Distance(.value(1.5), .radians))
        )
        let sw = GeoPoint(latitude: 39.97, longitude: 116.33), ne = GeoPoint(latitude: 39.99, longitude: 116.37)
        XCTAssertEqual(
            try predicate("location", .locatedWithin(southwest: sw, northeast: ne)),
            .withinBox("location", southwest: .value(.geoPoint(sw)), northeast: .value(.geoPoint(ne)))
        )
    }

    func testGeoValidation() {
        let bad = GeoPoint(latitude: 91, longitude: 0)
        XCTAssertEqual(
            buildError(LCQuery("T").where("loc", .locatedNear(bad)))?.message,
            "locatedNear on key 'loc': invalid GeoPoint: latitude 91.0 is outside -90...90"
        )
        XCTAssertEqual(
            buildError(LCQuery("T").where("loc", .equalTo(GeoPoint(latitude: 0, longitude: -181))))?.message,
            "equalTo on key 'loc': invalid GeoPoint: longitude -181.0 is outside -180...180"
        )
        XCTAssertEqual(
            buildError(LCQuery("T").where("loc", .locatedNear(GeoPoint(latitude: 0, longitude: 0), within: .kilometers(-1))))?.message,
            "locatedNear on key 'loc': the maximal distance must not be negative, found -1"
        )
        XCTAssertEqual(
            buildError(LCQuery("T").where("loc", .locatedNear(GeoPoint(latitude: 0, longitude: 0), within: .miles(.nan))))?.message,
            "locatedNear on key 'loc': the maximal distance must be a finite number, found nan"
        )
    }

    func testInvertedBoxCornersAreNormalized() throws {
        // EvaluationSemantics.md: like MongoDB's $box, min/max of the corners' coordinates.
        let sw = GeoPoint(latitude: 40, longitude: 116.33), ne = GeoPoint(latitude: 39.99, longitude: 116.37)
        let q = try LCQuery("T").where("loc", .locatedWithin(southwest: sw, northeast: ne)).build()
        XCTAssertEqual(q.condition?.predicate, .withinBox("loc", southwest: .value(.geoPoint(GeoPoint(latitude: 39.99, longitude: 116.33))),
                                                          northeast: .value(.geoPoint(GeoPoint(latitude: 40, longitude: 116.37)))))
    }

    func testProjectionIncludeAndOrder() throws {
        let q = try LCQuery("Comment")
            .where("title", .selected)
            .where("-body", .selected)
            .where("post.author", .included)
            .where("score", .descending)
            .where("name", .ascending)
            .build()
        XCTAssertEqual(q.keys, [SelectedKey("title"), SelectedKey("body", excluded: true)])
        XCTAssertEqual(q.includes, ["post.author"])
        XCTAssertEqual(q.order, [OrderKey("score", descending: true), OrderKey("name")])
        XCTAssertNil(q.condition)
    }

    func testLimitSkipCount() throws {
        let q = try LCQuery("T").limit(10).skip(20).count(.withResults).build()
        XCTAssertEqual(q.limit, .value(10))
        XCTAssertEqual(q.skip, .value(20))
        XCTAssertEqual(q.count, .withResults)
        XCTAssertEqual(try LCQuery("T").count().build().count, .only)
        XCTAssertEqual(buildError(LCQuery("T").limit(-1))?.message, "limit must not be negative, found -1")
        XCTAssertEqual(buildError(LCQuery("T").skip(-2))?.message, "skip must not be negative, found -2")
    }

    func testSeveralConstraintsAreANDed() throws {
        let c = try LCQuery("T")
            .where("score", .greaterThan(80))
            .whereKey("score", .lessThanOrEqualTo(100))
            .where("name", .existed)
            .build().condition
        XCTAssertEqual(
            c,
            Condition.and([
                Condition(.compare("score", .greaterThan, .value(80))),
                Condition(.compare("score", .lessThanOrEqual, .value(100))),
                Condition(.exists("name", true)),
            ])
        )
    }

    func testAndOr() throws {
        let a = LCQuery("T").where("a", .equalTo(1))
        let b = LCQuery("T").where("b", .equalTo(2)).where("c", .equalTo(3))
        let ca = Condition(.compare("a", .equal, .value(1)))
        let cb = Condition(.compare("b", .equal, .value(2))), cc = Condition(.compare("c", .equal, .value(3)))
        XCTAssertEqual(try LCQuery.and(a, b).build().condition, Condition(.and([ca, cb, cc])))
        XCTAssertEqual(try LCQuery.or(a, b).build().condition, Condition(.or([ca, Condition(.and([cb, cc]))])))
        XCTAssertEqual(try LCQuery.or([a]).build().condition, ca)
        // A condition-less query matches everything: so does an `or` with it.
        XCTAssertNil(try LCQuery.or(a, LCQuery("T")).build().condition)
        XCTAssertEqual(try LCQuery.and(a, LCQuery("T")).build().condition, ca)
        // Only conditions combine; further constraints AND onto the combination.
        let q = try LCQuery.or(a.limit(3).where("x", .ascending), b).where("d", .existed).build()
        XCTAssertEqual(q.condition, Condition(.and([Condition(.or([ca, Condition(.and([cb, cc]))])), Condition(.exists("d", true))])))
        XCTAssertNil(q.limit)
        XCTAssertEqual(q.order, [])
    }

    func testAndOrErrors() {
        XCTAssertEqual(
            buildError(LCQuery.or(LCQuery("T"), LCQuery("U")))?.message,
            "LCQuery.or combines queries of one class; found 'T' and 'U'"
        )
        XCTAssertEqual(buildError(LCQuery.and([]))?.message, "LCQuery.and needs at least one query")
        XCTAssertEqual(
            buildError(LCQuery.and(LCQuery("T"), LCQuery("T").limit(-5)))?.message,
            "limit must not be negative, found -5"
        )
    }

    func testBadKeysAndFirstErrorWins() {
        XCTAssertEqual(buildError(LCQuery("T").where("", .existed))?.message, "existed on key '': a key must not be empty")
        XCTAssertEqual(
            buildError(LCQuery("T").where("a..b", .existed))?.message,
            "existed on key 'a..b': the key 'a..b' has an empty step"
        )
        let e = buildError(LCQuery("T").where("a", .equalTo(Double.nan)).limit(-1).where("", .existed))
        XCTAssertEqual(e?.message, "equalTo on key 'a': nan is not a finite number")
    }

    func testDeepValuesHitTheLimit() {
        var v: Value = 1
        for _ in 0..<300 { v = .array([v]) }
        let e = buildError(LCQuery("T").where("a", .equalTo(v)))
        XCTAssertEqual(e?.kind, .limit)
        XCTAssertEqual(e?.message, "equalTo on key 'a': the value nests deeper than 256 levels")
    }

    func testBuildersAreValues() throws {
        let base = LCQuery("T").where("a", .equalTo(1))
        let more = base.where("b", .equalTo(2))
        XCTAssertEqual(try base.build().condition, Condition(.compare("a", .equal, .value(1))))
        XCTAssertNotEqual(try base.build(), try more.build())
    }

    // MARK: where-JSON

    private func json(_ q: LCQuery, _ dialect: WhereJSONDialect = .leancloud) throws -> String {
        JSONWriter.string(try WhereJSONEmitter.emit(q.build(), dialect: dialect))
    }

    func testWhereJSONOfEachConstraint() throws {
        let todo = LCQuery("Todo")
        let cases: [(LCQuery, String)] = [
            (todo, #"{"className":"Todo"}"#),
            (LCQuery("").where("a", .equalTo(1)), #"{"where":{"a":1}}"#),
            (todo.where("priority", .greaterThanOrEqualTo(3)), #"{"className":"Todo","where":{"priority":{"$gte":3}}}"#),
            (todo.where("title", .equalTo("x")), #"{"className":"Todo","where":{"title":"x"}}"#),
            (todo.where("a", .notEqualTo(1)), #"{"className":"Todo","where":{"a":{"$ne":1}}}"#),
            (todo.where("a", .lessThan(2.5)), #"{"className":"Todo","where":{"a":{"$lt":2.5}}}"#),
            (todo.where("a", .lessThanOrEqualTo(Int64(9))), #"{"className":"Todo","where":{"a":{"$lte":9}}}"#),
            (todo.where("a", .greaterThan(1.0)), #"{"className":"Todo","where":{"a":{"$gt":1.0}}}"#),
            (todo.where("tags", .containedIn(["a", 1])), #"{"className":"Todo","where":{"tags":{"$in":["a",1]}}}"#),
            (todo.where("tags", .notContainedIn(["a"])), #"{"className":"Todo","where":{"tags":{"$nin":["a"]}}}"#),
            (todo.where("tags", .containedAllIn([1, 2])), #"{"className":"Todo","where":{"tags":{"$all":[1,2]}}}"#),
            (todo.where("tags", .equalToSize(2)), #"{"className":"Todo","where":{"tags":{"$size":2}}}"#),
            (todo.where("name", .existed), #"{"className":"Todo","where":{"name":{"$exists":true}}}"#),
            (todo.where("name", .notExisted), #"{"className":"Todo","where":{"name":{"$exists":false}}}"#),
            (todo.where("title", .prefixedBy("a.b")), #"{"className":"Todo","where":{"title":{"$regex":"^\\Qa.b\\E"}}}"#),
            (todo.where("title", .suffixedBy("(x)")), #"{"className":"Todo","where":{"title":{"$regex":"\\Q(x)\\E$"}}}"#),
            (
                todo.where("title", .matchedSubstring(#"a\Eb"#)),
                #"{"className":"Todo","where":{"title":{"$regex":"\\Qa\\E\\\\E\\Qb\\E"}}}"#
            ),
            (
                todo.where("title", .matchedRegularExpression("^to", option: "i")),
                #"{"className":"Todo","where":{"title":{"$options":"i","$regex":"^to"}}}"#
            ),
            (todo.where("title", .matchedRegularExpression("^to")), #"{"className":"Todo","where":{"title":{"$regex":"^to"}}}"#),
            (
                LCQuery("Comment").where("post", .matchedQuery(LCQuery("Post").where("image", .existed))),
                #"{"className":"Comment","where":{"post":{"$inQuery":{"className":"Post","where":{"image":{"$exists":true}}}}}}"#
            ),
            (
                LCQuery("Comment").where("post", .notMatchedQuery(LCQuery("Post").where("image", .existed))),
                #"{"className":"Comment","where":{"post":{"$notInQuery":{"className":"Post","where":{"image":{"$exists":true}}}}}}"#
            ),
            (
                LCQuery("Player").where("name", .matchedQueryAndKey(query: LCQuery("GameScore").where("score", .greaterThan(80)), key: "name")),
                #"{"className":"Player","where":{"name":{"$select":{"key":"name","query":{"className":"GameScore","where":{"score":{"$gt":80}}}}}}}"#
            ),
            (
                LCQuery("Player").where("name", .notMatchedQueryAndKey(query: LCQuery("GameScore"), key: "name")),
                #"{"className":"Player","where":{"name":{"$dontSelect":{"key":"name","query":{"className":"GameScore"}}}}}"#
            ),
            (
                LCQuery("_User").where("likes", .relatedTo(Pointer(className: "Post", objectId: "51e3a359e4b015ead4d95ddc"))),
                #"{"className":"_User","where":{"$relatedTo":{"key":"likes","object":{"__type":"Pointer","className":"Post","objectId":"51e3a359e4b015ead4d95ddc"}}}}"#
            ),
            (
                todo.where("createdAt", .lessThan(Date(timeIntervalSince1970: 1_434_909_772.249))),
                #"{"className":"Todo","where":{"createdAt":{"$lt":{"__type":"Date","iso":"2015-06-21T18:02:52.249Z"}}}}"#
            ),
            (
                todo.where("post", .equalTo(Pointer(className: "Post", objectId: "p1"))),
                #"{"className":"Todo","where":{"post":{"__type":"Pointer","className":"Post","objectId":"p1"}}}"#
            ),
        ]
        for (builder, expected) in cases {
            XCTAssertEqual(try json(builder), expected)
        }
    }

    func testWhereJSONOfGeoConstraints() throws {
        let p = GeoPoint(latitude: 39.9, longitude: 116.4)
        let point = #"{"__type":"GeoPoint","latitude":39.9,"longitude":116.4}"#
        let player = LCQuery("Player")
        let cases: [(LCQuery, String)] = [
            (player.where("location", .locatedNear(p)), #"{"className":"Player","where":{"location":{"$nearSphere":\#(point)}}}"#),
            (
                player.where("location", .locatedNear(p, minimal: .kilometers(0.5), maximal: .kilometers(1))),
                #"{"className":"Player","where":{"location":{"$maxDistanceInKilometers":1,"$minDistanceInKilometers":0.5,"$nearSphere":\#(point)}}}"#
            ),
            (
                player.where("location", .locatedNear(p, within: .miles(2))),
                #"{"className":"Player","where":{"location":{"$maxDistanceInMiles":2,"$nearSphere":\#(point)}}}"#
            ),
            (
                player.where("location", .locatedNear(p, within: .radians(0.25))),
                #"{"className":"Player","where":{"location":{"$maxDistanceInRadians":0.25,"$nearSphere":\#(point)}}}"#
            ),
            (
                player.where("location", .locatedWithin(
                    southwest: GeoPoint(latitude: 39.97, longitude: 116.33), northeast: GeoPoint(latitude: 39.99, longitude: 116.37))),
                #"{"className":"Player","where":{"location":{"$within":{"$box":[{"__type":"GeoPoint","latitude":39.97,"longitude":116.33},{"__type":"GeoPoint","latitude":39.99,"longitude":116.37}]}}}}"#
            ),
        ]
        for (builder, expected) in cases {
            XCTAssertEqual(try json(builder), expected)
        }
    }

    func testWhereJSONOfRequestParameters() throws {
        XCTAssertEqual(
            try json(LCQuery("Comment")
                .where("title", .selected).where("-body", .selected)
                .where("post.author", .included)
                .where("score", .descending).where("name", .ascending)),
            #"{"className":"Comment","include":"post.author","keys":"title,-body","order":"-score,name"}"#
        )
        XCTAssertEqual(try json(LCQuery("T").limit(10).skip(20)), #"{"className":"T","limit":10,"skip":20}"#)
        XCTAssertEqual(
            try json(LCQuery("T").where("a", .greaterThan(60)).count()),
            #"{"className":"T","count":1,"limit":0,"where":{"a":{"$gt":60}}}"#
        )
        XCTAssertEqual(try json(LCQuery("T").count(.withResults).limit(5)), #"{"className":"T","count":1,"limit":5}"#)
    }

    func testWhereJSONOfCombinations() throws {
        let a = LCQuery("T").where("a", .equalTo(1))
        let b = LCQuery("T").where("b", .equalTo(2)).where("c", .equalTo(3))
        XCTAssertEqual(
            try json(LCQuery("T").where("score", .greaterThan(80)).where("score", .lessThanOrEqualTo(100))),
            #"{"className":"T","where":{"score":{"$gt":80,"$lte":100}}}"#
        )
        XCTAssertEqual(try json(LCQuery.and(a, b)), #"{"className":"T","where":{"a":1,"b":2,"c":3}}"#)
        XCTAssertEqual(try json(LCQuery.or(a, b)), #"{"className":"T","where":{"$or":[{"a":1},{"b":2,"c":3}]}}"#)
        XCTAssertEqual(
            try json(LCQuery.or(a, LCQuery("T").where("a", .equalTo(2)))),
            #"{"className":"T","where":{"$or":[{"a":1},{"a":2}]}}"#
        )
        XCTAssertEqual(
            try json(LCQuery.or(a, b).where("d", .existed).limit(3)),
            #"{"className":"T","limit":3,"where":{"$or":[{"a":1},{"b":2,"c":3}],"d":{"$exists":true}}}"#
        )
    }

    /// The examples in the doc comments of the public API.
    func testDocExamples() throws {
        XCTAssertEqual(
            try json(LCQuery("Todo")
                .where("priority", .greaterThanOrEqualTo(3))
                .where("title", .prefixedBy("a.b"))
                .where("createdAt", .descending)
                .limit(10)),
            #"{"className":"Todo","limit":10,"order":"-createdAt","where":{"priority":{"$gte":3},"title":{"$regex":"^\\Qa.b\\E"}}}"#
        )
        XCTAssertEqual(try json(LCQuery("Todo").where("createdAt", .descending)), #"{"className":"Todo","order":"-createdAt"}"#)
        XCTAssertEqual(
            try json(LCQuery("Todo").where("tags", .containedIn(["work", 2]))),
            #"{"className":"Todo","where":{"tags":{"$in":["work",2]}}}"#
        )
        let a = LCQuery("Todo").where("a", .equalTo(1)), b = LCQuery("Todo").where("b", .equalTo(2))
        XCTAssertEqual(try json(LCQuery.and(a, b)), #"{"className":"Todo","where":{"a":1,"b":2}}"#)
        XCTAssertEqual(try json(LCQuery.or(a, b)), #"{"className":"Todo","where":{"$or":[{"a":1},{"b":2}]}}"#)
    }
}
