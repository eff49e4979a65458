import CQLKit
import Foundation
import XCTest

/// Memory one request may take (Server.md, "Memory a request takes"): a
/// conditional write whose `where` holds a `$inQuery` or `$select` over a
/// large class, and a one-row find with `include`, measured as the served process's peak resident set
/// (`VmHWM` in `/proc/<pid>/status`). Before, the write read every object
/// of the class its condition names, and `include` every class's table,
/// into memory (hundreds of MB for 120,000 objects); now the condition is
/// decided in the database and `include` reads the objects it names.
final class FaultTestsMemory: XCTestCase {
    static let bigCount = 120_000

    /// The served process's `VmHWM` (peak) and `VmRSS`, in MB.
    static func memory(_ pid: pid_t) -> (peak: Double, resident: Double) {
        let text = (try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8)) ?? ""
        func kB(_ field: String) -> Double {
            guard let line = text.split(separator: "\n").first(where: { $0.hasPrefix(field + ":") }) else { return 0 }
            return Double(line.split(separator: " ").dropFirst().first.map(String.init) ?? "") ?? 0
        }
        return (kB("VmHWM") / 1024, kB("VmRSS") / 1024)
    }

    static func encoded(_ s: String) -> String { s.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? s }

    func testAWriteConditionAndAnIncludeOverALargeClassStayBounded() async throws {
        #if !os(Linux)
        throw XCTSkip("reads /proc")
        #endif
        let dir = NSTemporaryDirectory() + "cql-fault-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: dir + "/data", withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let pad = String(repeating: "p", count: 100)
        var big = ""
        big.reserveCapacity(Self.bigCount * 160)
        for i in 0..<Self.bigCount { big += #"{"objectId":"b\#(i)","n":\#(i),"name":"name\#(i)","pad":"\#(pad)"}"# + "\n" }
        // A key only the last object by objectId holds (the schema's last page).
        big += #"{"objectId":"b999999","late":true}"# + "\n"
        try big.write(toFile: dir + "/data/Big.ndjson", atomically: true, encoding: .utf8)
        try #"{"objectId":"a1","owner":"nobody","amount":1,"ref":{"__type":"Pointer","className":"Big","objectId":"b7"}}"#.write(toFile: dir + "/data/Account.ndjson", atomically: true, encoding: .utf8)
        for name in ["Big", "Account"] {
            let (status, errors) = try FaultTestsCLI.cql(["load", "--sqlite", "app.db", "--class", name, "data/\(name).ndjson"], in: dir)
            XCTAssertEqual(status, 0, errors)
        }
        let server = try ServedProcess(["--sqlite", dir + "/app.db"], directory: dir)
        let timeline = Timeline()
        let clients = LoadClients(base: server.base, timeline: timeline, patience: 60)
        await clients.send(.init(what: "warm", method: .GET, path: "/1.1/classes/Account/a1", body: nil))
        let base = Self.memory(server.pid)

        // A write whose condition names every object of Big ($inQuery; it does not hold: 305).
        let inQuery = #"{"ref":{"$inQuery":{"className":"Big","where":{"n":{"$lt":0}}}}}"#
        await clients.send(.init(what: "inQuery", method: .PUT, path: "/1.1/classes/Account/a1?where=" + Self.encoded(inQuery), body: #"{"amount":2}"#))
        let afterInQuery = Self.memory(server.pid)
        // A one-row find with include.
        await clients.send(.init(what: "include", method: .GET, path: "/1.1/classes/Big?limit=1&include=nothing", body: nil))
        let afterInclude = Self.memory(server.pid)
        // The same kind of condition holding: 200.
        let holds = #"{"ref":{"$inQuery":{"className":"Big","where":{"n":7}}}}"#
        await clients.send(.init(what: "holds", method: .PUT, path: "/1.1/classes/Account/a1?where=" + Self.encoded(holds), body: #"{"amount":3}"#))
        // $select over every object of Big, not holding: 305 (before: 154, the
        // evaluator's subquery limit, once Big was read whole). SQLite's SQL for
        // `$select` hands the subquery's documents to the evaluator's test
        // (as a find's does): its peak is reported, not bounded here.
        let select = #"{"owner":{"$select":{"query":{"className":"Big","where":{"n":{"$gte":0}}},"key":"name"}}}"#
        await clients.send(.init(what: "select", method: .PUT, path: "/1.1/classes/Account/a1?where=" + Self.encoded(select), body: #"{"amount":4}"#))
        let afterSelect = Self.memory(server.pid)
        // The schema of Big, read a page at a time (before: the whole class at once).
        let schemaText = await clients.send(.init(what: "schema", method: .GET, path: "/1.1/schemas/Big", body: nil, master: true))
        let schemaAnswer = schemaText.flatMap { try? JSONReader.parse($0) }
        let afterSchema = Self.memory(server.pid)
        await clients.shutdown()

        let answers = Dictionary(timeline.all.map { ($0.what, $0) }, uniquingKeysWith: { a, _ in a })
        func status(_ what: String) -> String { answers[what].map { "\($0.status)/\($0.code.map(String.init) ?? "-") \($0.error ?? "")" } ?? "none" }
        XCTAssertEqual(answers["inQuery"]?.code, 305, status("inQuery"))
        XCTAssertEqual(answers["include"]?.status, 200, status("include"))
        XCTAssertEqual(answers["holds"]?.status, 200, status("holds"))
        XCTAssertEqual(answers["select"]?.code, 305, status("select"))
        let report = String(
            format: "base peak %.0f MB; $inQuery write %.2f s, peak %.0f MB; include %.2f s, peak %.0f MB; $select write %.2f s, peak %.0f MB, resident %.0f MB",
            base.peak, answers["inQuery"]?.seconds ?? -1, afterInQuery.peak, answers["include"]?.seconds ?? -1, afterInclude.peak,
            answers["select"]?.seconds ?? -1, afterSelect.peak, afterSelect.resident)
        print("FaultTestsMemory: \(Self.bigCount) objects in Big; " + report)
        XCTAssertLessThan(afterInQuery.peak - base.peak, 40, "the write's condition read Big into memory: \(report)")
        XCTAssertLessThan(afterInclude.peak - afterInQuery.peak, 40, "include read whole tables: \(report)")
        XCTAssertEqual(answers["schema"]?.status, 200, status("schema"))
        XCTAssertEqual(schemaAnswer?["late"], ["type": "Boolean"], "the schema's pages missed the last object")
        XCTAssertEqual(schemaAnswer?["pad"], ["type": "String"])
        XCTAssertLessThan(afterSchema.peak - max(afterSelect.peak, afterInclude.peak), 40,
                          String(format: "the schema read Big whole: peak %.0f MB after %.0f MB", afterSchema.peak, max(afterSelect.peak, afterInclude.peak)))
        XCTAssertEqual(server.stop(within: 10), 0)
    }
    /// Bodies (Server.md, "Memory a request takes"): eight 15 MiB bodies
    /// that open no object are refused from their first byte, nothing built
    /// (before: each parsed whole, 1.4 GB at once, answers after 13–24 s);
    /// eight large object bodies take turns, two at a time
    /// (`--large-bodies 2`), so the peak is that of two; and once they are
    /// answered the process gives the memory back.
    func testLargeBodiesTakeTurnsAndTheirMemoryIsGivenBack() async throws {
        #if !os(Linux)
        throw XCTSkip("reads /proc")
        #endif
        let dir = NSTemporaryDirectory() + "cql-fault-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let server = try ServedProcess(["--sqlite", dir + "/app.db", "--timeout", "120", "--large-bodies", "2"], directory: dir)
        let timeline = Timeline()
        let clients = LoadClients(base: server.base, timeline: timeline, patience: 180)
        await clients.send(.init(what: "warm", method: .POST, path: "/1.1/classes/Big", body: #"{"a":[1]}"#))
        let base = Self.memory(server.pid)
        func eight(_ what: String, _ body: String) async {
            await withTaskGroup(of: Void.self) { group in
                for i in 0..<8 { group.addTask { await clients.send(.init(what: "\(what)\(i)", method: .POST, path: "/1.1/classes/Big", body: body)) } }
            }
        }
        await eight("array", "[" + String(repeating: "1,", count: (15 << 20) / 2 - 2) + "1]")
        let afterArrays = Self.memory(server.pid)
        // A million numbers (2 MiB): one alone, then eight at once.
        let object = #"{"a":["# + String(repeating: "1,", count: 1 << 20) + "1]}"
        await clients.send(.init(what: "one", method: .POST, path: "/1.1/classes/Big", body: object))
        let afterOne = Self.memory(server.pid)
        await eight("object", object)
        let afterEight = Self.memory(server.pid)
        try await Task.sleep(nanoseconds: 1_000_000_000)
        let settled = Self.memory(server.pid)
        await clients.shutdown()

        let answers = timeline.all
        let report = String(format: "base %.0f MB; 8 arrays: peak %.0f MB; one object: peak %.0f MB; 8 objects: peak %.0f MB, resident %.0f MB, 1 s later %.0f MB",
                            base.peak, afterArrays.peak, afterOne.peak, afterEight.peak, afterEight.resident, settled.resident)
        print("FaultTestsMemory: " + report)
        for a in answers where a.what.hasPrefix("array") {
            XCTAssertEqual(a.code, 107, "\(a.what): \(a.status) \(a.error ?? "")")
            XCTAssertLessThan(a.seconds, 5, a.what)
        }
        for a in answers where a.what == "one" || a.what.hasPrefix("object") { XCTAssertEqual(a.status, 201, "\(a.what): \(a.error ?? "")") }
        XCTAssertLessThan(afterArrays.peak - base.peak, 40, "bodies opening no object were built: \(report)")
        let one = afterOne.peak - base.peak
        XCTAssertLessThan(afterEight.peak - base.peak, 3 * one, "more than two large bodies at once: \(report)")
        XCTAssertLessThan(settled.resident - base.resident, 60, "the memory was not given back: \(report)")
        XCTAssertEqual(server.stop(within: 10), 0)
    }
}
