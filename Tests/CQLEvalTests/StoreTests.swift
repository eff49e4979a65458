import CQLKit
import XCTest

@testable import CQLEval

final class StoreTests: XCTestCase {
    private var dir: URL!

    override func setUpWithError() throws {
        dir = FileManager.default.temporaryDirectory.appendingPathComponent("cqleval-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
    }

    override func tearDownWithError() throws {
        try? FileManager.default.removeItem(at: dir)
    }

    @discardableResult
    private func write(_ name: String, _ text: String) throws -> String {
        let url = dir.appendingPathComponent(name)
        try text.write(to: url, atomically: true, encoding: .utf8)
        return url.path
    }

    private func loadError(_ path: String, className: String? = nil) -> QueryError? {
        do {
            _ = try DocumentStore.load(path: path, className: className)
            XCTFail("expected a data error")
            return nil
        } catch {
            XCTAssertEqual(error.kind, .data)
            return error
        }
    }

    func testLoadNDJSONWithTypedValuesBlankLinesAndCRLF() throws {
        let path = try write("GameScore.ndjson", "\u{FEFF}{\"objectId\":\"a\",\"at\":{\"__type\":\"Date\",\"iso\":\"2015-06-21T18:02:52.249Z\"}}\r\n\n  \n{\"objectId\":\"b\"}")
        let store = try DocumentStore.load(path: path)
        XCTAssertEqual(store.classNames, ["GameScore"])
        XCTAssertEqual(store.objects(in: "GameScore").count, 2)
        XCTAssertEqual(store.object(className: "GameScore", objectId: "a")?["at"], T.date("2015-06-21T18:02:52.249Z"))
        // A file loaded for a named class.
        XCTAssertEqual(try DocumentStore.load(path: path, className: "Other").classNames, ["Other"])
    }

    func testLoadJSONArrayAndResults() throws {
        let a = try write("A.json", #"[{"objectId":"1"},{"objectId":"2"}]"#)
        let b = try write("B.json", #"{"results":[{"objectId":"3","p":{"__type":"Pointer","className":"A","objectId":"1"}}],"count":1}"#)
        XCTAssertEqual(try DocumentStore.load(path: a).objects(in: "A").count, 2)
        XCTAssertEqual(try DocumentStore.load(path: b).objects(in: "B")[0]["p"], .pointer(Pointer(className: "A", objectId: "1")))
    }

    func testLoadDirectory() throws {
        try write("Post.ndjson", "{\"objectId\":\"p1\"}\n")
        try write("_Join:likes:Post.json", #"[{"owningId":"p1","relatedId":"u1"}]"#)
        try write("notes.txt", "ignored")
        try write(".hidden.ndjson", "not json")
        let store = try DocumentStore.load(path: dir.path)
        XCTAssertEqual(store.classNames, ["Post", "_Join:likes:Post"])
    }

    func testBadNDJSONNamesFileLineAndColumn() throws {
        let path = try write("T.ndjson", "{\"a\":1}\n{\"a\":2}\n{\"a\": tru}\n")
        let message = loadError(path)?.message ?? ""
        XCTAssertTrue(message.hasPrefix("\(path):3:7: invalid JSON:"), message)
    }

    func testNonObjectLineAndBadTypedValue() throws {
        let p1 = try write("A.ndjson", "{}\n[1,2]\n")
        XCTAssertEqual(loadError(p1)?.message, "\(p1):2: expected a JSON object, found an array")
        let p2 = try write("B.ndjson", "{\"loc\":{\"__type\":\"GeoPoint\",\"latitude\":95,\"longitude\":0}}\n")
        XCTAssertEqual(loadError(p2)?.message,
                       "\(p2):1:8: invalid GeoPoint values: latitude must be in -90...90 and longitude in -180...180")
    }

    func testBadJSONFilePositions() throws {
        let p1 = try write("A.json", "[\n  {\"a\":1},\n  7\n]")
        XCTAssertEqual(loadError(p1)?.message, "\(p1):3: expected a JSON object, found an integer")
        let p2 = try write("B.json", "[\n  {\"a\":1,}\n]")
        XCTAssertTrue(loadError(p2)?.message.hasPrefix("\(p2):2:10: invalid JSON") ?? false, loadError(p2)?.message ?? "")
        let p3 = try write("C.json", #"{"a":1}"#)
        XCTAssertEqual(loadError(p3)?.message, "\(p3):1:1: expected an array of objects or {\"results\": [...]}, found an object without 'results'")
        XCTAssertEqual(loadError(dir.appendingPathComponent("nope.ndjson").path)?.message,
                       "\(dir.appendingPathComponent("nope.ndjson").path): no such file or directory")
    }

    func testLongLinesAcrossBufferBoundaries() throws {
        let long = String(repeating: "x", count: 200_000)
        let path = try write("T.ndjson", "{\"s\":\"\(long)\"}\n{\"s\":\"short\"}")
        let store = try DocumentStore.load(path: path)
        XCTAssertEqual(store.objects(in: "T").map { $0["s"]?.stringValue?.count }, [200_000, 5])
    }

    // MARK: Streaming

    func testStreamingWritesOnlyAfterTheWholeInput() throws {
        let good = try write("T.ndjson", (0..<100).map { "{\"objectId\":\"\($0)\",\"n\":\($0)}" }.joined(separator: "\n"))
        let plan = try QueryPlan(T.query(T.cmp("n", .greaterThanOrEqual, 95), skip: 1, limit: 2, count: .withResults))
        var lines: [String] = []
        let r = try plan.filter(stream: good) { lines.append($0) }
        XCTAssertEqual(lines, [#"{"n":96,"objectId":"96"}"#, #"{"n":97,"objectId":"97"}"#])
        XCTAssertEqual(r, StreamResult(written: 2, count: 5, nextSkip: 3))

        let bad = try write("U.ndjson", "{\"n\":99}\n{\"n\":100}\nnot json\n")
        var printed: [String] = []
        XCTAssertThrowsError(try plan.filter(stream: bad) { printed.append($0) }) {
            XCTAssertTrue((($0 as? QueryError)?.message ?? "").hasPrefix("\(bad):3:1: invalid JSON"))
        }
        XCTAssertEqual(printed, [])
    }

    func testStreamingSpillsToATemporaryFile() throws {
        let spool = Spool(memoryLimit: 64)
        for i in 0..<1000 { try spool.append("{\"i\":\(i)}") }
        var out: [String] = []
        try spool.replay { out.append($0) }
        XCTAssertEqual(out.count, 1000)
        XCTAssertEqual(out.first, #"{"i":0}"#)
        XCTAssertEqual(out.last, #"{"i":999}"#)
    }

    func testStreamingWithOrderFallsBackToLoading() throws {
        let path = try write("T.ndjson", "{\"n\":1}\n{\"n\":3}\n{\"n\":2}\n")
        let plan = try QueryPlan(T.query(nil, order: [OrderKey("n", descending: true)]))
        XCTAssertFalse(plan.preservesInputOrder)
        var lines: [String] = []
        _ = try plan.filter(stream: path) { lines.append($0) }
        XCTAssertEqual(lines, [#"{"n":3}"#, #"{"n":2}"#, #"{"n":1}"#])
    }

    func testEvaluationRunOverADirectory() throws {
        try write("Comment.ndjson", "{\"objectId\":\"c1\",\"post\":{\"__type\":\"Pointer\",\"className\":\"Post\",\"objectId\":\"p1\"}}\n{\"objectId\":\"c2\"}\n")
        try write("Post.json", #"[{"objectId":"p1","image":"x"}]"#)
        let withImage = Query(className: "Post", condition: T.c(.exists("image", true)))
        let q = T.query(T.c(.inQuery("post", query: withImage, negated: false)), className: "Comment")
        var lines: [String] = []
        let count = try Evaluation.run(q, dataPath: dir.path) { lines.append($0) }
        XCTAssertNil(count)
        XCTAssertEqual(lines, [#"{"objectId":"c1","post":{"__type":"Pointer","className":"Post","objectId":"p1"}}"#])
        // Include forces loading; count only writes nothing.
        var included: [String] = []
        XCTAssertEqual(try Evaluation.run(T.query(nil, className: "Comment", includes: ["post"]), dataPath: dir.path) { included.append($0) }, nil)
        XCTAssertEqual(included.first, #"{"objectId":"c1","post":{"__type":"Object","className":"Post","image":"x","objectId":"p1"}}"#)
        var none: [String] = []
        XCTAssertEqual(try Evaluation.run(T.query(nil, className: "Comment"), dataPath: dir.path, countOnly: true) { none.append($0) }, 2)
        XCTAssertEqual(none, [])
        // Counting ignores order (and streams).
        XCTAssertEqual(try Evaluation.run(T.query(T.c(.exists("post", true)), className: "Comment", order: [OrderKey("objectId")]),
                                          dataPath: dir.path, countOnly: true) { none.append($0) }, 1)
        XCTAssertEqual(none, [])
        // One file for the query's class.
        let single = dir.appendingPathComponent("Comment.ndjson").path
        XCTAssertEqual(try Evaluation.run(T.query(nil, className: "Anything"), dataPath: single, countOnly: true) { _ in }, 2)
    }
}
