import CQLKit
import XCTest

@testable import CQLEval

/// One test (or more) per row of EvaluationSemantics.md's table of predicates ("Predicates").
final class PredicateTests: XCTestCase {
    // MARK: k = v

    func testEqualityNumbersByValue() {
        let d = docs(#"{"objectId":"i","n":1}"#, #"{"objectId":"d","n":1.0}"#, #"{"objectId":"s","n":"1"}"#,
                     #"{"objectId":"x","n":1.5}"#, #"{"objectId":"a","n":[3,1.0]}"#)
        XCTAssertEqual(ids(T.eq("n", 1), d), ["i", "d", "a"])
        XCTAssertEqual(ids(T.eq("n", 1.0), d), ["i", "d", "a"])
        XCTAssertEqual(ids(T.eq("n", "1"), d), ["s"])
    }

    func testEqualityLargeIntegersAreExact() {
        let d = docs(#"{"objectId":"big","n":9007199254740993}"#, #"{"objectId":"dbl","n":9007199254740992.0}"#)
        XCTAssertEqual(ids(T.eq("n", .int(9_007_199_254_740_993)), d), ["big"])
        XCTAssertEqual(ids(T.eq("n", .int(9_007_199_254_740_992)), d), ["dbl"])
    }

    func testEqualityArrayContains() {
        let d = docs(#"{"objectId":"a","tags":["x","y"]}"#, #"{"objectId":"b","tags":"x"}"#,
                     #"{"objectId":"c","tags":[["x"]]}"#, #"{"objectId":"e","tags":[]}"#)
        XCTAssertEqual(ids(T.eq("tags", "x"), d), ["a", "b"])
        // The whole array, or an element that is that array.
        XCTAssertEqual(ids(T.eq("tags", ["x", "y"]), d), ["a"])
        XCTAssertEqual(ids(T.eq("tags", ["x"]), d), ["c"])
        XCTAssertEqual(ids(T.eq("tags", []), d), ["e"])
    }

    func testEqualityTypedValues() {
        let d = docs(
            #"{"objectId":"d","at":{"__type":"Date","iso":"2015-06-21T18:02:52.249Z"}}"#,
            #"{"objectId":"p","post":{"__type":"Pointer","className":"Post","objectId":"p1"}}"#,
            #"{"objectId":"q","post":{"__type":"Pointer","className":"Comment","objectId":"p1"}}"#,
            #"{"objectId":"g","loc":{"__type":"GeoPoint","latitude":39.9,"longitude":116.4}}"#,
            #"{"objectId":"u","loc":{"longitude":116.4,"latitude":39.9}}"#,
            #"{"objectId":"o","meta":{"b":1,"a":{"y":2.0,"x":"s"}}}"#)
        XCTAssertEqual(ids(T.eq("at", T.date("2015-06-21T20:02:52.249+02:00")), d), ["d"])
        XCTAssertEqual(ids(T.eq("post", .pointer(Pointer(className: "Post", objectId: "p1"))), d), ["p"])
        XCTAssertEqual(ids(T.eq("loc", T.geo(39.9, 116.4)), d), ["g", "u"])
        XCTAssertEqual(ids(T.eq("meta", .object(["a": .object(["x": "s", "y": 2]), "b": 1.0])), d), ["o"])
        XCTAssertEqual(ids(T.eq("meta", .object(["a": .object(["x": "s"]), "b": 1])), d), [])
    }

    func testStringEqualityIsByteWise() {
        // Precomposed é vs e + combining acute: equal for Swift, different bytes.
        let d = docs(#"{"objectId":"nfc","s":"\u00e9"}"#, #"{"objectId":"nfd","s":"e\u0301"}"#)
        XCTAssertEqual(ids(T.eq("s", "\u{e9}"), d), ["nfc"])
        XCTAssertEqual(ids(T.isIn("s", ["e\u{301}"]), d), ["nfd"])
    }

    func testCreatedAtStringsAreDates() {
        let d = docs(#"{"objectId":"a","createdAt":"2017-11-11T07:19:15.549Z","other":"2017-11-11T07:19:15.549Z"}"#,
                     #"{"objectId":"b","createdAt":"2011-01-01T00:00:00.000Z","updatedAt":"2020-01-01T00:00:00Z"}"#)
        XCTAssertEqual(ids(T.cmp("createdAt", .lessThan, T.date("2012-01-01T00:00:00Z")), d), ["b"])
        XCTAssertEqual(ids(T.cmp("updatedAt", .greaterThan, T.date("2019-01-01T00:00:00Z")), d), ["b"])
        XCTAssertEqual(ids(T.eq("createdAt", T.date("2017-11-11T07:19:15.549Z")), d), ["a"])
        // No other key is coerced.
        XCTAssertEqual(ids(T.eq("other", T.date("2017-11-11T07:19:15.549Z")), d), [])
        XCTAssertEqual(ids(T.eq("other", "2017-11-11T07:19:15.549Z"), d), ["a"])
    }

    // MARK: k = null, k != v

    func testNullMatchesNullAndMissing() {
        let d = docs(#"{"objectId":"n","k":null}"#, #"{"objectId":"m"}"#, #"{"objectId":"v","k":0}"#,
                     #"{"objectId":"a","k":[1,null]}"#)
        XCTAssertEqual(ids(T.eq("k", nil), d), ["n", "m", "a"])
        XCTAssertEqual(ids(T.cmp("k", .notEqual, nil), d), ["v"])
    }

    func testNotEqualMatchesMissingAndArraysWithoutTheValue() {
        let d = docs(#"{"objectId":"m"}"#, #"{"objectId":"x","k":"x"}"#, #"{"objectId":"y","k":"y"}"#,
                     #"{"objectId":"ax","k":["x","z"]}"#, #"{"objectId":"az","k":["z"]}"#)
        XCTAssertEqual(ids(T.cmp("k", .notEqual, "x"), d), ["m", "y", "az"])
    }

    // MARK: ranges

    func testRangesBracketTypes() {
        let d = docs(#"{"objectId":"s","k":"10"}"#, #"{"objectId":"i","k":10}"#, #"{"objectId":"f","k":4.5}"#,
                     #"{"objectId":"b","k":true}"#, #"{"objectId":"n","k":null}"#, #"{"objectId":"m"}"#,
                     #"{"objectId":"a","k":[1,"z",7]}"#)
        XCTAssertEqual(ids(T.cmp("k", .greaterThan, 5), d), ["i", "a"])
        XCTAssertEqual(ids(T.cmp("k", .lessThanOrEqual, 4.5), d), ["f", "a"])
        XCTAssertEqual(ids(T.cmp("k", .greaterThan, "1"), d), ["s", "a"])
        XCTAssertEqual(ids(T.cmp("k", .greaterThanOrEqual, false), d), ["b"])
        // Against null (MongoDB): <= and >= mean = null, < and > match nothing.
        XCTAssertEqual(ids(T.cmp("k", .greaterThanOrEqual, nil), d), ["n", "m"])
        XCTAssertEqual(ids(T.cmp("k", .lessThanOrEqual, nil), d), ["n", "m"])
        XCTAssertEqual(ids(T.cmp("k", .greaterThan, nil), d), [])
        XCTAssertEqual(ids(T.cmp("k", .lessThan, nil), d), [])
    }

    func testStringRangesAreCodePointOrder() {
        let d = docs(#"{"objectId":"upper","k":"Z"}"#, #"{"objectId":"lower","k":"a"}"#,
                     #"{"objectId":"accent","k":"\u00e9"}"#, #"{"objectId":"emoji","k":"\ud83d\ude00"}"#,
                     #"{"objectId":"cjk","k":"\uffe0"}"#)
        XCTAssertEqual(ids(T.cmp("k", .lessThan, "a"), d), ["upper"])
        XCTAssertEqual(ids(T.cmp("k", .greaterThan, "z"), d), ["accent", "emoji", "cjk"])
        // U+FFE0 < U+1F600 by code point (UTF-16 order would say otherwise).
        XCTAssertEqual(ids(T.cmp("k", .greaterThan, "\u{FFE0}"), d), ["emoji"])
    }

    func testDateRanges() {
        let d = docs(#"{"objectId":"old","at":{"__type":"Date","iso":"2010-01-01T00:00:00.000Z"}}"#,
                     #"{"objectId":"new","at":{"__type":"Date","iso":"2020-01-01T00:00:00.000Z"}}"#,
                     #"{"objectId":"str","at":"2030-01-01T00:00:00.000Z"}"#)
        XCTAssertEqual(ids(T.cmp("at", .greaterThan, T.date("2015-01-01T00:00:00Z")), d), ["new"])
    }

    func testMixedIntDoubleRanges() {
        let d = docs(#"{"objectId":"a","k":9007199254740993}"#, #"{"objectId":"b","k":9007199254740992}"#)
        XCTAssertEqual(ids(T.cmp("k", .greaterThan, 9_007_199_254_740_992.0), d), ["a"])
        XCTAssertEqual(ids(T.cmp("k", .lessThanOrEqual, 9_007_199_254_740_992.0), d), ["b"])
    }

    // MARK: in / not in

    func testIn() {
        let d = docs(#"{"objectId":"a","k":1}"#, #"{"objectId":"b","k":2.0}"#, #"{"objectId":"c","k":"1"}"#,
                     #"{"objectId":"m"}"#, #"{"objectId":"n","k":null}"#, #"{"objectId":"arr","k":[5,2]}"#)
        XCTAssertEqual(ids(T.isIn("k", [1.0, 2]), d), ["a", "b", "arr"])
        XCTAssertEqual(ids(T.isIn("k", []), d), [])
        XCTAssertEqual(ids(T.isIn("k", [nil]), d), ["m", "n"])
        XCTAssertEqual(ids(T.isIn("k", [1, 2], negated: true), d), ["c", "m", "n"])
        XCTAssertEqual(ids(T.isIn("k", [], negated: true), d), ["a", "b", "c", "m", "n", "arr"])
    }

    // MARK: exists

    func testExists() {
        let d = docs(#"{"objectId":"n","k":null}"#, #"{"objectId":"m"}"#, #"{"objectId":"v","k":false}"#)
        XCTAssertEqual(ids(T.c(.exists("k", true)), d), ["n", "v"])
        XCTAssertEqual(ids(T.c(.exists("k", false)), d), ["m"])
    }

    // MARK: all

    func testAll() {
        let d = docs(#"{"objectId":"a","k":[1,2,3]}"#, #"{"objectId":"b","k":[1]}"#, #"{"objectId":"s","k":1}"#,
                     #"{"objectId":"m"}"#)
        XCTAssertEqual(ids(T.c(.all("k", [.value(1), .value(2.0)])), d), ["a"])
        XCTAssertEqual(ids(T.c(.all("k", [.value(1), .value(1)])), d), ["a", "b", "s"])
        XCTAssertEqual(ids(T.c(.all("k", [])), d), [])
    }

    // MARK: size

    func testSize() {
        let d = docs(#"{"objectId":"two","k":[1,2]}"#, #"{"objectId":"zero","k":[]}"#, #"{"objectId":"str","k":"ab"}"#,
                     #"{"objectId":"obj","k":{"a":1,"b":2}}"#)
        XCTAssertEqual(ids(T.c(.size("k", .value(2))), d), ["two"])
        XCTAssertEqual(ids(T.c(.size("k", .value(2.0))), d), ["two"])
        XCTAssertEqual(ids(T.c(.size("k", .value(0))), d), ["zero"])
        XCTAssertEqual(planError(T.c(.size("k", .value(1.5))))?.kind, .invalidValue)
        XCTAssertEqual(planError(T.c(.size("k", .value(-1))))?.kind, .invalidValue)
    }

    // MARK: not

    func testNot() {
        let d = docs(#"{"objectId":"a","k":5}"#, #"{"objectId":"b","k":50}"#, #"{"objectId":"m"}"#)
        XCTAssertEqual(ids(.not(T.cmp("k", .greaterThan, 10)), d), ["a", "m"])
        XCTAssertEqual(ids(.not(.not(T.cmp("k", .greaterThan, 10))), d), ["b"])
    }

    func testAndOrConstant() {
        let d = docs(#"{"objectId":"a","x":1,"y":1}"#, #"{"objectId":"b","x":1,"y":2}"#, #"{"objectId":"c","x":2,"y":2}"#)
        XCTAssertEqual(ids(.and([T.eq("x", 1), T.eq("y", 2)]), d), ["b"])
        XCTAssertEqual(ids(.or([T.eq("x", 2), T.eq("y", 1)]), d), ["a", "c"])
        XCTAssertEqual(ids(T.c(.constant(false)), d), [])
        XCTAssertEqual(ids(T.c(.constant(true)), d), ["a", "b", "c"])
    }

    // MARK: Field paths

    func testDottedPathsFanOutOverArrays() {
        let d = docs(#"{"objectId":"a","tags":[{"name":"x"},{"name":"y"}]}"#,
                     #"{"objectId":"b","tags":{"name":"x"}}"#,
                     #"{"objectId":"c","tags":[{"name":["p","x"]}]}"#,
                     #"{"objectId":"d","tags":[{"other":1}]}"#,
                     #"{"objectId":"e","tags":[]}"#)
        XCTAssertEqual(ids(T.eq("tags.name", "x"), d), ["a", "b", "c"])
        XCTAssertEqual(ids(T.cmp("tags.name", .greaterThan, "x"), d), ["a"])
        XCTAssertEqual(ids(T.isIn("tags.name", ["y", "p"]), d), ["a", "c"])
        // An element without the key counts as missing; an empty array has
        // no element to be missing in (MongoDB's null_query_semantics).
        XCTAssertEqual(ids(T.eq("tags.name", nil), d), ["d"])
        XCTAssertEqual(ids(T.c(.exists("tags.name", true)), d), ["a", "b", "c"])
    }

    func testNumericStepsIndexArrays() {
        let d = docs(#"{"objectId":"a","k":[10,20]}"#, #"{"objectId":"b","k":[20,10]}"#,
                     #"{"objectId":"c","k":[{"v":1},{"v":2}]}"#, #"{"objectId":"d","k":{"0":10}}"#)
        XCTAssertEqual(ids(T.eq("k.0", 10), d), ["a", "d"])
        XCTAssertEqual(ids(T.eq("k.1.v", 2), d), ["c"])
        XCTAssertEqual(ids(T.c(.exists("k.5", true)), d), [])
    }

    func testRegexFansOut() {
        let d = docs(#"{"objectId":"a","tags":[{"name":"alpha"}]}"#, #"{"objectId":"b","tags":["beta","gamma"]}"#)
        XCTAssertEqual(ids(T.c(.regex("tags.name", pattern: .value("^al"), options: "")), d), ["a"])
        XCTAssertEqual(ids(T.c(.regex("tags", pattern: .value("mm"), options: "")), d), ["b"])
    }

    // MARK: Mongo / Parse extras

    func testElementMatch() {
        let d = docs(#"{"objectId":"a","r":[{"s":5,"t":"x"},{"s":9,"t":"y"}]}"#,
                     #"{"objectId":"b","r":[{"s":9,"t":"x"}]}"#, #"{"objectId":"c","r":[3,8]}"#,
                     #"{"objectId":"d","r":{"s":9,"t":"x"}}"#)
        let both = Condition.and([T.cmp("s", .greaterThan, 6), T.eq("t", "x")])
        XCTAssertEqual(ids(T.c(.elementMatch("r", both)), d), ["b"])
        let element = Condition.and([T.cmp("", .greaterThan, 5), T.cmp("", .lessThan, 9)])
        XCTAssertEqual(ids(T.c(.elementMatch("r", element)), d), ["c"])
    }

    func testType() {
        let d = docs(#"{"objectId":"s","k":"x"}"#, #"{"objectId":"i","k":1}"#, #"{"objectId":"f","k":1.5}"#,
                     #"{"objectId":"a","k":[true]}"#, #"{"objectId":"n","k":null}"#,
                     #"{"objectId":"dt","k":{"__type":"Date","iso":"2015-06-21T18:02:52.249Z"}}"#)
        XCTAssertEqual(ids(T.c(.type("k", "string")), d), ["s"])
        XCTAssertEqual(ids(T.c(.type("k", "number")), d), ["i", "f"])
        XCTAssertEqual(ids(T.c(.type("k", "int")), d), ["i"])
        XCTAssertEqual(ids(T.c(.type("k", "array")), d), ["a"])
        XCTAssertEqual(ids(T.c(.type("k", "bool")), d), ["a"])
        XCTAssertEqual(ids(T.c(.type("k", "null")), d), ["n"])
        XCTAssertEqual(ids(T.c(.type("k", "date")), d), ["dt"])
        XCTAssertEqual(planError(T.c(.type("k", "blob")))?.kind, .invalidValue)
    }

    func testModulo() {
        let d = docs(#"{"objectId":"a","k":7}"#, #"{"objectId":"b","k":8}"#, #"{"objectId":"c","k":7.9}"#,
                     #"{"objectId":"n","k":-7}"#, #"{"objectId":"s","k":"7"}"#)
        XCTAssertEqual(ids(T.c(.modulo("k", divisor: .value(4), remainder: .value(3))), d), ["a", "c"])
        XCTAssertEqual(ids(T.c(.modulo("k", divisor: .value(4), remainder: .value(-3))), d), ["n"])
        XCTAssertEqual(planError(T.c(.modulo("k", divisor: .value(0), remainder: .value(0))))?.kind, .invalidValue)
    }

    func testContainedBy() {
        let d = docs(#"{"objectId":"a","k":[1,2]}"#, #"{"objectId":"b","k":[1,4]}"#, #"{"objectId":"e","k":[]}"#,
                     #"{"objectId":"s","k":1}"#)
        XCTAssertEqual(ids(T.c(.containedBy("k", [.value(1), .value(2.0), .value(3)])), d), ["a", "e"])
    }

    func testFullText() {
        let d = docs(#"{"objectId":"a","t":"The quick brown fox"}"#, #"{"objectId":"b","t":"Quickly, now"}"#,
                     #"{"objectId":"c","t":"brown bear"}"#)
        XCTAssertEqual(ids(T.c(.fullText("t", FullTextSearch(term: "QUICK"))), d), ["a"])
        XCTAssertEqual(ids(T.c(.fullText("t", FullTextSearch(term: "quick bear"))), d), ["a", "c"])
        XCTAssertEqual(ids(T.c(.fullText("t", FullTextSearch(term: "brown -fox"))), d), ["c"])
        XCTAssertEqual(ids(T.c(.fullText("t", FullTextSearch(term: "QUICK", caseSensitive: true))), d), [])
        XCTAssertEqual(ids(T.c(.fullText("t", FullTextSearch(term: "\"brown bear\""))), d), ["c"])
    }

    // MARK: Binding

    func testUnboundTermsAreErrors() {
        let e = planError(Condition(.compare("k", .equal, .placeholder(index: 0, range: SourceRange(10, 11)))))
        XCTAssertEqual(e?.kind, .binding)
        XCTAssertEqual(e?.range, SourceRange(10, 11))
        XCTAssertEqual(planError(Condition(.compare("k", .lessThan, .currentTimestamp)))?.kind, .binding)
    }

    func testConstantArraysOfTermsResolve() {
        let d = docs(#"{"objectId":"a","k":[1,2]}"#)
        XCTAssertEqual(ids(Condition(.compare("k", .equal, .array([.value(1), .value(2)]))), d), ["a"])
    }
}
