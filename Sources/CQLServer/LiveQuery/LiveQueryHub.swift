import CQLEval
import CQLKit
import Foundation
import Logging

/// LiveQuery in one server process: the subscriptions (made by
/// `POST /1.1/LiveQuery/subscribe`), the WebSocket connections logged in
/// under an installation id, and the events each committed write produces
/// for them (LiveQuery.md).
///
/// Writes arrive through ``committed(_:)`` (a ``CommittedChangeObserver``:
/// it only queues the write) and are matched by one dispatcher task
/// (``run()``), in commit order, so one subscriber receives the events of
/// one object in the order they were committed. The dispatcher takes the
/// writes waiting as one batch (`PendingWrites`) and sends each
/// installation id's events of the batch together, in one `data` command
/// (at most `eventsPerFrame` events a message). With PostgreSQL the
/// source is ``LiveQueryNotifications`` instead (every process's writes,
/// heard through `LISTEN`/`NOTIFY`), which feeds the same queue through
/// ``committed(_:)``: one matching path either way.
///
/// Subscriptions are indexed by class and by one equality key of their
/// query (`{"list": "groceries"}`): a write looks at the subscriptions of
/// its class without an equality key, plus those whose key's value is the
/// object's value before or after the write.
///
/// ```swift
/// let hub = LiveQueryHub()   // a CQLServer makes one: `server.liveQuery`
/// hub.committed(CommittedWrite(changes: [change], caller: Identity(isMaster: true)))   // queued
/// Task { await hub.run() }   // matched in commit order, until cancelled
/// ```
public final class LiveQueryHub: CommittedChangeObserver, @unchecked Sendable {
    /// What one process accepts (past each, a clear error: LiveQuery.md).
    public struct Limits: Sendable {
        /// WebSocket connections at once.
        public var connections = 10_000
        /// Subscriptions of one installation id (one SDK on one device).
        public var subscriptionsPerInstallation = 200
        /// Subscriptions in the process.
        public var subscriptions = 200_000
        /// The largest command a client may send, in bytes (the Swift SDK
        /// itself refuses to send more than 5 KB).
        public var messageSize = 16 << 10
        /// Messages queued for one connection; past it the connection is
        /// closed with 4408 (the SDK reconnects and subscribes again).
        public var connectionBuffer = 2_000
        /// Writes queued for matching; past it events are lost, and every
        /// connection is closed with 4409 so that clients subscribe again.
        public var pendingWrites = 100_000
        /// Seconds the subscriptions of an installation id live without a
        /// connection logged in under it (SDKs subscribe before or after
        /// logging in, and again after each reconnect).
        public var idleLifetime: Double = 600

        public init() {}
    }

    public let limits: Limits
    /// The longest installation id (subscription id) accepted, in bytes.
    static let maximumIdLength = 256
    let logger: Logger
    private let state = LockedValue(State())
    private let pending: PendingWrites
    /// The most events one `data` command carries, and the most bytes of
    /// events (past which it carries one), so that a batch's message
    /// usually fits one WebSocket frame of the default 16 KiB.
    static let eventsPerFrame = 64, bytesPerFrame = 12 << 10
    /// Grantees anew for a user (after a `_Role` changed); nil: never refreshed.
    var refreshGrantees: (@Sendable (String) async throws -> [String])?
    /// An event's object with its subscription's `include` paths resolved,
    /// as that subscriber's find would resolve them (set by the server;
    /// nil: Pointers stay as stored).
    var includeObjects: IncludeObjects? {
        get { includer.value }
        set { includer.value = newValue }
    }
    typealias IncludeObjects = @Sendable (_ object: [String: Value], _ subscription: Subscription) async throws -> [String: Value]
    /// Set at start and cleared at stop while the dispatcher reads it.
    private let includer = LockedValue<IncludeObjects?>(nil)

    public init(limits: Limits = Limits(), logger: Logger = Logger(label: "cql.livequery")) {
        self.limits = limits
        self.logger = logger
        pending = PendingWrites(limit: limits.pendingWrites)
    }

    // MARK: The change source

    public func committed(_ write: CommittedWrite) {
        // A write no subscription can hear is not kept: a subscription made
        // after its commit is not its subscriber. `_Role` writes change
        // what every connection may read (``refreshRoles()``).
        let heard = state.update { st in write.changes.contains { $0.className == "_Role" || st.classes[$0.className] != nil } }
        guard heard else { return }
        // After finish() (the server stopping) a write has no one to hear it.
        if pending.append(write) == .full {
            logger.error("LiveQuery: \(limits.pendingWrites) writes waiting to be matched; events lost, every connection closed (4409)")
            closeAll(code: 4409, reason: "events were lost: subscribe again")
        }
    }

    /// Matches the queued writes until the task is cancelled.
    public func run() async {
        while let batch = await pending.take() {
            var outgoing = Outgoing()
            for write in batch {
                // After a `_Role` write, later writes wait for the new roles.
                if await match(write, into: &outgoing) {
                    send(&outgoing)
                    await refreshRoles()
                }
            }
            send(&outgoing)
        }
    }

    /// Stops ``run()`` once the writes queued are matched.
    public func finish() { pending.finish() }

    // MARK: Subscriptions

    struct State {
        var subscriptions: [String: Subscription] = [:]
        var installations: [String: Installation] = [:]
        var classes: [String: ClassIndex] = [:]
        var connections = 0
        var lastSweep: Double = 0
    }

    struct Installation {
        var queryIds: Set<String> = []
        var connections: [ObjectIdentifier: LiveQueryConnection] = [:]
        /// When its last connection left (nil while one is logged in).
        var idleSince: Double?
    }

    struct ClassIndex {
        var unindexed: Set<String> = []
        /// key → the key's string or number value → query ids.
        var byKey: [String: [Subscription.IndexValue: Set<String>]] = [:]
        var isEmpty: Bool { unindexed.isEmpty && byKey.isEmpty }
    }

    /// Adds (or, for the same id and query, renews) a subscription; returns
    /// its query id. Throws 429 past ``Limits``.
    func subscribe(_ s: Subscription) throws(APIError) -> String {
        let now = Date().timeIntervalSince1970
        let outcome = state.update { (st: inout State) -> Result<String, APIError> in
            sweep(&st, now: now)
            if st.subscriptions[s.queryId] != nil {
                // The same id and query again (an SDK after a reconnect): the
                // fresh grantees replace the old, nothing is duplicated.
                Self.unindex(s.queryId, &st)
            } else {
                let count = st.installations[s.installationId]?.queryIds.count ?? 0
                guard count < limits.subscriptionsPerInstallation else {
                    return .failure(APIError(status: 429, code: 429,
                                             "LiveQuery: installation id '\(s.installationId)' has \(count) subscriptions, the limit (unsubscribe some first)"))
                }
                guard st.subscriptions.count < limits.subscriptions else {
                    return .failure(APIError(status: 429, code: 429, "LiveQuery: this server holds \(st.subscriptions.count) subscriptions, its limit"))
                }
            }
            st.subscriptions[s.queryId] = s
            var installation = st.installations[s.installationId] ?? Installation(idleSince: now)
            installation.queryIds.insert(s.queryId)
            st.installations[s.installationId] = installation
            Self.index(s, &st)
            return .success(s.queryId)
        }
        return try outcome.get()
    }

    /// Removes a subscription of `installationId`; false when there is none.
    @discardableResult
    func unsubscribe(queryId: String, installationId: String) -> Bool {
        state.update { st in
            guard let s = st.subscriptions[queryId], s.installationId == installationId else { return false }
            Self.unindex(queryId, &st)
            st.subscriptions[queryId] = nil
            st.installations[installationId]?.queryIds.remove(queryId)
            return true
        }
    }

    /// Whether the subscription exists (the old renew ping's 200 or 404).
    func hasSubscription(queryId: String, installationId: String) -> Bool {
        state.update { st in st.subscriptions[queryId]?.installationId == installationId }
    }

    /// How many subscriptions and connections the process holds.
    public var counts: (subscriptions: Int, connections: Int) {
        state.update { ($0.subscriptions.count, $0.connections) }
    }

    private static func index(_ s: Subscription, _ st: inout State) {
        var c = st.classes[s.className] ?? ClassIndex()
        if let k = s.indexKey {
            let (key, value) = k
            c.byKey[key, default: [:]][value, default: []].insert(s.queryId)
        } else {
            c.unindexed.insert(s.queryId)
        }
        st.classes[s.className] = c
    }

    private static func unindex(_ queryId: String, _ st: inout State) {
        guard let s = st.subscriptions[queryId], var c = st.classes[s.className] else { return }
        if let k = s.indexKey {
            let (key, value) = k
            c.byKey[key]?[value]?.remove(queryId)
            if c.byKey[key]?[value]?.isEmpty == true { c.byKey[key]?[value] = nil }
            if c.byKey[key]?.isEmpty == true { c.byKey[key] = nil }
        } else {
            c.unindexed.remove(queryId)
        }
        st.classes[s.className] = c.isEmpty ? nil : c
    }

    /// Drops the subscriptions of installation ids idle past ``Limits/idleLifetime``.
    private func sweep(_ st: inout State, now: Double) {
        // At most once a minute: a sweep reads every installation.
        guard now - st.lastSweep > 60 else { return }
        st.lastSweep = now
        for (id, installation) in st.installations {
            guard let since = installation.idleSince, now - since > limits.idleLifetime else { continue }
            for q in installation.queryIds {
                Self.unindex(q, &st)
                st.subscriptions[q] = nil
            }
            st.installations[id] = nil
        }
    }

    // MARK: Connections

    /// A new connection, or nil past ``Limits/connections``.
    func open(_ connection: LiveQueryConnection) -> Bool {
        state.update { st in
            guard st.connections < limits.connections else { return false }
            st.connections += 1
            return true
        }
    }

    /// The connection now receives the events of `installationId`.
    func login(_ connection: LiveQueryConnection, installationId: String) {
        state.update { st in
            if let old = connection.installationId { Self.detach(connection, from: old, &st) }
            var installation = st.installations[installationId] ?? Installation()
            installation.connections[ObjectIdentifier(connection)] = connection
            installation.idleSince = nil
            st.installations[installationId] = installation
        }
        connection.installationId = installationId
    }

    /// The connection receives nothing more (logout).
    func logout(_ connection: LiveQueryConnection) {
        state.update { st in
            if let old = connection.installationId { Self.detach(connection, from: old, &st) }
        }
        connection.installationId = nil
    }

    /// The connection is gone.
    func close(_ connection: LiveQueryConnection) {
        state.update { st in
            if let old = connection.installationId { Self.detach(connection, from: old, &st) }
            st.connections -= 1
        }
    }

    private static func detach(_ connection: LiveQueryConnection, from id: String, _ st: inout State) {
        guard var installation = st.installations[id] else { return }
        installation.connections[ObjectIdentifier(connection)] = nil
        if installation.connections.isEmpty { installation.idleSince = Date().timeIntervalSince1970 }
        st.installations[id] = installation
    }

    /// Closes every connection (they reconnect and subscribe again).
    func closeAll(code: UInt16, reason: String) {
        let all = state.update { st in st.installations.values.flatMap { $0.connections.values } }
        for c in all { c.send(.close(code: code, reason: reason)) }
    }

    // MARK: Matching

    /// The events of one write, sent to the connections of each installation
    /// id concerned; true when it changed a `_Role` (roles to compute again).
    @discardableResult
    func dispatch(_ write: CommittedWrite) async -> Bool {
        var outgoing = Outgoing()
        let rolesChanged = await match(write, into: &outgoing)
        send(&outgoing)
        return rolesChanged
    }

    /// Events made and not yet sent, by installation id, in the order made.
    struct Outgoing {
        var events: [String: [String]] = [:]
        var order: [String] = []

        mutating func add(_ event: String, for installationId: String) {
            if events[installationId] == nil { order.append(installationId) }
            events[installationId, default: []].append(event)
        }
    }

    /// Adds the events of one write to `outgoing`; true when it changed a
    /// `_Role`.
    ///
    /// An event of a subscription with `include` waits for the objects it
    /// includes to be read (``includeObjects``), and the writes after it
    /// wait with it: events stay in commit order.
    func match(_ write: CommittedWrite, into outgoing: inout Outgoing) async -> Bool {
        var rolesChanged = false
        for change in write.changes {
            if change.className == "_Role" { rolesChanged = true }
            for s in candidates(change) {
                let event: String
                do {
                    guard var made = try s.eventBody(change) else { continue }
                    if !s.includes.isEmpty, made.hasContent, let includeObjects, case .object(let object)? = made.body["object"] {
                        do {
                            made.body["object"] = .object(try await includeObjects(object, s))
                        } catch {
                            // Sent without them: a lost event would be worse than Pointers not included.
                            logger.error("LiveQuery: subscription \(s.queryId): the objects \(change.className) '\(change.objectId)' includes could not be read (sent as Pointers): \(error)")
                        }
                    }
                    event = JSONWriter.string(.object(made.body))
                } catch {
                    logger.warning("LiveQuery: subscription \(s.queryId) could not evaluate \(change.className) '\(change.objectId)': \(error)")
                    continue
                }
                outgoing.add(event, for: s.installationId)
            }
        }
        return rolesChanged
    }

    /// Sends `outgoing`'s events to the connections logged in under each
    /// installation id, at most ``eventsPerFrame`` a message, and empties it.
    func send(_ outgoing: inout Outgoing) {
        guard !outgoing.order.isEmpty else { return }
        let targets = state.update { st in outgoing.order.map { id in (id, Array((st.installations[id]?.connections ?? [:]).values)) } }
        for (id, connections) in targets where !connections.isEmpty {
            for part in Self.frames(outgoing.events[id] ?? []) {
                for c in connections { c.send(.events(installationId: id, part)) }
            }
        }
        outgoing = Outgoing()
    }

    /// `events` cut, in order, into the messages that carry them (at most
    /// ``eventsPerFrame`` events and ``bytesPerFrame`` bytes each, or one event).
    static func frames(_ events: [String]) -> [[String]] {
        var out: [[String]] = [], part: [String] = [], bytes = 0
        for e in events {
            let size = e.utf8.count
            if !part.isEmpty && (part.count == eventsPerFrame || bytes + size > bytesPerFrame) {
                out.append(part)
                part = []
                bytes = 0
            }
            part.append(e)
            bytes += size
        }
        if !part.isEmpty { out.append(part) }
        return out
    }

    /// The subscriptions a change may concern (a superset of those it does).
    func candidates(_ change: ObjectChange) -> [Subscription] {
        state.update { st in
            guard let c = st.classes[change.className] else { return [] }
            var ids = c.unindexed
            for (key, table) in c.byKey {
                for object in [change.before, change.after] {
                    guard let object else { continue }
                    Self.lookUp(object[key], in: table, into: &ids)
                }
            }
            return ids.compactMap { st.subscriptions[$0] }
        }
    }

    /// The query ids whose equality value `v` may satisfy: a string or a
    /// number is looked up; an array may match through any element
    /// (`k = "x"` holds for `["x","y"]`); any other stored value takes every
    /// one (rare, and never a missed event).
    static func lookUp(_ v: Value?, in table: [Subscription.IndexValue: Set<String>], into ids: inout Set<String>) {
        switch v {
        case nil, .null?: return
        case .array(let items)?: for item in items { lookUp(item, in: table, into: &ids) }
        case let v?:
            if let entry = Subscription.IndexValue(v) {
                if let found = table[entry] { ids.formUnion(found) }
            } else {
                for found in table.values { ids.formUnion(found) }
            }
        }
    }

    /// After a `_Role` write: every user's grantees computed again, and its
    /// subscriptions' matchers with them.
    func refreshRoles() async {
        guard let refresh = refreshGrantees else { return }
        let users = state.update { st in Set(st.subscriptions.values.compactMap(\.userId)) }
        for user in users {
            guard let grantees = try? await refresh(user) else { continue }
            state.update { st in
                for (id, s) in st.subscriptions where s.userId == user && s.grantees != grantees {
                    if let renewed = try? s.with(grantees: grantees) { st.subscriptions[id] = renewed }
                }
            }
        }
    }
}
