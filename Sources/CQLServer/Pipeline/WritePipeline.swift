import CQLEval
import CQLKit

/// One write about to run, as the before-write hook point sees it.
///
/// ```swift
/// struct StampAuthor: WriteHooks {
///     func beforeWrite(_ write: inout PendingWrite) async throws(APIError) {
///         guard write.kind == .create, write.className == "Comment" else { return }
///         write.fields["author"] = .string(write.caller.userId ?? "anonymous")
///     }
///     func afterWrite(_ write: CommittedWrite) async {}
/// }
/// ```
public struct PendingWrite: Sendable {
    public enum Kind: String, Sendable { case create, update, delete }
    public var kind: Kind
    public var className: String
    /// nil for a create (assigned at write).
    public var objectId: String?
    /// create: the object's fields as the caller sent them (REST JSON, typed
    /// values as CQLKit `Value`); update: the keys it sets, each a value or
    /// an op object (`{"__op":"Increment","amount":1}`) as sent; delete:
    /// empty. A before-hook may change these (beforeSave/beforeUpdate).
    public var fields: [String: Value]
    /// update/delete: the object as stored before the write (nil for a create).
    public var current: [String: Value]?
    public let caller: Identity
    /// The hooks `__ignore_hooks` named, sent with the hook key or the
    /// master key (``SkippedHooks``); from any other caller, none.
    public let skippedHooks: SkippedHooks

    public init(kind: Kind, className: String, objectId: String?, fields: [String: Value], current: [String: Value]?,
                caller: Identity, skippedHooks: SkippedHooks) {
        self.kind = kind
        self.className = className
        self.objectId = objectId
        self.fields = fields
        self.current = current
        self.caller = caller
        self.skippedHooks = skippedHooks
    }
}

/// What one committed write changed: CQLEval's `ObjectChange`s (before and
/// after as stored, ACL included, `_User` secrets included — observers must
/// filter), who wrote it, in commit order.
///
/// ```swift
/// for change in write.changes where change.after == nil { print("deleted", change.className, change.objectId) }
/// ```
public struct CommittedWrite: Sendable {
    public let changes: [ObjectChange]
    public let caller: Identity
    /// As ``PendingWrite/skippedHooks``: an after-hook it names does
    /// nothing for this write.
    public let skippedHooks: SkippedHooks

    public init(changes: [ObjectChange], caller: Identity, skippedHooks: SkippedHooks = .none) {
        self.changes = changes
        self.caller = caller
        self.skippedHooks = skippedHooks
    }
}

/// The app's code around every write (cloud-code hooks).
///
/// ```swift
/// struct NoEmptyComments: WriteHooks {
///     func beforeWrite(_ write: inout PendingWrite) async throws(APIError) {
///         if write.className == "Comment", write.fields["text"] == .string("") { throw APIError(code: 142, "empty comment") }
///     }
///     func afterWrite(_ write: CommittedWrite) async {}
/// }
/// ```
public protocol WriteHooks: Sendable {
    /// The before-write hook point: may change `write.fields` or refuse by
    /// throwing APIError (nothing is written).
    func beforeWrite(_ write: inout PendingWrite) async throws(APIError)
    /// The after-write hook point: after commit; its failure never changes
    /// the client's answer.
    func afterWrite(_ write: CommittedWrite) async
    /// Whether there is a hook for `kind` writes of `className`. When there
    /// is none, the write reads nothing for hooks and calls neither hook
    /// point: a class with no hook pays nothing. Default: true.
    func handles(_ kind: PendingWrite.Kind, className: String) -> Bool
}

extension WriteHooks {
    /// Every write: a hook value that serves only some classes says which.
    public func handles(_ kind: PendingWrite.Kind, className: String) -> Bool { true }
}

/// The committed-change point: called once per committed write, in commit
/// order, for every write path. Must not block (hand off to your own
/// queue); LiveQuery attaches here.
///
/// ```swift
/// final class Feed: CommittedChangeObserver {
///     let continuation: AsyncStream<CommittedWrite>.Continuation
///     init(_ c: AsyncStream<CommittedWrite>.Continuation) { continuation = c }
///     func committed(_ write: CommittedWrite) { continuation.yield(write) }
/// }
/// ```
public protocol CommittedChangeObserver: Sendable { func committed(_ write: CommittedWrite) }

/// What joins the server's writes: the hooks and the observers, one value
/// registered on ``CQLServer/Configuration/pipeline`` (or its ``hooks`` and
/// ``observers``) and carried by ``API/pipeline``.
///
/// Every write runs the stages in this order: the route's guards (keys,
/// ACL, class-level permissions), the before-write hook point
/// (``WriteHooks/beforeWrite(_:)``), the write runner in its transaction,
/// the committed-change point (each ``CommittedChangeObserver``, called on
/// the writer's thread right after the commit, so in commit order) and the
/// after-write hook point (``WriteHooks/afterWrite(_:)``, in a task of its
/// own: the answer does not wait for it). If the process stops right after
/// a commit, the after-hook of that write is not run.
///
/// The hooks are called for every write of a class they handle
/// (``WriteHooks/handles(_:className:)``), `__ignore_hooks` included: the
/// write says so in `PendingWrite.ignoresHooks` and the hooks decide
/// (LeanCloud skips them). With no hook and no observer (``isEmpty``) a
/// write reads nothing extra: before images are read only when something
/// will see them.
///
/// ```swift
/// var configuration = CQLServer.Configuration(storage: .sqlite(path: "app.db"), keys: keys)
/// configuration.observers = [feed]   // sees every committed change, before and after
/// configuration.hooks = NoEmptyComments()
/// ```
public struct WritePipeline: Sendable {
    public var hooks: (any WriteHooks)?
    public var observers: [any CommittedChangeObserver]

    public init(hooks: (any WriteHooks)? = nil, observers: [any CommittedChangeObserver] = []) {
        self.hooks = hooks
        self.observers = observers
    }

    /// Nothing registered: writes need no before images and call nothing.
    public var isEmpty: Bool { hooks == nil && observers.isEmpty }

    /// The committed-change point: every observer, in registration order.
    func committed(_ write: CommittedWrite) {
        for observer in observers { observer.committed(write) }
    }

    /// The after-write hook point, in a task of its own.
    func afterWrite(_ write: CommittedWrite) {
        guard let hooks, !write.changes.isEmpty else { return }
        Task { await hooks.afterWrite(write) }
    }
}
