import CQLEval
import CQLKit
import CQLSQL

/// The one write path (``WritePipeline``): every route's write — the class
/// API, batch sub-requests (through the same routes), cloudQuery writes,
/// sign-up, users' updates and password changes, roles, files — runs
/// ``write(_:_:now:guards:objectId:readBack:before:then:)``'s stages in order.
extension API {
    /// Whose rules the guards stage applies to a write.
    enum WriteGuards {
        /// The caller's ACL: an update's or delete's object must be readable
        /// and writable by it (``guarded(_:_:)``).
        case caller
        /// The server's own write, checked by its route (a password change
        /// after the old password was verified).
        case server
    }

    /// One write through the stages: guards → before-write hook point → the
    /// write runner in its transaction (with PostgreSQL, LiveQuery's
    /// `NOTIFY` last in it) → committed-change point (inside the
    /// writer's lock, in commit order) → after-write hook point.
    ///
    /// `statement` is bound and checked (``checkStatement(_:identity:)``);
    /// `objectId`, `readBack`, `before` and `then` are
    /// ``ServerStorage/write(_:now:readBack:objectId:images:before:then:beforeCommit:committed:)``'s.
    /// A write the caller's guards pass but whose ACL changed before it ran is
    /// 403, not 305 (its own condition is not why it did not apply).
    func write(_ statement: Statement, _ r: APIRequest, now: DateValue, guards: WriteGuards = .caller, objectId: String? = nil,
               readBack: Bool = false, before: @escaping @Sendable (any SQLWriteSession) throws(QueryError) -> Void = { _ in },
               then: Statement? = nil) async throws -> WriteResult {
        // 1. Guards.
        var written = statement
        if guards == .caller { written = try await guarded(statement, r) }
        // 2. The before-write hook point.
        // `__ignore_hooks` counts from the app's engine (the hook key) or the master key only; a bad one is refused from anyone.
        let sentSkips = try r.skippedHooks()
        let skippedHooks = r.identity.isMaster || r.identity.hasHookKey ? sentSkips : .none
        let kind = Self.pendingKind(of: statement)
        let hooked = pipeline.hooks.map { $0.handles(kind, className: statement.className) } ?? false
        if hooked { written = try await beforeWrite(written, r, now: now, skippedHooks: skippedHooks) }
        // 3. The runner; 4. the committed-change point, on the writer's thread right after the commit.
        // With PostgreSQL, LiveQuery hears every write through NOTIFY, sent in its transaction.
        let notifications = liveQueryNotifications
        let observed = hooked || !pipeline.observers.isEmpty || notifications != nil
        let stages = pipeline, caller = r.identity
        var notify: (@Sendable (WriteResult, any SQLWriteSession) throws(QueryError) -> Void)?
        if let notifications {
            notify = { (done: WriteResult, session: any SQLWriteSession) throws(QueryError) in try notifications.notify(done, in: session) }
        }
        var committed: (@Sendable (WriteResult) -> Void)?
        if !stages.observers.isEmpty {
            committed = { (done: WriteResult) in
                if !done.changes.isEmpty { stages.committed(CommittedWrite(changes: done.changes, caller: caller, skippedHooks: skippedHooks)) }
            }
        }
        let result: WriteResult
        do {
            result = try await storage.write(written, now: now, readBack: readBack, objectId: objectId, images: observed, before: before,
                                             then: then, beforeCommit: notify, committed: committed)
        } catch let e as QueryError where guards == .caller && e.restCode == 305 && r.grantees != nil && Self.condition(of: statement) == nil {
            throw APIError.forbidden(statement.verb, statement.className, Self.objectId(of: statement) ?? "")
        }
        // 5. The after-write hook point: its own task; the answer does not wait for it.
        if hooked { stages.afterWrite(CommittedWrite(changes: result.changes, caller: caller, skippedHooks: skippedHooks)) }
        return result
    }

    static func pendingKind(of s: Statement) -> PendingWrite.Kind {
        switch s {
        case .update: return .update
        case .delete: return .delete
        case .insert, .select: return .create
        }
    }

    /// The before-write hook point: the hook sees each object the statement
    /// writes (REST JSON fields, the stored object for an update or delete)
    /// and may change the fields or refuse; changed fields are read into the
    /// statement again (a hook is the app's trusted code: not checked as a
    /// client's).
    func beforeWrite(_ statement: Statement, _ r: APIRequest, now: DateValue, skippedHooks: SkippedHooks) async throws -> Statement {
        guard let hooks = pipeline.hooks else { return statement }
        switch statement {
        case .insert(var s):
            var rows: [(columns: [NamedKey], row: [Term])] = []
            for row in s.rows {
                guard case .object(let request) = try RESTEmitter.emit(.insert(InsertStatement(className: s.className, columns: s.columns, rows: [row]))),
                      case .object(let fields)? = request["body"] else { throw APIError.internalError("a create's fields could not be shown to its hook") }
                var pending = PendingWrite(kind: .create, className: s.className, objectId: nil, fields: fields, current: nil,
                                           caller: r.identity, skippedHooks: skippedHooks)
                try await hooks.beforeWrite(&pending)
                if pending.fields == fields {
                    rows.append((s.columns, row))
                } else if case .insert(let changed) = try Binder.bind(try RESTReader.create(className: s.className, body: pending.fields),
                                                                       parameters: [], now: now) {
                    rows.append((changed.columns, changed.rows[0]))
                }
            }
            guard let first = rows.first else { return statement }
            // One insert has one set of keys: a hook giving its rows different keys is refused, not guessed at.
            guard rows.allSatisfy({ $0.columns.map(\.name) == first.columns.map(\.name) }) else {
                throw APIError.internalError("a before-write hook gave the rows of one insert different keys")
            }
            s.columns = first.columns
            s.rows = rows.map(\.row)
            return .insert(s)
        case .update(var u):
            guard case .value(.string(let id)) = u.objectId,
                  case .object(let request) = try RESTEmitter.emit(.update(UpdateStatement(className: u.className, assignments: u.assignments, objectId: u.objectId))),
                  case .object(let fields)? = request["body"] else { return statement }
            var pending = PendingWrite(kind: .update, className: u.className, objectId: id, fields: fields,
                                       current: try await storedObject(u.className, id), caller: r.identity, skippedHooks: skippedHooks)
            try await hooks.beforeWrite(&pending)
            guard pending.fields != fields else { return statement }
            guard case .update(let changed) = try Binder.bind(try RESTReader.update(className: u.className, objectId: id, body: pending.fields),
                                                              parameters: [], now: now) else { return statement }
            u.assignments = changed.assignments
            return .update(u)
        case .delete(let d):
            guard case .value(.string(let id)) = d.objectId else { return statement }
            var pending = PendingWrite(kind: .delete, className: d.className, objectId: id, fields: [:],
                                       current: try await storedObject(d.className, id), caller: r.identity, skippedHooks: skippedHooks)
            try await hooks.beforeWrite(&pending)
            return statement
        case .select:
            return statement
        }
    }

    /// The object as stored (every key, the ACL too), or nil: what a hook sees as `current`.
    func storedObject(_ className: String, _ objectId: String) async throws -> [String: Value]? {
        let query = Query(className: className, condition: Condition(.compare("objectId", .equal, .value(.string(objectId)))))
        return try await storage.find(try Self.prepared(query, as: .master)).objects.first
    }
}
