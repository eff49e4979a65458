import CQLKit
import XCTest

@testable import CQLEval

/// Ordering, paging, count, keys and include (EvaluationSemantics.md, "Order, paging, projection").
final class ResultShapingTests: XCTestCase {
    private func run(_ q: Query, _ store: DocumentStore) throws -> QueryResult { try QueryPlan(q, store: store).run() }
    private func idList(_ r: QueryResult) -> [String] { r.objects.map { $0["objectId"]?.stringValue ?? "?" } }

    private var mixed: DocumentStore {
        DocumentStore(["T": docs(
            #"{"objectId":"date","k":{"__type":"Date","iso":"2015-06-21T18:02:52.249Z"}}"#,
            #"{"objectId":"true","k":true}"#,
            #"{"objectId":"false","k":false}"#,
            #"{"objectId":"bytes","k":{"__type":"Bytes","base64":"AAA="}}"#,
            #"{"objectId":"arr","k":[[1]]}"#,
            #"{"objectId":"obj","k":{"a":1}}"#,
            #"{"objectId":"str","k":"b"}"#,
            #"{"objectId":"strA","k":"B"}"#,
            #"{"objectId":"num","k":2.5}"#,
            #"{"objectId":"int","k":2}"#,
            #"{"objectId":"null","k":null}"#,
            #"{"objectId":"missing"}"#,
            #"{"objectId":"empty","k":[]}"#
        )])
    }

    func testTypeOrderAscending() throws {
        let r = try run(T.query(nil, order: [OrderKey("k")]), mixed)
        XCTAssertEqual(idList(r), ["empty", "null", "missing", "int", "num", "strA", "str", "obj", "arr", "bytes", "false", "true", "date"])
    }

    func testTypeOrderDescendingIsStable() throws {
        let r = try run(T.query(nil, order: [OrderKey("k", descending: true)]), mixed)
        XCTAssertEqual(idList(r), ["date", "true", "false", "bytes", "arr", "obj", "str", "strA", "num", "int", "null", "missing", "empty"])
    }

    func testArraysSortByMinAscendingAndMaxDescending() throws {
        let store = DocumentStore(["T": docs(#"{"objectId":"a","k":[5,1]}"#, #"{"objectId":"b","k":3}"#, #"{"objectId":"c","k":[2,4]}"#)])
        XCTAssertEqual(idList(try run(T.query(nil, order: [OrderKey("k")]), store)), ["a", "c", "b"])
        XCTAssertEqual(idList(try run(T.query(nil, order: [OrderKey("k", descending: true)]), store)), ["a", "c", "b"])
        let store2 = DocumentStore(["T": docs(#"{"objectId":"a","k":[5,1]}"#, #"{"objectId":"b","k":3}"#, #"{"objectId":"c","k":[2,6]}"#)])
        XCTAssertEqual(idList(try run(T.query(nil, order: [OrderKey("k", descending: true)]), store2)), ["c", "a", "b"])
    }

    func testSeveralKeysAndTies() throws {
        let store = DocumentStore(["T": docs(
            #"{"objectId":"1","s":90,"n":"b"}"#, #"{"objectId":"2","s":80,"n":"a"}"#,
            #"{"objectId":"3","s":90,"n":"a"}"#, #"{"objectId":"4","s":90,"n":"a"}"#)])
        let r = try run(T.query(nil, order: [OrderKey("s", descending: true), OrderKey("n")]), store)
        XCTAssertEqual(idList(r), ["3", "4", "1", "2"])
        // With a limit the bounded heap gives the same prefix.
        let limited = try run(T.query(nil, order: [OrderKey("s", descending: true), OrderKey("n")], skip: 1, limit: 2), store)
        XCTAssertEqual(idList(limited), ["4", "1"])
    }

    func testSkipLimitCount() throws {
        let store = DocumentStore(["T": (0..<10).map { ["objectId": .string("\($0)"), "n": .int(Int64($0))] }])
        let cond = T.cmp("n", .greaterThanOrEqual, 3)
        var r = try run(T.query(cond, skip: 2, limit: 3, count: .withResults), store)
        XCTAssertEqual(idList(r), ["5", "6", "7"])
        XCTAssertEqual(r.count, 7)
        XCTAssertEqual(r.nextSkip, 5)
        r = try run(T.query(cond, skip: 6, limit: 3, count: .none), store)
        XCTAssertEqual(idList(r), ["9"])
        XCTAssertNil(r.count)
        XCTAssertNil(r.nextSkip)
        r = try run(T.query(cond, limit: 0, count: .only), store)
        XCTAssertEqual(r.objects.count, 0)
        XCTAssertEqual(r.count, 7)
        r = try run(T.query(cond, skip: 100), store)
        XCTAssertEqual(r.objects.count, 0)
        XCTAssertThrowsError(try QueryPlan(Query(className: "T", limit: .value(-1)))) {
            XCTAssertEqual(($0 as? QueryError)?.kind, .invalidValue)
        }
    }

    func testCountOnlyGathersNoObjectsButCountsAndPagesAlike() throws {
        // `count(*)` alone keeps no matches; its count and next page are
        // those of the same query returning its objects, in input order or
        // sorted, over an array (the clauses' loop) or another sequence.
        let store = DocumentStore(["T": (0..<10).map { ["objectId": .string("\($0)"), "n": .int(Int64($0))] }])
        let cond = T.cmp("n", .greaterThanOrEqual, 3)
        let pages: [(Int64?, Int64?)] = [(nil, nil), (2, 3), (6, 3), (0, 0), (100, nil), (nil, 7), (nil, 6)]
        for order in [[], [OrderKey("n", descending: true)]] {
            for (skip, limit) in pages {
                let only = try run(T.query(cond, order: order, skip: skip, limit: limit, count: .only), store)
                let full = try run(T.query(cond, order: order, skip: skip, limit: limit, count: .withResults), store)
                let page = "order \(order.count) skip \(skip.map(String.init) ?? "-") limit \(limit.map(String.init) ?? "-")"
                XCTAssertEqual(only.objects, [], page)
                XCTAssertEqual(only.count, full.count, page)
                XCTAssertEqual(only.nextSkip, full.nextSkip, page)
                // A sequence that is not an array takes the general loop: the same pages.
                for q in [T.query(cond, order: order, skip: skip, limit: limit, count: .only),
                          T.query(cond, order: order, skip: skip, limit: limit, count: .withResults)] {
                    let objects = store.objects(in: "T")
                    XCTAssertEqual(try QueryPlan(q, store: store).run(over: AnySequence(objects)), try run(q, store), page)
                }
            }
        }
    }

    func testKeysProjection() throws {
        let store = DocumentStore(["T": docs(
            #"{"objectId":"a","createdAt":"2017-01-01T00:00:00Z","name":"x","score":5,"post":{"title":"t","body":"b"},"tags":[{"n":1,"m":2}]}"#)])
        var r = try run(T.query(nil, keys: [SelectedKey("name"), SelectedKey("post.title"), SelectedKey("tags.n")]), store)
        XCTAssertEqual(JSONWriter.string(.object(r.objects[0])),
                       #"{"createdAt":"2017-01-01T00:00:00Z","name":"x","objectId":"a","post":{"title":"t"},"tags":[{"n":1}]}"#)
        r = try run(T.query(nil, keys: [SelectedKey("post", excluded: true), SelectedKey("tags.m", excluded: true),
                                         SelectedKey("objectId", excluded: true)]), store)
        XCTAssertEqual(JSONWriter.string(.object(r.objects[0])),
                       #"{"createdAt":"2017-01-01T00:00:00Z","name":"x","objectId":"a","score":5,"tags":[{"n":1}]}"#)
        r = try run(T.query(nil, keys: [SelectedKey("name", alias: "title"), SelectedKey("missing", alias: "nope")]), store)
        XCTAssertEqual(JSONWriter.string(.object(r.objects[0])), #"{"createdAt":"2017-01-01T00:00:00Z","objectId":"a","title":"x"}"#)
    }

    private var blog: DocumentStore {
        DocumentStore([
            "Comment": docs(
                #"{"objectId":"c1","post":{"__type":"Pointer","className":"Post","objectId":"p1"}}"#,
                #"{"objectId":"c2","post":{"__type":"Pointer","className":"Post","objectId":"gone"}}"#,
                #"{"objectId":"c3","posts":[{"__type":"Pointer","className":"Post","objectId":"p1"},{"__type":"Pointer","className":"Post","objectId":"p2"}]}"#),
            "Post": docs(
                #"{"objectId":"p1","title":"Hello","author":{"__type":"Pointer","className":"_User","objectId":"u1"}}"#,
                #"{"objectId":"p2","title":"Again","image":"x.png"}"#),
            "_User": docs(#"{"objectId":"u1","name":"Ann"}"#),
        ])
    }

    func testIncludeMultiLevel() throws {
        let q = T.query(nil, className: "Comment", includes: ["post.author"])
        let r = try run(q, blog)
        XCTAssertEqual(JSONWriter.string(.object(r.objects[0])),
                       #"{"objectId":"c1","post":{"__type":"Object","author":{"__type":"Object","className":"_User","name":"Ann","objectId":"u1"},"className":"Post","objectId":"p1","title":"Hello"}}"#)
        // A missing target stays a Pointer.
        XCTAssertEqual(JSONWriter.string(.object(r.objects[1])),
                       #"{"objectId":"c2","post":{"__type":"Pointer","className":"Post","objectId":"gone"}}"#)
    }

    func testIncludeArraysOfPointersAndProjection() throws {
        let q = T.query(nil, className: "Comment", keys: [SelectedKey("posts.title")], includes: ["posts"])
        let r = try run(q, blog)
        XCTAssertEqual(JSONWriter.string(.object(r.objects[2])),
                       #"{"objectId":"c3","posts":[{"__type":"Object","className":"Post","objectId":"p1","title":"Hello"},{"__type":"Object","className":"Post","objectId":"p2","title":"Again"}]}"#)
    }

    func testInQueryAndSelect() throws {
        let withImage = Query(className: "Post", condition: T.c(.exists("image", true)))
        var r = try run(T.query(T.c(.inQuery("post", query: withImage, negated: false)), className: "Comment"), blog)
        XCTAssertEqual(idList(r), [])
        r = try run(T.query(T.c(.inQuery("posts", query: withImage, negated: false)), className: "Comment"), blog)
        XCTAssertEqual(idList(r), ["c3"])
        r = try run(T.query(T.c(.inQuery("post", query: withImage, negated: true)), className: "Comment"), blog)
        XCTAssertEqual(idList(r), ["c1", "c2", "c3"])
        let hello = Query(className: "Post", condition: T.eq("title", "Hello"))
        r = try run(T.query(T.c(.inQuery("post", query: hello, negated: false)), className: "Comment"), blog)
        XCTAssertEqual(idList(r), ["c1"])

        // $select: values of a key of the subquery's results.
        let store = DocumentStore([
            "GameScore": docs(#"{"name":"dennis","score":90}"#, #"{"name":"catty","score":70}"#, #"{"name":"green","score":85.0}"#),
            "Player": docs(#"{"objectId":"1","name":"dennis"}"#, #"{"objectId":"2","name":"catty"}"#,
                           #"{"objectId":"3","name":"green"}"#, #"{"objectId":"4"}"#),
        ])
        let high = Query(className: "GameScore", condition: T.cmp("score", .greaterThan, 80))
        r = try run(T.query(T.c(.select("name", key: "name", query: high, negated: false)), className: "Player"), store)
        XCTAssertEqual(idList(r), ["1", "3"])
        r = try run(T.query(T.c(.select("name", key: "name", query: high, negated: true)), className: "Player"), store)
        XCTAssertEqual(idList(r), ["2", "4"])
        // A subquery keeps its own limit and order.
        let top = Query(className: "GameScore", order: [OrderKey("score", descending: true)], limit: .value(1))
        r = try run(T.query(T.c(.select("name", key: "name", query: top, negated: false)), className: "Player"), store)
        XCTAssertEqual(idList(r), ["1"])
    }

    func testRelatedTo() throws {
        let store = DocumentStore([
            "_User": docs(#"{"objectId":"u1"}"#, #"{"objectId":"u2"}"#, #"{"objectId":"u3"}"#),
            "_Join:likes:Post": docs(#"{"owningId":"p1","relatedId":"u1"}"#, #"{"owningId":"p1","relatedId":"u3"}"#,
                                     #"{"owningId":"p2","relatedId":"u2"}"#),
        ])
        let c = T.c(.relatedTo(object: .value(.pointer(Pointer(className: "Post", objectId: "p1"))), key: "likes"))
        XCTAssertEqual(idList(try run(T.query(c, className: "_User"), store)), ["u1", "u3"])
        let none = T.c(.relatedTo(object: .value(.pointer(Pointer(className: "Post", objectId: "p1"))), key: "dislikes"))
        XCTAssertEqual(idList(try run(T.query(none, className: "_User"), store)), [])
        XCTAssertEqual(planError(T.c(.relatedTo(object: .value("p1"), key: "likes")))?.kind, .invalidValue)
    }

    func testUsergridDirect() throws {
        let store = DocumentStore(["users": docs(#"{"uuid":"c6ee8a1c-3ef4-11e2-8861-02e81adcf3d0","name":"ann"}"#,
                                                 #"{"uuid":"x","name":"bob"}"#, #"{"uuid":"y","name":"cy"}"#)])
        let q = Query(className: "users", direct: ["bob", "c6ee8a1c-3ef4-11e2-8861-02e81adcf3d0"])
        XCTAssertEqual(try QueryPlan(q, store: store).run().objects.compactMap { $0["name"]?.stringValue }, ["ann", "bob"])
    }

    func testSubqueryNestingIsLimited() {
        var q = Query(className: "T")
        for _ in 0..<40 { q = Query(className: "T", condition: T.c(.inQuery("p", query: q, negated: false))) }
        XCTAssertThrowsError(try QueryPlan(q)) { XCTAssertEqual(($0 as? QueryError)?.kind, .limit) }
    }

    func testDeepConditionIsLimited() {
        var c = T.eq("a", 1)
        for _ in 0..<600 { c = Condition(.not(c)) }
        XCTAssertThrowsError(try QueryPlan(T.query(c))) { XCTAssertEqual(($0 as? QueryError)?.kind, .limit) }
    }
}
