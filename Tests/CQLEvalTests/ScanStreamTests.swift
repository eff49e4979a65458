import CQLKit
import CorpusSupport
import XCTest

@testable import CQLEval

/// Streaming NDJSON tests most lines from the structural scan
/// (`JSONLineScan`, ``ScanCondition``) and writes matches from their bytes;
/// what it prints, its count and its first error must be those of loading
/// every object with the reader and running the plan over them. Lines mix
/// the scan's common form with what it leaves to the reader: escapes,
/// surrogates, non-ASCII, duplicate keys, typed values, deep nesting,
/// numbers at the edges of Int64 and Double, spaces; and the lines of
/// LeanCloud exports (Chinese text, Dates, Pointers, GeoPoints, ACLs), which
/// the scan now takes itself.
final class ScanStreamTests: XCTestCase {
    private var dir: URL!

    override func setUpWithError() throws {
        dir = FileManager.default.temporaryDirectory.appendingPathComponent("scan-stream-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
    }

    override func tearDownWithError() throws {
        try? FileManager.default.removeItem(at: dir)
    }

    private func write(_ lines: [String]) throws -> String {
        let url = dir.appendingPathComponent("T.ndjson")
        try lines.joined(separator: "\n").write(to: url, atomically: true, encoding: .utf8)
        return url.path
    }

    private func plan(_ cql: String) throws -> QueryPlan {
        try QueryPlan(Binder.bind(CQLParser.parse(cql), parameters: []))
    }

    private static let conditions = [
        "score > 500", "score >= 5 and flag = false and name regexp '^(al|ca)'",
        "score > 1 and score < 900 and flag = false and level in (1, 3, null) and name like 'al%' "
            + "and player.country = 'fr' and tags = 'red' and player.rank >= 10",
        "name = 'é' or tags = 'red'", "level = null and name is exists", "size(tags) = 2 and not (score = 1)",
        "score = 1.5 or score = 9223372036854775807", "createdAt < date('2020-01-01T00:00:00Z')", "x = 1",
        "tags in ('red', 'blue') and K is not exists", "player.rank = null and player.country is not exists",
        "player.country in ('fr', null) or player.rank > 10",
        "due >= date('2024-03-01T00:00:00.000Z') and due < date('2024-06-01T00:00:00.000Z') and tags = '旅行'",
        "name regexp '(?i)(trip|美食)\\s+[0-9]+' and meta.source = 'ios'", "author.objectId = 'u1' or loc.latitude > 30",
        "meta.at < date('2025-01-01') and name like '北京%'", "name > '中' and score >= 4",
    ]

    private static let lines = [
        #"{"objectId":"o1","name":"alice","score":970,"flag":false,"level":1,"tags":["red","blue"],"player":{"country":"fr","rank":16}}"#,
        #"{"objectId":"o2","name":"calvin","score":7,"flag":false,"level":3,"tags":["red"],"player":{"rank":10,"country":"fr"}}"#,
        #" { "name" : "alfred" , "score" : 600 , "flag" : false , "tags" : [ "red" , "gold" ] , "level" : null } "#,
        #"{"name":"al\u0065x","score":5,"flag":false,"name":"carl","tags":["red","x\/y"]}"#,
        #"{"name":"é","score":-0,"flag":false,"level":1,"tags":[]}"#, #"{"name":"al\ud83d\ude00","score":1.5,"flag":false}"#,
        #"{"score":9223372036854775807,"flag":false,"name":"al"}"#, #"{"score":1e3,"flag":false,"name":"ca"}"#,
        #"{"score":123456789012345678,"level":3,"name":"alm","flag":false,"player":{"country":"fr","rank":11,"rank":9}}"#,
        #"{"createdAt":"2019-01-01T00:00:00.000Z","score":2}"#, #"{"createdAt":{"__type":"Date","iso":"2019-06-01T00:00:00.000Z"}}"#,
        #"{"x":1,"x":2,"score":600}"#, #"{"x":[1,[2,{"x":1}]],"score":"600","tags":"red"}"#, #"{}"#, #"  "#,
        #"{"tags":[[["red"]]],"player":[{"country":"fr","rank":50}],"score":501,"flag":false,"name":"alx","level":1}"#,
        #"{"deep":"# + String(repeating: "[", count: 40) + String(repeating: "]", count: 40) + #","score":700}"#,
        "{\"name\":\"al\u{7F}\",\"score\":800,\"flag\":false}", #"{"K":1,"score":0.000001,"name":"ca\tb"}"#,
        #"{"player":"fr","score":600}"#, #"{"player":null,"score":600}"#, #"{"player":{"rank":null},"score":600}"#,
        #"{"player":{"country":"de","rank":20},"player":{"rank":"x"},"score":600}"#,
        // LeanCloud exports: UTF-8 text, typed values, ACLs, nested objects.
        #"{"name":"北京 Trip 12 日记","score":5,"flag":false,"tags":["旅行","美食"],"due":{"__type":"Date","iso":"2024-04-01T08:00:00.000Z"},"#
            + #""author":{"__type":"Pointer","className":"_User","objectId":"u1"},"loc":{"__type":"GeoPoint","latitude":39.9,"longitude":116.4},"#
            + #""meta":{"source":"ios","at":{"__type":"Date","iso":"2024-01-02T00:00:00.000Z"}},"ACL":{"*":{"read":true}}}"#,
        #"{"name":"上海 美食  7","score":4,"tags":["旅行"],"due":{"__type":"Date","iso":"2024-05-31T23:59:59.999+08:00"},"meta":{"source":"ios"}}"#,
        #"{"name":"😀 café trip 3","score":700,"flag":false,"tags":"旅行","due":{"iso":"2024-03-05T00:00:00.000Z","__type":"Date"},"#
            + #""loc":{"__type":"GeoPoint","latitude":90,"longitude":-180},"meta":{"source":"web","source":"ios"}}"#,
        #"{"name":"\u5317\u4eac trip 1","score":9,"due":{"__type":"Date","iso":"2024-03-01T00:00:00Z"},"author":{"__type":"Pointer","className":"_User","objectId":"u2"}}"#,
        #"{"name":"mixed 中 Ω","meta":{"__type":"Pointer","className":"M","objectId":"x"},"loc":{"__type":"Nope","latitude":50},"score":4}"#,
    ]

    func testStreamedEqualsLoadedOnRandomFiles() throws {
        var rng = SplitMix64(seed: 99)
        for round in 0..<12 {
            let file = (0..<(40 + rng.below(60))).map { _ in rng.pick(ScanStreamTests.lines) }
            let path = try write(file)
            var objects: [[String: Value]] = []
            try DataLoader.forEachObject(inNDJSON: path) { (o, _) throws(QueryError) in objects.append(o) }
            for condition in ScanStreamTests.conditions {
                for select in ["select *", "select name, score", "select count(*)", "select count(*), *"] {
                    let cql = select + " from T where " + condition
                    let p = try plan(cql)
                    let expected = try p.run(over: objects)
                    var streamed: [String] = []
                    let r = try p.filter(stream: path) { streamed.append($0) }
                    XCTAssertEqual(streamed, expected.objects.map { JSONWriter.string(.object($0)) }, "round \(round): \(cql)")
                    XCTAssertEqual(r.count, expected.count, "round \(round): \(cql)")
                }
            }
        }
    }

    /// Invalid UTF-8 in a string: the reader's error, at its line.
    func testInvalidUTF8IsTheReadersError() throws {
        let good = Array(#"{"name":"北京 trip 1","score":970,"tags":["旅行"]}"#.utf8)
        for sequence: [UInt8] in [[0xC0, 0x80], [0xED, 0xA0, 0x80], [0xF4, 0x90, 0x80, 0x80], [0xE4, 0xB8], [0x80]] {
            let bad = Array(#"{"score":1,"name":"中"#.utf8) + sequence + Array(#"文"}"#.utf8)
            let url = dir.appendingPathComponent("T.ndjson")
            try Data(good + [0x0A] + bad + [0x0A] + good).write(to: url)
            var expected = ""
            XCTAssertThrowsError(try DocumentStore.load(path: url.path)) { expected = ($0 as? QueryError)?.message ?? "" }
            XCTAssertTrue(expected.hasPrefix(url.path + ":2:"), expected)
            for cql in ["select * from T where score > 5", "select count(*) from T where name regexp '(?i)trip'"] {
                XCTAssertThrowsError(try plan(cql).filter(stream: url.path) { _ in }) { e in
                    XCTAssertEqual((e as? QueryError)?.message, expected, "\(sequence)")
                }
            }
        }
    }

    func testFirstErrorIsTheReadersWhateverTheScanAccepts() throws {
        let bad = [#"{"score":1,"x":99999999999999999999}"#, #"{"score":1,"x":"\ud800"}"#, #"{"score":1,"x":[1,}"#,
                   #"{"score":1,"x":1e999}"#, #"{"score":1,"x":{"__type":"Date"}}"#, "{\"score\":1,\"x\":\"\u{1}\"}", #"{"score":01}"#,
                   #"{"score":1}x"#, #"{"score":1,"#, #"["score"]"#, #"{"score":1,"x":{"__type":"Date","iso":"2024-02-30"}}"#,
                   #"{"score":1,"x":[{"__type":"GeoPoint","latitude":91,"longitude":0}]}"#,
                   #"{"score":1,"x":{"y":{"__type":"Pointer","className":"A"}}}"#]
        for line in bad {
            let good = #"{"objectId":"o1","name":"alice","score":970,"tags":["red"],"player":{"country":"fr","rank":16}}"#
            let path = try write([good, good, line, good])
            var expected = ""
            XCTAssertThrowsError(try DocumentStore.load(path: path)) { expected = ($0 as? QueryError)?.message ?? "" }
            XCTAssertTrue(expected.hasPrefix(path + ":3:"), expected)
            for cql in ["select * from T where score > 5", "select count(*) from T where score > 5 and name regexp 'a'"] {
                var printed: [String] = []
                XCTAssertThrowsError(try plan(cql).filter(stream: path) { printed.append($0) }, line) { e in
                    XCTAssertEqual((e as? QueryError)?.message, expected, line)
                }
                XCTAssertEqual(printed, [])
            }
        }
    }
}
