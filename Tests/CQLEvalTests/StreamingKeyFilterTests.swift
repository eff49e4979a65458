import CQLKit
import XCTest

@testable import CQLEval

/// Streaming parses each line keeping only the keys the condition reads
/// (``Node/rootKeys``), then parses matching lines whole. Results and errors
/// must be those of loading every object whole.
final class StreamingKeyFilterTests: XCTestCase {
    private var dir: URL!

    override func setUpWithError() throws {
        dir = FileManager.default.temporaryDirectory.appendingPathComponent("stream-keys-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
    }

    override func tearDownWithError() throws {
        try? FileManager.default.removeItem(at: dir)
    }

    private func write(_ name: String, _ lines: [String]) throws -> String {
        let url = dir.appendingPathComponent(name)
        try lines.joined(separator: "\n").write(to: url, atomically: true, encoding: .utf8)
        return url.path
    }

    private func plan(_ cql: String) throws -> QueryPlan {
        try QueryPlan(Binder.bind(CQLParser.parse(cql), parameters: []))
    }

    func testRootKeysOfConditions() throws {
        XCTAssertEqual(try plan("select * from T where a.b = 1 and (c > 2 or not d in (1, 2))").condition.rootKeys, ["a", "c", "d"])
        XCTAssertEqual(try plan("select * from T where createdAt < date('2020-01-01T00:00:00Z')").condition.rootKeys, ["createdAt"])
        XCTAssertEqual(try plan("select * from T").condition.rootKeys, [])
        // $elemMatch's inner condition reads elements, not the root.
        let elem = try QueryPlan(WhereJSONReader.read(#"{"where":{"tags":{"$elemMatch":{"x":1}}}}"#, className: "T"))
        XCTAssertEqual(elem.condition.rootKeys, ["tags"])
    }

    func testStreamedResultsEqualLoadedResults() throws {
        let lines = (0..<60).map { i in
            #"{"objectId":"o\#(i)","n":\#(i),"s":"\#(i % 3 == 0 ? "é" : "e")","tags":["t\#(i % 4)"],"#
                + #""at":{"__type":"Date","iso":"2015-06-21T18:02:\#(10 + i % 40).000Z"},"note":"x\ty"}"#
        }
        let path = try write("T.ndjson", lines)
        let store = try DocumentStore.load(path: path, className: "T")
        for cql in ["select * from T where n > 50", "select count(*), * from T where tags = 't1' and s = 'e' limit 3",
                    "select n, s from T where at > date('2015-06-21T18:02:30Z') limit 2, 4", "select count(*) from T where n < 10",
                    "select * from T where note regexp '\\t'"] {
            let p = try plan(cql)
            var streamed: [String] = []
            let r = try p.filter(stream: path) { streamed.append($0) }
            let loaded = try QueryPlan(p.query, store: store).run()
            XCTAssertEqual(streamed, loaded.objects.map { JSONWriter.string(.object($0)) }, cql)
            XCTAssertEqual(r.count, loaded.count, cql)
        }
    }

    func testErrorsInKeysTheConditionDoesNotReadAreStillReported() throws {
        let p = try plan("select * from T where n > 0")
        let bad = [#"{"n":1,"x":{"__type":"GeoPoint","latitude":95,"longitude":0}}"#, #"{"n":1,"x":"\ud800"}"#,
                   #"{"n":1,"x":[1,2,}"#, #"{"n":1,"x":99999999999999999999}"#, #"{"n":1,"x":{"y":[{"__type":"Date"}]}}"#,
                   "{\"n\":1,\"x\":\"\u{1}\"}", #"{"n":1,"x":tru}"#, #"[{"n":1}]"#]
        for line in bad {
            let path = try write("T.ndjson", [#"{"n":1}"#, line, #"{"n":2}"#])
            // The error loading every object whole: streaming must give the same.
            var expected = ""
            XCTAssertThrowsError(try DocumentStore.load(path: path)) { expected = ($0 as? QueryError)?.message ?? "" }
            XCTAssertTrue(expected.hasPrefix(path + ":2"), expected)
            var printed: [String] = []
            XCTAssertThrowsError(try p.filter(stream: path) { printed.append($0) }, line) { e in
                XCTAssertEqual((e as? QueryError)?.message, expected, line)
            }
            XCTAssertEqual(printed, [])
        }
    }
}
