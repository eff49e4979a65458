import CorpusSupport
import Foundation

/// Tests/Clients/round_robin.py over `backends`: each request to the next
/// one in turn. ``log``: one line per request, `<backend> <method> <path> <status>`.
final class RoundRobin: @unchecked Sendable {
    let process = Process()
    let port: Int
    let logPath: String

    init(_ backends: [String], directory: String) throws {
        logPath = directory + "/round-robin-\(UUID().uuidString).log"
        _ = FileManager.default.createFile(atPath: logPath, contents: nil)
        process.executableURL = URL(fileURLWithPath: PythonSDKTests.python)
        process.arguments = [PythonSDKTests.root + "/Tests/Clients/round_robin.py"] + backends
        process.standardOutput = FileHandle(forWritingAtPath: logPath)
        process.standardError = FileHandle(forWritingAtPath: "/dev/null")
        try process.run()
        let deadline = Date().addingTimeInterval(20)
        var found = 0
        while found == 0 && Date() < deadline && process.isRunning {
            let text = (try? String(contentsOfFile: logPath, encoding: .utf8)) ?? ""
            if let line = text.split(separator: "\n").first, line.hasPrefix("listening on ") { found = Int(line.dropFirst(13)) ?? 0 }
            usleep(20_000)
        }
        guard found != 0 else {
            kill(process.processIdentifier, SIGKILL)
            throw PostgreSQLServer.Failure(description: "round_robin.py did not listen")
        }
        port = found
    }

    /// The requests forwarded so far.
    var log: [String] {
        ((try? String(contentsOfFile: logPath, encoding: .utf8)) ?? "").split(separator: "\n").dropFirst().map(String.init)
    }

    /// Kills it (SIGKILL: a child of the test process inherits its blocked
    /// SIGTERM, so `terminate()` would not end it).
    func stop() {
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
    }
}
