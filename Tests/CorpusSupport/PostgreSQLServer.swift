import Foundation

/// A private PostgreSQL 15 for the tests: `initdb` in a temporary
/// directory, `pg_ctl start` on a free port bound to 127.0.0.1 (and a
/// socket in that directory), run as the unprivileged `postgres` user when
/// the tests run as root (PostgreSQL refuses root); stopped and removed by
/// ``stop()``. If it cannot start, ``start()`` throws with the server's log:
/// the tests fail loudly, they are never skipped.
///
/// Shared by the SQL tests and the server tests (CQLSQLTests, CQLServerTests).
public final class PostgreSQLServer: @unchecked Sendable {
    /// `CQL_PG_BIN`, else Debian's PostgreSQL 15, else the newest installed.
    public static let bin: String = {
        if let b = ProcessInfo.processInfo.environment["CQL_PG_BIN"] { return b }
        let fifteen = "/usr/lib/postgresql/15/bin"
        if FileManager.default.isExecutableFile(atPath: fifteen + "/initdb") { return fifteen }
        let versions = (try? FileManager.default.contentsOfDirectory(atPath: "/usr/lib/postgresql")) ?? []
        let newest = versions.compactMap(Int.init).max()
        return newest.map { "/usr/lib/postgresql/\($0)/bin" } ?? fifteen
    }()
    public let directory: String
    public let port: Int
    public var url: String { "postgres://postgres@127.0.0.1:\(port)/postgres" }

    public struct Failure: Error, CustomStringConvertible {
        public var description: String
        public init(description: String) { self.description = description }
    }

    public init() throws {
        directory = "/tmp/cql-pg-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        port = try PostgreSQLServer.freePort()
    }

    /// `initdb` then `pg_ctl start -w`.
    public func start() throws {
        guard FileManager.default.isExecutableFile(atPath: "\(Self.bin)/initdb") else {
            throw Failure(description: "PostgreSQL 15 is not installed (\(Self.bin)/initdb missing): apt-get install postgresql")
        }
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        if getuid() == 0 { try run("/bin/chown", ["postgres:postgres", directory], asPostgres: false) }
        try run("\(Self.bin)/initdb", ["-D", "\(directory)/data", "-U", "postgres", "-A", "trust", "-E", "UTF8", "--locale=C"])
        try launch()
    }

    private var options: String {
        "-p \(port) -k \(directory) -c listen_addresses=127.0.0.1 -c fsync=off -c synchronous_commit=off -c full_page_writes=off"
    }

    /// `pg_ctl start -w` of the database made by ``start()`` (after ``halt(mode:)``).
    public func launch() throws {
        do {
            try run("\(Self.bin)/pg_ctl", ["-D", "\(directory)/data", "-l", "\(directory)/log", "-o", options, "-w", "-t", "60", "start"])
        } catch {
            let log = (try? String(contentsOfFile: "\(directory)/log", encoding: .utf8)) ?? ""
            throw Failure(description: "\(error)\nserver log:\n\(log)")
        }
    }

    /// `pg_ctl restart -m <mode>` (`fast`: sessions are ended cleanly;
    /// `immediate`: as a crash, recovered at start), waiting until it
    /// accepts connections again. The fault suites' outage.
    public func restart(mode: String) throws {
        try run("\(Self.bin)/pg_ctl", ["-D", "\(directory)/data", "-l", "\(directory)/log", "-o", options, "-m", mode, "-w", "-t", "60", "restart"])
    }

    /// `pg_ctl stop -m <mode>`: down until ``launch()``.
    public func halt(mode: String) throws {
        try run("\(Self.bin)/pg_ctl", ["-D", "\(directory)/data", "-m", mode, "-w", "-t", "60", "stop"])
    }

    /// The postmaster and its children (backends, background processes),
    /// from `postmaster.pid` and `/proc`.
    public func processes() -> [pid_t] {
        guard let text = try? String(contentsOfFile: "\(directory)/data/postmaster.pid", encoding: .utf8),
              let first = text.split(separator: "\n").first, let postmaster = pid_t(first) else { return [] }
        var found: [pid_t] = [postmaster]
        for entry in (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? [] {
            guard let pid = pid_t(entry), let stat = try? String(contentsOfFile: "/proc/\(entry)/stat", encoding: .utf8),
                  let close = stat.lastIndex(of: ")") else { continue }
            // pid (comm) state ppid ...
            let fields = stat[stat.index(after: close)...].split(separator: " ")
            if fields.count > 1, pid_t(fields[1]) == postmaster { found.append(pid) }
        }
        return found
    }

    /// Stops (`SIGSTOP`) or resumes (`SIGCONT`) the postmaster and all its
    /// children: a database that accepts connections and never answers
    /// (a host frozen, a network dropping packets).
    public func freeze(_ frozen: Bool) {
        for pid in processes() { kill(pid, frozen ? SIGSTOP : SIGCONT) }
    }

    public func stop() {
        _ = try? run("\(Self.bin)/pg_ctl", ["-D", "\(directory)/data", "-m", "immediate", "-w", "stop"])
        try? FileManager.default.removeItem(atPath: directory)
    }

    /// Runs `tool` (as `postgres` when the tests run as root) with its
    /// output in a file, and waits for it with `waitpid`.
    ///
    /// Not Foundation's `Process`: on Linux its `waitUntilExit` never returns
    /// once `pg_ctl start` leaves the server running (the child is reaped,
    /// but the daemon keeps the descriptors Foundation watches).
    @discardableResult
    private func run(_ tool: String, _ arguments: [String], asPostgres: Bool = true) throws -> String {
        let argv = asPostgres && getuid() == 0 ? ["/usr/sbin/runuser", "-u", "postgres", "--", tool] + arguments : [tool] + arguments
        let outPath = "\(directory).\(UUID().uuidString).out"
        defer { try? FileManager.default.removeItem(atPath: outPath) }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, outPath, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        posix_spawn_file_actions_adddup2(&actions, 1, 2)
        let cArgs: [UnsafeMutablePointer<CChar>?] = argv.map { strdup($0) } + [nil]
        defer { for a in cArgs { free(a) } }
        var pid: pid_t = 0
        let spawned = posix_spawn(&pid, argv[0], &actions, nil, cArgs, environ)
        guard spawned == 0 else { throw Failure(description: "cannot run \(argv[0]): error \(spawned)") }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) == -1 && errno == EINTR {}
        let text = (try? String(contentsOfFile: outPath, encoding: .utf8)) ?? ""
        // WIFEXITED && WEXITSTATUS == 0, spelled out (the macros are not imported).
        if status & 0x7f != 0 || (status >> 8) & 0xff != 0 {
            throw Failure(description: "\(tool) \(arguments.joined(separator: " ")) failed (status \(status)):\n\(text)")
        }
        return text
    }

    /// A port nobody listens on (bind to 0, read it back, close).
    public static func freePort() throws -> Int {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw Failure(description: "socket() failed") }
        defer { close(fd) }
        var addr = sockaddr_in()
        addr.sin_family = sa_family_t(AF_INET)
        addr.sin_addr.s_addr = inet_addr("127.0.0.1")
        addr.sin_port = 0
        var len = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafePointer(to: &addr) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, len) } }
        guard bound == 0 else { throw Failure(description: "bind() failed") }
        _ = withUnsafeMutablePointer(to: &addr) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &len) } }
        return Int(UInt16(bigEndian: addr.sin_port))
    }
}
