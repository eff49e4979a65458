import CQLKit
import Foundation
import XCTest

/// `cql index` and `cql load` on the SQLite file a running `cql serve`
/// writes to: they wait for the write lock (and say so) as the server
/// does, rather than fail at once with "database is locked"; the server's
/// writes go on.
final class FaultTestsCLI: XCTestCase {
    /// The `cql` binary with `arguments` in `directory`: its exit status and stderr.
    static func cql(_ arguments: [String], in directory: String) throws -> (Int32, String) {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: FaultSupport.binary)
        p.arguments = arguments
        p.currentDirectoryURL = URL(fileURLWithPath: directory)
        let errors = Pipe()
        p.standardError = errors
        p.standardOutput = FileHandle.nullDevice
        try p.run()
        let text = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        p.waitUntilExit()
        return (p.terminationStatus, text)
    }

    func testIndexAndLoadBesideAServerThatWrites() async throws {
        let dir = NSTemporaryDirectory() + "cql-fault-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: dir + "/data", withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let lines = (0..<2000).map { #"{"objectId":"e\#($0)","n":\#($0),"s":"\#(String(repeating: "y", count: 200))"}"# }
        try lines.joined(separator: "\n").write(toFile: dir + "/data/Extra.ndjson", atomically: true, encoding: .utf8)
        let server = try ServedProcess(["--sqlite", dir + "/app.db"], directory: dir)
        let timeline = Timeline()
        let clients = LoadClients(base: server.base, timeline: timeline, patience: 15)
        clients.start(8, [.init(what: "create", method: .POST, path: "/1.1/classes/Item", body: #"{"n":1,"s":"\#(String(repeating: "z", count: 2000))"}"#)],
                      pause: 0)
        try? await Task.sleep(nanoseconds: 300_000_000)
        var runs: [(String, Int32, String)] = []
        for i in 0..<12 {
            let arguments = i % 2 == 0 ? ["index", "--sqlite", "app.db", "n,s"] : ["load", "--sqlite", "app.db", "--class", "Extra\(i)", "data/Extra.ndjson"]
            let (status, errors) = try Self.cql(arguments, in: dir)
            runs.append((arguments[0], status, errors))
        }
        await clients.shutdown()
        let failed = runs.filter { $0.1 != 0 }
        XCTAssertTrue(failed.isEmpty, "\(failed.count) of \(runs.count) CLI runs failed beside the server: \(failed.prefix(2))")
        let writes = timeline.all
        XCTAssertFalse(writes.isEmpty)
        XCTAssertTrue(writes.allSatisfy { $0.status == 201 }, "the server's writes: \(writes.filter { $0.status != 201 }.prefix(3))")
        print("FaultTestsCLI: \(runs.count) CLI runs, \(runs.filter { $0.2.contains("waiting for it") }.count) said they waited; \(writes.count) creates meanwhile")
        XCTAssertEqual(server.stop(within: 10), 0)
    }
}
