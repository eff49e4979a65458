import AsyncHTTPClient
import CQLKit
import Foundation
import Logging
import NIOCore
import NIOHTTP1

/// The app's own LeanEngine process (Node `leanengine`, Python
/// `leancloud.Engine`), beside the server: cloud functions are forwarded to
/// it, its hooks are called around writes, over kept-alive HTTP connections
/// (async-http-client).
///
/// What it defines is asked at start, again every
/// ``Configuration/refreshInterval`` seconds (every
/// ``Configuration/retryInterval`` until it first answers) and on a
/// master-key `GET /1.1/functions/_ops/metadatas` (``refresh()``). Until it
/// first answers, no hook is known and writes go on without hooks (logged);
/// a failed refresh keeps what it listed last.
///
/// ```swift
/// let engine = CloudEngine(configuration: .init(url: "http://127.0.0.1:3001"), keys: keys)
/// let catalog = try await engine.refresh()   // EngineCatalog(names: ["hello", "__before_save_for_Review"])
/// let answer = try await engine.callFunction("hello", rpc: false, params: .object(["name": "Ann"]), identity: caller)
/// answer.body                                // {"result":"Hello, Ann!"}
/// await engine.shutdown()
/// ```
public final class CloudEngine: Sendable {
    public struct Configuration: Sendable {
        /// Where the engine listens: `http://127.0.0.1:3001`.
        public var url: String
        /// Seconds a cloud function may take (LeanCloud's 15): then 503, code 124.
        public var functionTimeout: Double = 15
        /// Seconds a before-hook (and `_User` onLogin) may take (LeanCloud's 10).
        public var beforeHookTimeout: Double = 10
        /// Seconds an after-hook may take (LeanCloud's 3).
        public var afterHookTimeout: Double = 3
        /// Seconds between two discoveries of what the engine defines.
        public var refreshInterval: Double = 60
        /// Seconds between two discoveries while the engine has never answered.
        public var retryInterval: Double = 5
        /// Larger answers from the engine are refused (502).
        public var maximumAnswerSize: Int = 16 << 20

        public init(url: String) {
            self.url = url.hasSuffix("/") ? String(url.dropLast()) : url
        }
    }

    public let configuration: Configuration
    let keys: AppKeys
    let http: HTTPClient
    let logger: Logger
    /// The last catalog the engine answered, and whether its last discovery did.
    let state = LockedValue((catalog: EngineCatalog?.none, reachable: Bool?.none))

    public init(configuration: Configuration, keys: AppKeys, logger: Logger = Logger(label: "cql.serve")) {
        self.configuration = configuration
        self.keys = keys
        self.logger = logger
        var http = HTTPClient.Configuration()
        // A down engine fails at once (no retrying until the deadline): never a hang.
        http.timeout = .init(connect: .seconds(2))
        http.connectionPool = .init(idleTimeout: .seconds(60), concurrentHTTP1ConnectionsPerHostSoftLimit: 64)
        http.connectionPool.retryConnectionEstablishment = false
        http.redirectConfiguration = .disallow
        self.http = HTTPClient(eventLoopGroupProvider: .singleton, configuration: http)
    }

    /// What the engine listed last; nil until it first answers.
    public var catalog: EngineCatalog? { state.value.catalog }

    /// Whether the engine defines `hook` for `className` (as last listed).
    public func has(_ hook: EngineHook, className: String) -> Bool { state.value.catalog?.has(hook, className: className) ?? false }

    /// Closes the connections; the engine is not called afterwards.
    public func shutdown() async {
        try? await http.shutdown()
    }

    // MARK: Discovery

    /// Asks the engine what it defines (`GET /1.1/functions/_ops/metadatas`
    /// with the master key) and keeps the answer; a change or the engine
    /// coming back is logged.
    @discardableResult
    public func refresh() async throws(APIError) -> EngineCatalog {
        do throws(APIError) {
            let (status, body) = try await send(.GET, "/1.1/functions/_ops/metadatas", body: nil, headers: headers(master: true), timeout: 5)
            guard status == 200, case .array(let names)? = body["result"] else {
                throw APIError(status: 502, code: 1, "the cloud engine answered its metadata with \(status): \(JSONWriter.string(body))")
            }
            let catalog = EngineCatalog(names: Set(names.compactMap(\.stringValue)))
            let before = state.update { s -> (catalog: EngineCatalog?, reachable: Bool?) in
                defer { s = (catalog, true) }
                return s
            }
            if before.catalog != catalog || before.reachable != true {
                logger.notice("cloud engine at \(configuration.url): functions \(Self.list(catalog.functions)); hooks \(Self.list(catalog.hooks))")
            }
            return catalog
        } catch {
            let was = state.update { s -> Bool? in
                defer { s.reachable = false }
                return s.reachable
            }
            if was != false {
                logger.warning("""
                    cloud engine at \(configuration.url) cannot be reached (\(error.message)): \
                    \(state.value.catalog == nil ? "storage goes on without hooks until it answers" : "the hooks it listed last stay; a write needing one is refused until it answers")
                    """)
            }
            throw error
        }
    }

    /// Discovers at once, then every ``Configuration/refreshInterval``
    /// seconds (``Configuration/retryInterval`` until the engine first
    /// answers), until the task is cancelled.
    func keepDiscovering() async {
        while !Task.isCancelled {
            _ = try? await refresh()
            let wait = catalog == nil ? configuration.retryInterval : configuration.refreshInterval
            try? await Task.sleep(nanoseconds: UInt64(max(wait, 0.05) * 1e9))
        }
    }

    static func list(_ names: [String]) -> String { names.isEmpty ? "none" : names.joined(separator: ", ") }

    // MARK: Cloud functions

    /// `POST /1.1/functions/<name>` (`rpc`: `/1.1/call/<name>`, whose
    /// objects the engine's SDK decodes and encodes) forwarded with the
    /// caller's identity: its app or master key and its session. The
    /// engine's status and body come back as they are.
    public func callFunction(_ name: String, rpc: Bool, params: Value?, identity: Identity) async throws(APIError) -> APIResponse {
        // A hook's name (`__before_save_for_...`) is not a function a client may call; a `/` would reach another route.
        guard !name.isEmpty, !name.hasPrefix("__"), !name.contains("/"), name != "_ops" else {
            throw APIError(status: 404, code: 404, "no such cloud function: '\(name)'")
        }
        let path = "/1.1/\(rpc ? "call" : "functions")/" + Self.percentEncoded(name)
        let (status, body) = try await send(.POST, path, body: params ?? .object([:]), headers: headers(identity), timeout: configuration.functionTimeout)
        if status == 401 { logger.warning("the cloud engine refused the server's keys (401): start it with this server's LEANCLOUD_APP_ID, LEANCLOUD_APP_KEY and LEANCLOUD_APP_MASTER_KEY") }
        return APIResponse(status: status, body: body)
    }

    // MARK: Hooks

    /// Calls `hook` of `className` (`POST /1.1/functions/<Class>/<hook>`
    /// with the hook key) with `{"object": ..., "user": ...}`: the engine's
    /// answer. A refusal of a before-hook is code 142, "Cloud Code
    /// validation failed. Error detail: <the engine's error>".
    public func callHook(_ hook: EngineHook, className: String, object: [String: Value], user: [String: Value]?) async throws(APIError) -> Value {
        var body: [String: Value] = ["object": .object(object)]
        if let user { body["user"] = .object(user) }
        let timeout = hook.isBefore ? configuration.beforeHookTimeout : configuration.afterHookTimeout
        let (status, answer) = try await send(.POST, hook.path(className: className), body: .object(body),
                                              headers: headers(hookKey: true), timeout: timeout)
        guard (200..<300).contains(status) else {
            let detail = answer["error"]?.stringValue ?? JSONWriter.string(answer)
            if hook.isBefore { throw APIError(status: 400, code: 142, "Cloud Code validation failed. Error detail: " + detail) }
            var code = 1
            if case .int(let c)? = answer["code"] { code = Int(c) }
            throw APIError(status: status, code: code, detail)
        }
        return answer
    }

    // MARK: HTTP

    /// The headers of a call: the app id, the app key (or the master key),
    /// the session of a caller whose session the server verified, the hook key.
    func headers(_ identity: Identity = Identity(isMaster: false), master: Bool = false, hookKey: Bool = false) -> HTTPHeaders {
        var h = HTTPHeaders()
        h.add(name: "Content-Type", value: "application/json; charset=utf-8")
        h.add(name: "X-LC-Id", value: keys.appId)
        h.add(name: "X-LC-Key", value: master || identity.isMaster ? keys.masterKey + ",master" : keys.appKey)
        if let token = identity.sessionToken, identity.userId != nil { h.add(name: "X-LC-Session", value: token) }
        if hookKey, let key = keys.hookKey { h.add(name: "X-LC-Hook-Key", value: key) }
        return h
    }

    /// One request to the engine, within `timeout` seconds: its status and
    /// JSON answer. Past the time: 503, code 124 (LeanCloud's answer); no
    /// engine listening, or an answer that is not JSON: 502, code 1.
    func send(_ method: HTTPMethod, _ path: String, body: Value?, headers: HTTPHeaders, timeout: Double) async throws(APIError) -> (Int, Value) {
        var request = HTTPClientRequest(url: configuration.url + path)
        request.method = method
        request.headers = headers
        if let body {
            var bytes: [UInt8] = []
            JSONWriter.write(body, to: &bytes)
            request.body = .bytes(ByteBuffer(bytes: bytes))
        }
        let status: Int, text: String
        do {
            let response = try await http.execute(request, deadline: .now() + .milliseconds(Int64(timeout * 1000)))
            status = Int(response.status.code)
            text = String(buffer: try await response.body.collect(upTo: configuration.maximumAnswerSize))
        } catch let error as HTTPClientError where error == .deadlineExceeded {
            logger.warning("the cloud engine did not answer \(path) within \(timeout) s")
            throw APIError(status: 503, code: 124, "The request timed out on the server.")
        } catch is NIOTooManyBytesError {
            throw APIError(status: 502, code: 1, "Cloud Code engine error: its answer is larger than \(configuration.maximumAnswerSize) bytes")
        } catch {
            logger.warning("the cloud engine at \(configuration.url) cannot be reached: \(error)")
            throw APIError(status: 502, code: 1, "Cloud Code engine unavailable: the app's cloud engine cannot be reached (\(Self.reason(error)))")
        }
        do {
            return (status, try JSONReader.parse(text))
        } catch {
            throw APIError(status: 502, code: 1, "Cloud Code engine error: it answered \(status) with a body that is not JSON")
        }
    }

    /// An error in a few words, without the engine's address.
    static func reason(_ error: any Error) -> String {
        if let e = error as? HTTPClientError { return e == .connectTimeout ? "connect timeout" : "\(e)".replacingOccurrences(of: "HTTPClientError.", with: "") }
        let text = "\(error)"
        return text.contains("refused") ? "connection refused" : "connection failed"
    }

    /// `name` with everything but unreserved URL characters percent-encoded.
    static func percentEncoded(_ name: String) -> String {
        let unreserved = CharacterSet(charactersIn: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")
        return name.addingPercentEncoding(withAllowedCharacters: unreserved) ?? name
    }
}
