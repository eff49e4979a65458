import ArgumentParser
import CQLKit
import CQLServer
import Foundation
import Logging

/// `cql serve`: LeanCloud's REST storage API over SQLite or PostgreSQL.
struct Serve: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Serve LeanCloud's REST storage API and CQL endpoint over SQLite or PostgreSQL.",
        discussion: """
            Apps built on LeanCloud's SDKs, and Valine and Waline, keep working with their server URL \
            pointed here. The data is a SQLite file (default cql.db in the current directory) or a \
            PostgreSQL database, as `cql load` makes them.

            Keys come from --app-id, --app-key and --master-key, or from CQL_APP_ID, CQL_APP_KEY and \
            CQL_MASTER_KEY (which stay out of `ps`). With none given, keys are made once, kept beside \
            the database (FILE.keys, mode 0600) and shown at start-up.

            With --engine URL, the app's own LeanEngine process (Node leanengine, Python \
            leancloud.Engine) runs beside it: cloud functions (/1.1/functions, /1.1/call) are \
            forwarded there and its hooks run around writes. Start the engine app with \
            LEANCLOUD_API_SERVER pointing here, this server's LEANCLOUD_APP_ID, LEANCLOUD_APP_KEY \
            and LEANCLOUD_APP_MASTER_KEY, and the hook key as LEANCLOUD_APP_HOOK_KEY: --hook-key \
            or CQL_HOOK_KEY, else made once, kept with the keys and shown at start-up.

            SIGTERM or SIGINT stops it: no new connections, requests in flight finish, exit 0.

            Example:
              cql load --sqlite app.db export/
              cql serve --sqlite app.db --port 3000
              cql serve --sqlite app.db --engine http://127.0.0.1:3001
            """
    )

    @Option(help: "The SQLite database file (default: cql.db; created if missing).")
    var sqlite: String?

    @Option(help: "The PostgreSQL database: postgres://user[:password]@host[:port]/database.")
    var postgres: String?

    @Option(help: "The address to listen on.")
    var host = "127.0.0.1"

    @Option(help: "The port to listen on (0: any free port).")
    var port = 3000

    @Option(name: .customLong("app-id"), help: "The application id clients send (X-LC-Id).")
    var appId: String?

    @Option(name: .customLong("app-key"), help: "The application key (what apps carry).")
    var appKey: String?

    @Option(name: .customLong("master-key"), help: "The master key (bypasses restrictions; keep it on servers).")
    var masterKey: String?

    @Option(help: "Connections that read at once (PostgreSQL: that many on the event loops, where concurrent reads of one statement coalesce, and that many for the reads that block).")
    var readers = 4

    @Option(name: .customLong("timeout"), help: "Seconds a request's database work may take before it is stopped.")
    var timeout = 10.0

    @Option(name: .customLong("large-bodies"), help: "Request bodies of 1 MiB or more read and handled at once; the others wait, until their time limit (503, code 124).")
    var largeBodies = 2

    @Option(name: .customLong("password-iterations"), help: "PBKDF2-HMAC-SHA256 iterations of new password hashes (at least 210000).")
    var passwordIterations = Passwords.defaultIterations

    @Option(name: .customLong("login-attempts"), help: "Failed logins of one account within 15 minutes that lock it for 15 minutes (219).")
    var loginAttempts = 5

    @Option(name: .customLong("files"), help: "The directory of uploaded files' bytes (default: beside the SQLite file, <file>.files; with PostgreSQL ./cql-files).")
    var files: String?

    @Option(name: .customLong("max-file-size"), help: "The largest file upload, in bytes.")
    var maxFileSize = 100 << 20

    @Option(name: .customLong("public-url"), help: "The scheme and host clients reach the server at (https://api.example.com), for file URLs.")
    var publicURL: String?

    @Option(name: .customLong("engine"), help: "The app's cloud engine (LeanEngine) to forward cloud functions to and call hooks on: http://127.0.0.1:3001.")
    var engine: String?

    @Option(name: .customLong("hook-key"), help: "The hook key the engine is started with (LEANCLOUD_APP_HOOK_KEY; default: CQL_HOOK_KEY, else made once and kept with the keys).")
    var hookKey: String?
    @Option(name: .customLong("max-connections"), help: "HTTP connections held at once; more are answered 503 and closed (default: the descriptor limit, raised to the hard limit, less 64; at most 16384).")
    var maxConnections: Int?

    @Option(name: .customLong("idle-timeout"), help: "Seconds a connection may stay without a request in progress (a half-sent request head counts as none) before it is closed.")
    var idleTimeout = 60.0

    func validate() throws {
        if sqlite != nil && postgres != nil { throw ValidationError("Give one database: --sqlite FILE or --postgres URL.") }
        if !(0...65535).contains(port) { throw ValidationError("--port takes 0 to 65535.") }
        if readers < 1 || readers > 256 { throw ValidationError("--readers takes 1 to 256.") }
        if !(timeout > 0) { throw ValidationError("--timeout takes a number of seconds above 0.") }
        if largeBodies < 1 || largeBodies > 1024 { throw ValidationError("--large-bodies takes 1 to 1024.") }
        // Below OWASP's floor for PBKDF2-HMAC-SHA256 only a test server may go.
        if passwordIterations < 210_000 { throw ValidationError("--password-iterations takes 210000 or more.") }
        if loginAttempts < 1 { throw ValidationError("--login-attempts takes 1 or more.") }
        if let maxConnections, maxConnections < 1 { throw ValidationError("--max-connections takes 1 or more.") }
        if !(idleTimeout > 0) { throw ValidationError("--idle-timeout takes a number of seconds above 0.") }
        if maxFileSize < 1 { throw ValidationError("--max-file-size takes 1 or more bytes.") }
        if let publicURL, !(publicURL.hasPrefix("http://") || publicURL.hasPrefix("https://")) {
            throw ValidationError("--public-url takes http://... or https://...")
        }
        if let engine, !(engine.hasPrefix("http://") || engine.hasPrefix("https://")) {
            throw ValidationError("--engine takes http://... or https://...")
        }
    }

    func run() throws {
        // Whatever the server creates (database, WAL, keys, files) is its owner's alone.
        umask(0o077)
        let location: ServerStorage.Location = postgres.map { .postgres(url: $0) } ?? .sqlite(path: sqlite ?? "cql.db")
        var keys = try resolveKeys(location)
        keys.hookKey = try resolveHookKey(location)
        var configuration = CQLServer.Configuration(storage: location, host: host, port: port, keys: keys)
        configuration.readers = readers
        configuration.requestTimeout = timeout
        configuration.largeBodiesAtOnce = largeBodies
        configuration.passwordIterations = passwordIterations
        configuration.loginAttempts = loginAttempts
        configuration.filesDirectory = files
        configuration.maximumFileSize = maxFileSize
        configuration.publicURL = publicURL
        configuration.engine = engine.map { CloudEngine.Configuration(url: $0) }
        // The descriptor limit is raised either way: the database and the files need descriptors too.
        let defaultMaximum = ConnectionLimits.defaultMaximum()
        configuration.connections = ConnectionLimits(maximum: maxConnections ?? defaultMaximum, idleTimeout: idleTimeout)
        LoggingSystem.bootstrap { label in ServerLogHandler(label: label) }
        CQLServer.returnLargeAllocationsToTheSystem()
        let server: CQLServer
        do {
            server = try CQLServer(configuration: configuration)
        } catch {
            throw CommandFailure("error: " + error.message)
        }
        let outcome = ServeOutcome()
        let done = DispatchSemaphore(value: 0)
        let shownHost = host, appId = keys.appId
        Task {
            do {
                try await server.run { port in
                    Output.error("cql serve: listening on http://\(shownHost):\(port) (app id \(appId))")
                }
            } catch {
                outcome.failure = "\(error)"
            }
            done.signal()
        }
        done.wait()
        // The access log's last lines (it writes in batches).
        ServerLogBuffer.shared.flush()
        if let failure = outcome.failure { throw CommandFailure("error: cql serve: \(failure)") }
    }

    /// The hook key: the flag, then `CQL_HOOK_KEY`, then (with an engine)
    /// the keys file beside the database; nil without an engine or a key.
    func resolveHookKey(_ location: ServerStorage.Location) throws(CommandFailure) -> String? {
        if let given = hookKey ?? ProcessInfo.processInfo.environment["CQL_HOOK_KEY"], !given.isEmpty { return given }
        guard let engine else { return nil }
        let file = Self.keysFile(location)
        do {
            let (key, generated) = try AppKeys.loadOrGenerateHookKey(file: file)
            if generated {
                Output.error("cql serve: made a hook key and saved it in \(file); start the engine app at \(engine) with LEANCLOUD_APP_HOOK_KEY=\(key)")
            } else {
                Output.error("cql serve: the engine app at \(engine) needs LEANCLOUD_APP_HOOK_KEY=<CQL_HOOK_KEY in \(file)>")
            }
            return key
        } catch {
            throw CommandFailure("error: \(error)")
        }
    }

    /// Where keys not given are kept: beside the SQLite file, or in the
    /// working directory for PostgreSQL.
    static func keysFile(_ location: ServerStorage.Location) -> String {
        switch location {
        case .sqlite(let path): return path + ".keys"
        case .postgres: return "cql-serve.keys"
        }
    }

    /// Flags, then the environment, then the keys file beside the database.
    func resolveKeys(_ location: ServerStorage.Location) throws(CommandFailure) -> AppKeys {
        let env = ProcessInfo.processInfo.environment
        let given = [appId ?? env["CQL_APP_ID"], appKey ?? env["CQL_APP_KEY"], masterKey ?? env["CQL_MASTER_KEY"]]
        let present = given.compactMap { $0 }.filter { !$0.isEmpty }
        if present.count == 3 { return AppKeys(appId: present[0], appKey: present[1], masterKey: present[2]) }
        if !present.isEmpty {
            throw CommandFailure("error: give all three keys (--app-id, --app-key, --master-key or CQL_APP_ID, CQL_APP_KEY, CQL_MASTER_KEY), or none to use generated ones", status: 2)
        }
        let file = Self.keysFile(location)
        do {
            let (keys, generated) = try AppKeys.loadOrGenerate(file: file)
            if generated {
                Output.error("""
                    cql serve: made new keys and saved them in \(file) (readable by you only):
                      app id:     \(keys.appId)
                      app key:    \(keys.appKey)
                      master key: \(keys.masterKey)
                    """)
            } else {
                Output.error("cql serve: keys from \(file): app id \(keys.appId), app key \(keys.appKey) (the master key is in the file)")
            }
            return keys
        } catch {
            throw CommandFailure("error: \(error)")
        }
    }
}

/// How the server task ended, read by the waiting command.
final class ServeOutcome: @unchecked Sendable {
    var failure: String?
}
