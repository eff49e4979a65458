import CQLEval
import CQLKit
import CQLSQL
import Foundation
import Logging

/// LiveQuery across `cql serve` processes sharing one PostgreSQL database
/// (LiveQuery.md, "Several processes"): every write's changes are sent with
/// `NOTIFY` (CQLSQL's `NotificationRows`) inside the write's own
/// transaction, and every process — the writer's included — feeds what it
/// hears on the channel to its ``LiveQueryHub``, which matches them exactly
/// as it matches any write (one queue, one matching path, each
/// subscriber's ACL).
///
/// A notification carries the write's changes, before and after images as
/// stored, when its JSON fits under ``inlineLimit`` bytes (PostgreSQL's
/// payload limit is 8,000); a larger one is written, in the same
/// transaction, to the table `cql:livequery` and the notification carries
/// its row's number, which listeners read (rows are pruned after
/// ``retention`` seconds).
///
/// ```swift
/// let notifications = try LiveQueryNotifications(hub: server.liveQuery, url: "postgres://localhost/app")
/// Task { await notifications.run() }   // listens, reconnecting, until cancelled
/// // in a write's transaction, after its changes:
/// try notifications.notify(result, in: session)
/// ```
public final class LiveQueryNotifications: @unchecked Sendable {
    /// The channel every process listens on (one per database, as NOTIFY is).
    public static let channel = "cql_livequery"
    /// Payloads up to this many bytes go in the notification itself.
    public static let inlineLimit = 7_900
    /// The table of larger payloads (a name no class can have).
    static let spillTable = "cql:livequery"
    /// Seconds a spilled payload is kept (listeners read it within milliseconds).
    public static let retention: Double = 600

    let hub: LiveQueryHub
    let listener: PostgreSQLListener
    let logger: Logger
    /// When the table of spilled payloads was last pruned.
    private let lastPrune = LockedValue<Double>(0)
    /// Set once `LISTEN` is first in effect.
    private let listening = LockedValue<Bool>(false)

    /// Connects the listener (blocking) and makes the table of large payloads.
    public init(hub: LiveQueryHub, url: String, logger: Logger = Logger(label: "cql.livequery")) throws(QueryError) {
        self.hub = hub
        self.logger = logger
        let db = try PostgreSQLDatabase(url: url)
        // Under the write lock: two processes starting at once do not race to create it.
        try db.inWriteTransaction { session throws(QueryError) in
            _ = try session.execute(try NotificationRows.createSpillTable(Self.spillTable))
        }
        listener = try PostgreSQLListener(url: url, channel: Self.channel, applicationName: "cql-livequery", logger: logger)
    }

    // MARK: Sending, inside the write's transaction

    /// Sends `result`'s changes on the channel from inside the write's
    /// transaction (`session`): PostgreSQL delivers the notification when,
    /// and only if, the write commits, in commit order with every other.
    public func notify(_ result: WriteResult, in session: any SQLWriteSession) throws(QueryError) {
        guard !result.changes.isEmpty, session.dialect == .postgres else { return }
        let payload = Self.payload(result.changes)
        if payload.utf8.count <= Self.inlineLimit {
            _ = try session.execute(NotificationRows.notify(channel: Self.channel, payload: payload))
            return
        }
        _ = try session.execute(try NotificationRows.notifySpilled(channel: Self.channel, reference: #"{"r":"#, payload: payload, table: Self.spillTable))
        let now = Date().timeIntervalSince1970
        let prunes = lastPrune.update { (last: inout Double) -> Bool in
            guard now - last > 60 else { return false }
            last = now
            return true
        }
        if prunes {
            _ = try session.execute(try NotificationRows.prune(Self.spillTable, olderThan: Self.retention))
        }
    }

    /// One write's changes, `{"c":[{"c":class,"i":objectId,"b":before,"a":after}]}`,
    /// each image the JSON text of the object as stored (absent: none); a
    /// spilled payload's notification is `{"r":row}` instead.
    ///
    /// `_User`'s secrets (password hash, salt, session) never leave in a
    /// notification: any role that may connect to the database may LISTEN,
    /// and no subscriber is ever shown them.
    static func payload(_ changes: [ObjectChange]) -> String {
        func image(_ object: [String: Value]?, _ className: String) -> Value? {
            guard var object else { return nil }
            if className == "_User" { for k in API.userSecrets { object[k] = nil } }
            return .string(JSONWriter.string(.object(object)))
        }
        let items: [Value] = changes.map { change in
            var c: [String: Value] = ["c": .string(change.className), "i": .string(change.objectId)]
            c["b"] = image(change.before, change.className)
            c["a"] = image(change.after, change.className)
            return .object(c)
        }
        return JSONWriter.string(.object(["c": .array(items)]))
    }

    /// The changes a payload carries; nil for a reference (its row number in `reference`).
    static func changes(_ payload: String) throws(QueryError) -> (changes: [ObjectChange]?, reference: Int64?) {
        guard case .object(let p) = try JSONReader.parse(payload) else { throw malformed("not an object") }
        if let r = p["r"] {
            guard case .int(let row) = r else { throw malformed("'r' is not a row number") }
            return (nil, row)
        }
        guard case .array(let items)? = p["c"] else { throw malformed("no 'c'") }
        var out: [ObjectChange] = []
        out.reserveCapacity(items.count)
        for item in items {
            guard case .object(let c) = item, case .string(let className)? = c["c"], case .string(let objectId)? = c["i"] else {
                throw malformed("a change without 'c' and 'i'")
            }
            func image(_ key: String) throws(QueryError) -> [String: Value]? {
                switch c[key] {
                case nil, .null?: return nil
                case .string(let text)?: return try DataFiles.object(json: text)
                default: throw malformed("'\(key)' is not an object's JSON text")
                }
            }
            out.append(ObjectChange(className: className, objectId: objectId, before: try image("b"), after: try image("a")))
        }
        return (out, nil)
    }

    private static func malformed(_ what: String) -> QueryError {
        QueryError(.data, "a LiveQuery notification that is not the server's: \(what)")
    }

    // MARK: Listening

    /// Listens until the task is cancelled, reconnecting as the server's
    /// other connections do; every change heard goes to the hub's queue.
    /// After a gap (the listening connection lost, then made again) every
    /// LiveQuery connection is closed with 4409: writes committed in the gap
    /// produced no events, and the SDKs reconnect and subscribe again.
    public func run() async {
        await listener.run(onListening: { [self] gap in
            listening.value = true
            if gap {
                logger.warning("LiveQuery: listening on PostgreSQL again; writes committed while it was not listening produced no events: every LiveQuery connection closed (4409)")
                hub.closeAll(code: 4409, reason: "events may have been lost while the server was not listening: subscribe again")
            } else {
                logger.info("LiveQuery: listening on PostgreSQL channel '\(Self.channel)'")
            }
        }, onNotification: { [self] payload in
            do {
                let decoded = try Self.changes(payload)
                var changes = decoded.changes
                if let reference = decoded.reference {
                    let rows = try await listener.strings(try NotificationRows.spilled(reference, table: Self.spillTable))
                    guard let text = rows.first else {
                        logger.error("LiveQuery: the changes of notification \(reference) are gone from \(Self.spillTable); no events for them")
                        return
                    }
                    changes = try Self.changes(text).changes
                }
                guard let changes, !changes.isEmpty else { return }
                hub.committed(CommittedWrite(changes: changes, caller: Identity(isMaster: false)))
            } catch let e where PostgreSQLListener.meansLost(e) {
                throw e
            } catch {
                logger.error("LiveQuery: a notification could not be read (\(error)); no events for it")
            }
        })
    }

    /// Whether `LISTEN` has been in effect at least once.
    public var isListening: Bool { listening.value }

    /// Waits until `LISTEN` is in effect (at most `seconds`): the server
    /// takes requests only then, so that no write of its own goes unheard.
    func waitUntilListening(seconds: Double) async {
        let deadline = Date().addingTimeInterval(seconds)
        while !isListening && Date() < deadline { try? await Task.sleep(nanoseconds: 5_000_000) }
    }
}
