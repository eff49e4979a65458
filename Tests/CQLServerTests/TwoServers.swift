import AsyncHTTPClient
import CQLKit
import CQLSQL
import CorpusSupport
import Foundation
import NIOCore
import NIOHTTP1

/// Two `cql serve --postgres` processes (``ServedProcess``) over the
/// database of a ``PostgreSQLServer``, emptied first, sharing one working directory (so
/// one files directory, `./cql-files`).
final class TwoServers: @unchecked Sendable {
    let a: ServedProcess
    let b: ServedProcess
    let directory: String
    let url: String

    init(_ pg: PostgreSQLServer, arguments: [String] = []) throws {
        try PostgreSQLDatabase(url: pg.url).reset()
        url = pg.url
        directory = NSTemporaryDirectory() + "cql-processes-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        a = try ServedProcess(["--postgres", url, "--timeout", "5"] + arguments, directory: directory)
        b = try ServedProcess(["--postgres", url, "--timeout", "5"] + arguments, directory: directory)
    }

    func stop() {
        _ = a.stop(within: 10)
        _ = b.stop(within: 10)
        try? FileManager.default.removeItem(atPath: directory)
    }

    struct Answer: Sendable {
        var status: Int
        var body: Value
        var text: String
    }

    /// Requests with the app's keys (or the master key) to any URL.
    struct Client: Sendable {
        @discardableResult
        func call(_ method: HTTPMethod, _ url: String, _ body: Value = .null, bytes: [UInt8]? = nil, master: Bool = false) async throws -> Answer {
            let json = bytes == nil && body != .null
            let (status, _, text) = try await ServerHarness.send(
                method, url, headers: master ? ServerHarness.masterHeaders : ServerHarness.appHeaders,
                body: bytes ?? (json ? Array(JSONWriter.string(body).utf8) : nil), contentType: json ? "application/json" : nil,
                client: .shared, timeout: .seconds(30), upTo: 1 << 20)
            return Answer(status: status, body: (try? JSONReader.parse(text)) ?? .null, text: text)
        }
    }
}
