import Crypto
import Foundation
import XCTest

/// What the migration tests (files fetch, dump, pull) share: temporary
/// directories, a local HTTP file host standing in for LeanCloud's file
/// domains, curl, MD5.
enum Migration {
    /// A new empty temporary directory (removed by the caller).
    static func directory(_ label: String) throws -> String {
        let dir = NSTemporaryDirectory() + "cql-\(label)-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        return dir
    }

    static func md5(_ data: Data) -> String {
        Insecure.MD5.hash(data: data).map { String(format: "%02x", $0) }.joined()
    }

    /// Writes `lines` (one JSON text each) as a LeanCloud export part with its header.
    static func writePart(_ dir: String, className: String, _ lines: [String], part: Int = 0) throws {
        let text = (["#filetype:JSON-streaming;version=1.0;class=\(className)"] + lines).joined(separator: "\n") + "\n"
        try Data(text.utf8).write(to: URL(fileURLWithPath: "\(dir)/\(className).\(part).jsonl"))
    }

    /// curl: the status code and the body as bytes.
    static func curl(_ arguments: [String]) throws -> (Int, Data) {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/curl")
        let marker = "\n--cql-status:"
        p.arguments = ["-s", "-g", "-w", marker + "%{http_code}"] + arguments
        let out = Pipe()
        p.standardOutput = out
        try p.run()
        let data = out.fileHandleForReading.readDataToEndOfFile()
        p.waitUntilExit()
        guard let r = data.range(of: Data(marker.utf8), options: .backwards) else { return (0, data) }
        let code = Int(String(decoding: data[r.upperBound...], as: UTF8.self)) ?? 0
        return (code, data[..<r.lowerBound])
    }

    /// curl's body as text.
    static func curlText(_ arguments: [String]) throws -> (Int, String) {
        let (code, data) = try curl(arguments)
        return (code, String(decoding: data, as: UTF8.self))
    }
}

/// A local HTTP server of a directory's files (Python's http.server with a
/// handler of its own): a path's bytes in 64 KiB writes, `delay` seconds
/// apart (a slow host, to stop a fetch in the middle); a missing file is
/// 404; a path under `flaky/` answers 503 the first time it is asked.
final class FileHost: @unchecked Sendable {
    let process = Process()
    let root: String
    var port = 0
    var base: String { "http://127.0.0.1:\(port)" }

    static let script = #"""
        import http.server, os, sys, time, urllib.parse
        root, delay = sys.argv[1], float(sys.argv[2])
        asked = set()
        class Handler(http.server.BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"
            def do_GET(self):
                path = urllib.parse.unquote(urllib.parse.urlsplit(self.path).path).lstrip("/")
                if path.startswith("flaky/") and path not in asked:
                    asked.add(path)
                    return self.answer(503, b"try again")
                full = os.path.join(root, path.replace("flaky/", "", 1))
                if not os.path.isfile(full):
                    return self.answer(404, b"not found")
                data = open(full, "rb").read()
                self.send_response(200)
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                for i in range(0, len(data), 65536):
                    self.wfile.write(data[i:i + 65536])
                    self.wfile.flush()
                    if delay: time.sleep(delay)
            def answer(self, code, body):
                self.send_response(code)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)
            def log_message(self, *args):
                pass
        server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        print(server.server_address[1], flush=True)
        server.serve_forever()
        """#

    init(root: String, delay: Double = 0) throws {
        self.root = root
        let script = root + "/../file_host_\(UUID().uuidString).py"
        try Data(Self.script.utf8).write(to: URL(fileURLWithPath: script))
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", script, root, String(delay)]
        let out = Pipe()
        process.standardOutput = out
        process.standardError = FileHandle.nullDevice
        try process.run()
        var text = ""
        let deadline = Date().addingTimeInterval(30)
        while !text.contains("\n") && Date() < deadline {
            let chunk = out.fileHandleForReading.availableData
            if chunk.isEmpty { break }
            text += String(decoding: chunk, as: UTF8.self)
        }
        guard let p = Int(text.trimmingCharacters(in: .whitespacesAndNewlines)) else {
            process.terminate()
            throw CocoaError(.fileReadUnknown, userInfo: [NSLocalizedDescriptionKey: "the file host did not start: \(text)"])
        }
        port = p
    }

    func stop() {
        guard process.isRunning else { return }
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
    }

    deinit { stop() }
}

/// A `cql serve` child on a free port (keys a / k / m), its access log
/// read away so that its stderr never fills.
final class ServeChild: @unchecked Sendable {
    let child: ServeCommandTests.ServeProcess
    var port: Int { child.port }
    var base: String { "http://127.0.0.1:\(port)" }
    static let keys = ["CQL_APP_ID": "a", "CQL_APP_KEY": "k", "CQL_MASTER_KEY": "m"]
    static let master = ["-H", "X-LC-Id: a", "-H", "X-LC-Key: m,master"]

    init(_ arguments: [String], directory: String) throws {
        child = try ServeCommandTests.ServeProcess(arguments, environment: Self.keys, directory: directory)
        let handle = child.errors.fileHandleForReading
        Thread { while !handle.availableData.isEmpty {} }.start()
    }

    func stop() {
        guard child.process.isRunning else { return }
        _ = child.stop(signal: SIGTERM)
    }

    deinit { stop() }

    /// A master-key request's JSON body.
    func get(_ path: String, _ parameters: [String] = []) throws -> (Int, String) {
        try Migration.curlText(["-G"] + Self.master + parameters.flatMap { ["--data-urlencode", $0] } + [base + path])
    }
}
