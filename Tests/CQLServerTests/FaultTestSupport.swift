import AsyncHTTPClient
import CQLKit
import CorpusSupport
import Foundation
import NIOCore
import NIOHTTP1
import XCTest

/// What the fault suites (`FaultTests*`) share: the `cql serve` binary run
/// as a child process (so that it can be signalled, and run under a
/// descriptor limit), and clients that record every answer on a timeline.
enum FaultSupport {
    /// The built `cql` beside the test bundle (`swift build --build-tests`
    /// and `swift test` build it); `CQL_FAULT_BINARY` runs the suites
    /// against another build (the one before a fix, to see them fail).
    static var binary: String {
        if let b = ProcessInfo.processInfo.environment["CQL_FAULT_BINARY"] { return b }
        var dir = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        if dir.lastPathComponent.hasSuffix(".xctest") { dir.deleteLastPathComponent() }
        return dir.appendingPathComponent("cql").path
    }

    static let keys = ServerHarness.keys

    static func elapsed(since start: ContinuousClock.Instant) -> Double {
        let d = ContinuousClock.now - start
        return Double(d.components.seconds) + Double(d.components.attoseconds) / 1e18
    }
}

/// A `cql serve` child process: started with `arguments` after
/// `serve --port 0` and the test keys, its stderr collected, its port read
/// from the listening line.
final class ServedProcess: @unchecked Sendable {
    let pid: pid_t
    let port: Int
    private let stderrPath: String
    private var exitStatus: Int32?
    var base: String { "http://127.0.0.1:\(port)" }

    /// `shellPrefix`: shell text run before `exec cql ...` (`ulimit -n 256`).
    init(_ arguments: [String], shellPrefix: String = "", directory: String) throws {
        stderrPath = directory + "/serve-\(UUID().uuidString).err"
        let quoted = ([FaultSupport.binary, "serve", "--port", "0", "--app-id", FaultSupport.keys.appId, "--app-key", FaultSupport.keys.appKey,
                       "--master-key", FaultSupport.keys.masterKey] + arguments)
            .map { "'" + $0.replacingOccurrences(of: "'", with: "'\\''") + "'" }.joined(separator: " ")
        let cd = "cd '" + directory.replacingOccurrences(of: "'", with: "'\\''") + "'"
        let script = cd + "; " + (shellPrefix.isEmpty ? "" : shellPrefix + "; ") + "exec " + quoted
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 2, stderrPath, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        let argv = ["/bin/sh", "-c", script]
        let cArgs: [UnsafeMutablePointer<CChar>?] = argv.map { strdup($0) } + [nil]
        defer { for a in cArgs { free(a) } }
        var child: pid_t = 0
        let spawned = posix_spawn(&child, argv[0], &actions, nil, cArgs, environ)
        guard spawned == 0 else { throw PostgreSQLServer.Failure(description: "cannot run \(FaultSupport.binary): error \(spawned)") }
        pid = child
        var found = 0
        let deadline = Date().addingTimeInterval(60)
        while found == 0 && Date() < deadline {
            let text = (try? String(contentsOfFile: stderrPath, encoding: .utf8)) ?? ""
            if let r = text.range(of: #"listening on http://[0-9.]+:(\d+)"#, options: .regularExpression) {
                found = Int(text[r].split(separator: ":").last!)!
                break
            }
            var status: Int32 = 0
            if waitpid(child, &status, WNOHANG) == child {
                throw PostgreSQLServer.Failure(description: "cql serve exited (status \(status)) before listening:\n\(text)")
            }
            usleep(20_000)
        }
        guard found != 0 else {
            kill(child, SIGKILL)
            let text = (try? String(contentsOfFile: stderrPath, encoding: .utf8)) ?? ""
            throw PostgreSQLServer.Failure(description: "cql serve did not listen within 60 s:\n\(text)")
        }
        port = found
    }

    var stderr: String { (try? String(contentsOfFile: stderrPath, encoding: .utf8)) ?? "" }

    /// Whether the process is still running.
    var isRunning: Bool {
        if exitStatus != nil { return false }
        var status: Int32 = 0
        if waitpid(pid, &status, WNOHANG) == pid {
            exitStatus = status
            return false
        }
        return true
    }

    /// Sends `signal` and waits up to `seconds` for the exit: its status
    /// (`waitpid`'s), or nil when it did not exit in time (then killed).
    func stop(signal: Int32 = SIGTERM, within seconds: Double) -> Int32? {
        if let exitStatus { return exitStatus }
        kill(pid, signal)
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            var status: Int32 = 0
            if waitpid(pid, &status, WNOHANG) == pid {
                exitStatus = status
                return status
            }
            usleep(10_000)
        }
        kill(pid, SIGKILL)
        var status: Int32 = 0
        waitpid(pid, &status, 0)
        exitStatus = status
        return nil
    }

    deinit {
        if exitStatus == nil && isRunning {
            kill(pid, SIGKILL)
            var status: Int32 = 0
            waitpid(pid, &status, 0)
        }
        try? FileManager.default.removeItem(atPath: stderrPath)
    }
}

/// Every answer a fault test's clients got: when it was asked (seconds
/// since the recording began), what, the status (0: no answer in time,
/// -1: a transport error), the code and how long it took.
final class Timeline: @unchecked Sendable {
    struct Entry {
        var at: Double
        var what: String
        var status: Int
        var code: Int64?
        var seconds: Double
        /// The error's message (of an answer with status 400 or more).
        var error: String?
        /// When the answer came.
        var finished: Double { at + seconds }
    }

    let start = ContinuousClock.now
    private var entries: [Entry] = []
    private var marks: [(Double, String)] = []
    private let lock = NSLock()

    var now: Double { FaultSupport.elapsed(since: start) }

    func record(_ e: Entry) {
        lock.lock()
        entries.append(e)
        lock.unlock()
    }

    /// Notes an event (a restart begun, PostgreSQL back) on the timeline.
    func mark(_ text: String) {
        lock.lock()
        marks.append((FaultSupport.elapsed(since: start), text))
        lock.unlock()
    }

    var all: [Entry] {
        lock.lock()
        defer { lock.unlock() }
        return entries
    }

    func entries(from: Double, to: Double) -> [Entry] { all.filter { $0.at >= from && $0.at < to } }

    /// The answers per `step` seconds, as text: `t=1.50 200×12 503/100×3`, and the marks.
    func summary(step: Double = 0.5) -> String {
        let es = all.sorted { $0.at < $1.at }
        lock.lock()
        let ms = marks
        lock.unlock()
        guard let last = es.last?.at else { return "(no requests)" }
        var lines: [String] = []
        var t = 0.0
        var mi = 0
        while t <= last {
            while mi < ms.count, ms[mi].0 < t + step {
                lines.append(String(format: "  -- %.2f s: %@", ms[mi].0, ms[mi].1))
                mi += 1
            }
            let bucket = es.filter { $0.at >= t && $0.at < t + step }
            var counts: [String: Int] = [:]
            for e in bucket { counts[e.status == 200 || e.status == 201 ? "\(e.status)" : "\(e.status)/\(e.code.map(String.init) ?? "-")", default: 0] += 1 }
            let slowest = bucket.map(\.seconds).max() ?? 0
            lines.append(String(format: "t=%5.2f ", t) + counts.sorted { $0.key < $1.key }.map { "\($0.key)×\($0.value)" }.joined(separator: " ")
                         + String(format: "  (slowest %.2f s)", slowest))
            t += step
        }
        while mi < ms.count {
            lines.append(String(format: "  -- %.2f s: %@", ms[mi].0, ms[mi].1))
            mi += 1
        }
        return lines.joined(separator: "\n")
    }
}

/// Clients that each send requests one after another until stopped.
final class LoadClients: @unchecked Sendable {
    let client = HTTPClient(eventLoopGroupProvider: .singleton)
    let base: String
    let timeline: Timeline
    /// The longest a client waits for an answer before it counts as none (status 0).
    let patience: Double
    private var tasks: [Task<Void, Never>] = []
    private let stopped = LockedFlag()

    init(base: String, timeline: Timeline, patience: Double) {
        self.base = base
        self.timeline = timeline
        self.patience = patience
    }

    struct Request: Sendable {
        var what: String
        var method: HTTPMethod
        var path: String
        var body: String?
        /// With the master key rather than the app key.
        var master = false
    }

    /// `count` clients, each cycling through `requests` (client i starts at request i).
    func start(_ count: Int, _ requests: [Request], pause: Double = 0.01) {
        for i in 0..<count {
            tasks.append(Task { [self] in
                var n = i
                while !stopped.value {
                    let r = requests[n % requests.count]
                    n += 1
                    await send(r)
                    try? await Task.sleep(nanoseconds: UInt64(pause * 1e9))
                }
            })
        }
    }

    /// Sends `r`, records its answer, and returns the answer's body.
    @discardableResult
    func send(_ r: Request) async -> String? {
        let at = timeline.now
        let began = ContinuousClock.now
        var request = HTTPClientRequest(url: base + r.path)
        request.method = r.method
        for (name, value) in r.master ? ServerHarness.masterHeaders : ServerHarness.appHeaders { request.headers.add(name: name, value: value) }
        if let body = r.body {
            request.headers.add(name: "Content-Type", value: "application/json")
            request.body = .bytes(ByteBuffer(string: body))
        }
        var status = -1
        var code: Int64?
        var message: String?
        var text: String?
        do {
            let response = try await client.execute(request, timeout: .milliseconds(Int64(patience * 1000)))
            let bytes = try await response.body.collect(upTo: 16 << 20)
            text = String(buffer: bytes)
            status = Int(response.status.code)
            if status >= 400 {
                let body = try? JSONReader.parse(String(buffer: bytes))
                code = body?["code"]?.int
                message = body?["error"]?.string
            }
        } catch let e as HTTPClientError where e == .deadlineExceeded || e == .readTimeout {
            status = 0
        } catch {
            status = -1
        }
        timeline.record(.init(at: at, what: r.what, status: status, code: code, seconds: FaultSupport.elapsed(since: began), error: message))
        return text
    }

    func stop() async {
        stopped.value = true
        for t in tasks { await t.value }
        tasks = []
    }

    func shutdown() async {
        await stop()
        try? await client.shutdown()
    }
}

final class LockedFlag: @unchecked Sendable {
    private var stored = false
    private let lock = NSLock()
    var value: Bool {
        get { lock.lock(); defer { lock.unlock() }; return stored }
        set { lock.lock(); stored = newValue; lock.unlock() }
    }
}
