import CQLKit
import CQLSQL
import Hummingbird
import HummingbirdCore
import HummingbirdWebSocket
import Logging
import NIOCore
import NIOPosix

/// `cql serve`: LeanCloud's REST storage API and CQL endpoint over SQLite or
/// PostgreSQL, on Hummingbird 2 (swift-nio).
///
/// ```swift
/// let server = try CQLServer(configuration: .init(storage: .sqlite(path: "app.db"),
///                                                 keys: AppKeys(appId: "app", appKey: "key", masterKey: "master")))
/// try await server.run()   // until SIGTERM or SIGINT: then in-flight requests finish, and it returns
/// ```
public struct CQLServer: Sendable {
    public struct Configuration: Sendable {
        public var storage: ServerStorage.Location
        public var host: String = "127.0.0.1"
        /// 0: a free port, chosen by the system (``CQLServer/CQLServer/run(handleSignals:onListening:)`` says which).
        public var port: Int = 3000
        public var keys: AppKeys
        /// Larger bodies are refused with 413.
        public var maximumBodySize: Int = 16 << 20
        /// Bodies of this size or more are large: at most
        /// ``largeBodiesAtOnce`` of them are read and handled at once, the
        /// others wait until their deadline (`RequestBodyReader`).
        public var largeBodySize: Int = 1 << 20
        public var largeBodiesAtOnce: Int = 2
        /// A request's database work longer than this is stopped (code 124).
        public var requestTimeout: Double = 10
        /// Connections that read at once.
        public var readers: Int = 4
        /// PBKDF2 iterations of new password hashes (``Passwords``).
        public var passwordIterations: Int = Passwords.defaultIterations
        /// Failed logins of one account within ``loginWindow`` seconds that
        /// lock it for ``loginLockout`` seconds (``LoginThrottle``).
        public var loginAttempts: Int = 5
        public var loginWindow: Double = 15 * 60
        public var loginLockout: Double = 15 * 60
        /// Where uploaded files' bytes live; nil: beside the SQLite file
        /// (`<file>.files`), or `cql-files` in the working directory.
        public var filesDirectory: String?
        /// Larger file uploads are refused with 413.
        public var maximumFileSize: Int = 100 << 20
        /// The scheme and host clients reach the server at (behind a proxy:
        /// `https://api.example.com`), for file URLs; nil: `http://` and the
        /// request's `Host`.
        public var publicURL: String?
        /// The app's cloud engine (LeanEngine) and its time limits; nil: no
        /// cloud functions and no hooks. Its hook key is ``AppKeys/hookKey``;
        /// its hooks take ``hooks``' place.
        public var engine: CloudEngine.Configuration?
        /// The connections held at once, and how long one may sit idle
        /// (``ConnectionLimits``); the cap defaults to the descriptor limit,
        /// raised to the hard one, less what the server keeps for itself.
        public var connections = ConnectionLimits(maximum: ConnectionLimits.defaultMaximum(), idleTimeout: 60)
        /// LiveQuery's limits (LiveQuery.md, "Limits").
        public var liveQuery = LiveQueryHub.Limits()
        /// With PostgreSQL: LiveQuery hears the writes of every `cql serve`
        /// process on the database, through `LISTEN`/`NOTIFY`
        /// (``LiveQueryNotifications``; LiveQuery.md, "Several processes").
        /// false: only this process's writes, and no `NOTIFY` in writes.
        /// SQLite is one process: ignored.
        public var liveQueryAcrossProcesses = true
        /// What joins every write: the cloud-code hooks and the observers of
        /// committed changes (``WritePipeline``).
        public var pipeline = WritePipeline()
        /// ``pipeline``'s hooks.
        public var hooks: (any WriteHooks)? {
            get { pipeline.hooks }
            set { pipeline.hooks = newValue }
        }
        /// ``pipeline``'s observers.
        public var observers: [any CommittedChangeObserver] {
            get { pipeline.observers }
            set { pipeline.observers = newValue }
        }

        /// The files directory this configuration means.
        public var resolvedFilesDirectory: String {
            filesDirectory ?? Self.defaultFilesDirectory(for: storage)
        }

        /// Where a server on `storage` keeps files without `--files`: beside
        /// the SQLite file (`<file>.files`), or `cql-files` in the working
        /// directory (what `cql files fetch` fills by default too).
        public static func defaultFilesDirectory(for storage: ServerStorage.Location) -> String {
            if case .sqlite(let path) = storage { return path + ".files" }
            return "cql-files"
        }

        public init(storage: ServerStorage.Location, host: String = "127.0.0.1", port: Int = 3000, keys: AppKeys) {
            self.storage = storage
            self.host = host
            self.port = port
            self.keys = keys
        }
    }

    public let configuration: Configuration
    public let storage: ServerStorage
    public let files: FileStore
    /// LiveQuery's subscriptions and connections in this process.
    public let liveQuery: LiveQueryHub
    /// With PostgreSQL (and ``Configuration/liveQueryAcrossProcesses``):
    /// what carries every process's writes to ``liveQuery``; nil with SQLite.
    public let liveQueryNotifications: LiveQueryNotifications?
    let logger: Logger

    public init(configuration: Configuration, logger: Logger = Logger(label: "cql.serve")) throws(QueryError) {
        self.configuration = configuration
        self.storage = try ServerStorage(configuration.storage, readers: configuration.readers, requestTimeout: configuration.requestTimeout)
        do {
            files = try FileStore(directory: configuration.resolvedFilesDirectory, maximumSize: configuration.maximumFileSize)
        } catch {
            throw QueryError(.data, "cannot make the files directory \(configuration.resolvedFilesDirectory): \(error)")
        }
        self.logger = logger
        liveQuery = LiveQueryHub(limits: configuration.liveQuery, logger: logger)
        if case .postgres(let url) = configuration.storage, configuration.liveQueryAcrossProcesses {
            liveQueryNotifications = try LiveQueryNotifications(hub: liveQuery, url: url, logger: logger)
        } else {
            liveQueryNotifications = nil
        }
    }

    /// Serves until SIGTERM or SIGINT (then stops accepting, lets the requests
    /// in flight finish, and returns). `onListening` gets the bound port.
    /// With `handleSignals` false (a server inside tests), it serves until
    /// the task running it is cancelled, and stops the same way.
    public func run(handleSignals: Bool = true, onListening: @escaping @Sendable (Int) async -> Void = { _ in }) async throws {
        let engine = configuration.engine.map { CloudEngine(configuration: $0, keys: configuration.keys, logger: logger) }
        // What the engine defines: asked at start and then now and again (CloudEngine).
        let discovery = engine.map { engine in Task { await engine.keepDiscovering() } }
        var pipeline = configuration.pipeline
        if let engine {
            // The hooks' `user`, read as `users/me` answers it (an API of its own: the hooks are part of the real one).
            let users = API(storage: storage, files: files)
            pipeline.hooks = EngineWriteHooks(engine: engine, user: { await users.hookUser($0) }, logger: logger)
        }
        // LiveQuery hears every committed write: with PostgreSQL through
        // NOTIFY (every process's, its own included, in commit order), else
        // at the pipeline's committed-change point.
        if liveQueryNotifications == nil { pipeline.observers.append(liveQuery) }
        var api = API(storage: storage, passwords: Passwords(iterations: configuration.passwordIterations),
                      throttle: LoginThrottle(limit: configuration.loginAttempts, window: configuration.loginWindow, lockout: configuration.loginLockout),
                      files: files, pipeline: pipeline, liveQuery: liveQuery, engine: engine)
        api.liveQueryNotifications = liveQueryNotifications
        // Weak: the storage holds the hub (its observer); a strong reference
        // back would keep both, and their database connections, for ever.
        liveQuery.refreshGrantees = { [weak storage] userId in
            guard let storage else { throw CancellationError() }
            return try await storage.grantees(userId: userId)
        }
        // The API itself (its class permissions kept, and forgotten when it
        // writes them); the cycle hub → API → storage → hub ends in stop().
        let includes = api
        liveQuery.includeObjects = { object, s in
            try await includes.includedForLiveQuery(object, className: s.className, includes: s.includes, grantees: s.grantees, returnACL: s.returnACL)
        }
        let endpoint = LiveQueryEndpoint(hub: liveQuery, appId: configuration.keys.appId, logger: logger)
        let idle = TimeAmount.milliseconds(Int64((configuration.connections.idleTimeout * 1000).rounded()))
        let count = ConnectionCount(maximum: configuration.connections.maximum, headTimeout: idle)
        let webSocket = HTTP1WebSocketUpgradeChannel.Configuration(
            http1: HTTP1Channel.Configuration(idleTimeout: idle),
            ws: WebSocketServerConfiguration(maxFrameSize: configuration.liveQuery.messageSize, autoPing: .enabled(timePeriod: .seconds(60))))
        let responder = ServerRouter.responder(.init(
            api: api, authenticator: Authenticator(keys: configuration.keys), origin: PublicOrigin(publicURL: configuration.publicURL),
            bodies: RequestBodyReader(maximumSize: configuration.maximumBodySize, largeSize: configuration.largeBodySize,
                                      largeAtOnce: configuration.largeBodiesAtOnce),
            logger: logger))
        let app = Application(
            responder: responder,
            // PostgreSQL: handlers on their connection's event loop, where
            // their reads are awaited (EventLoopReaders). SQLite's reads block
            // a storage thread either way, and pinning measured a loss on its
            // pages once (Server.md). Both upgrade `/livequery` to LiveQuery's WebSocket.
            server: storage.eventLoopReaders != nil
                ? .eventLoopPinnedHTTP1WebSocket(.singleton, count: count, configuration: webSocket, shouldUpgrade: endpoint.shouldUpgrade)
                : .limitedHTTP1WebSocket(count: count, configuration: webSocket, shouldUpgrade: endpoint.shouldUpgrade),
            configuration: ApplicationConfiguration(address: .hostname(configuration.host, port: configuration.port), serverName: nil),
            onServerRunning: { channel in await onListening(channel.localAddress?.port ?? 0) },
            logger: logger)
        let dispatcher = Task { await liveQuery.run() }
        defer { dispatcher.cancel() }
        let notifications = liveQueryNotifications
        let listening = notifications.map { n in Task { await n.run() } }
        defer { listening?.cancel() }
        if let notifications {
            // Requests only once it listens: no write of this process goes unheard.
            await notifications.waitUntilListening(seconds: 5)
            if !notifications.isListening { logger.warning("LiveQuery: not listening on PostgreSQL after 5 s; serving, and listening once it can") }
        }
        do {
            if handleSignals {
                try await app.runService(gracefulShutdownSignals: [.sigterm, .sigint])
            } else {
                try await app.runService(gracefulShutdownSignals: [])
            }
        } catch {
            await stop(discovery, engine)
            throw error
        }
        await stop(discovery, engine)
    }

    /// What ``run(handleSignals:onListening:)`` started, stopped once it serves no more.
    func stop(_ discovery: Task<Void, Never>?, _ engine: CloudEngine?) async {
        liveQuery.includeObjects = nil
        discovery?.cancel()
        await discovery?.value
        await engine?.shutdown()
        await storage.shutdown()
    }
}
