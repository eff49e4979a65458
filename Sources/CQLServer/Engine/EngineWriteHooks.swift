import CQLEval
import CQLKit
import Logging

/// The cloud engine's hooks at the write pipeline's hook points
/// (``WriteHooks``): beforeSave, beforeUpdate and beforeDelete before a
/// write (a refusal is 142 and nothing is written; beforeSave's changes are
/// what is created), afterSave, afterUpdate and afterDelete after its
/// commit (a failure is logged). A class the engine lists no hook for is
/// not handled at all (``handles(_:className:)``), so its writes pay nothing.
///
/// ```swift
/// var pipeline = WritePipeline()
/// pipeline.hooks = EngineWriteHooks(engine: engine, user: { caller in nil }, logger: logger)
/// ```
struct EngineWriteHooks: WriteHooks {
    let engine: CloudEngine
    /// The caller's user as a hook's `user` (with its session token), or nil.
    let user: @Sendable (Identity) async -> [String: Value]?
    let logger: Logger

    /// Keys of the engine's answer that are the server's, not the object's fields.
    static let serverKeys: Set<String> = ["objectId", "createdAt", "updatedAt", "__type", "className", "_updatedKeys"]
    /// `_User`'s secrets, never sent to the engine.
    static let secretKeys = ["password", "salt", "sessionToken"]

    func handles(_ kind: PendingWrite.Kind, className: String) -> Bool {
        // LeanCloud runs no hooks on installations.
        guard className != "_Installation" else { return false }
        let (before, after) = Self.hooks(kind)
        return engine.has(before, className: className) || engine.has(after, className: className)
    }

    static func hooks(_ kind: PendingWrite.Kind) -> (before: EngineHook, after: EngineHook) {
        switch kind {
        case .create: return (.beforeSave, .afterSave)
        case .update: return (.beforeUpdate, .afterUpdate)
        case .delete: return (.beforeDelete, .afterDelete)
        }
    }

    func beforeWrite(_ write: inout PendingWrite) async throws(APIError) {
        let hook = Self.hooks(write.kind).before
        guard !write.skippedHooks.skips(hook.rawValue), engine.has(hook, className: write.className) else { return }
        var object: [String: Value]
        switch write.kind {
        case .create: object = write.fields
        case .update:
            object = write.current ?? [:]
            for (key, value) in write.fields { object[key] = value }
            object["_updatedKeys"] = .array(write.fields.keys.sorted().map { .string($0) })
        case .delete: object = write.current ?? [:]
        }
        if let id = write.objectId { object["objectId"] = .string(id) }
        let answer = try await engine.callHook(hook, className: write.className, object: Self.shown(object, write.className),
                                               user: await user(write.caller))
        // beforeSave's answer is what is created; beforeUpdate's changes are not saved (LeanCloud's documented behavior).
        guard write.kind == .create, case .object(let changed) = answer else { return }
        var fields: [String: Value] = [:]
        // The engine never saw `_User`'s secrets (``shown(_:_:)``): they are kept as they were, never dropped by its answer.
        if write.className == "_User" { for key in Self.secretKeys { fields[key] = write.fields[key] } }
        for (key, value) in changed where !Self.serverKeys.contains(key) && !(write.className == "_User" && Self.secretKeys.contains(key)) {
            do { fields[key] = try value.decodingTypedValues() } catch {
                throw APIError(status: 502, code: 1, "Cloud Code engine error: beforeSave of \(write.className) answered '\(key)' as \(error.shortDescription)")
            }
        }
        write.fields = fields
    }

    func afterWrite(_ write: CommittedWrite) async {
        for change in write.changes {
            let hook: EngineHook = change.before == nil ? .afterSave : change.after == nil ? .afterDelete : .afterUpdate
            guard !write.skippedHooks.skips(hook.rawValue), engine.has(hook, className: change.className), var object = change.after ?? change.before else { continue }
            if hook == .afterUpdate, let before = change.before, let after = change.after {
                let changed = Set(before.keys).union(after.keys).filter { before[$0] != after[$0] && $0 != "updatedAt" }
                object["_updatedKeys"] = .array(changed.sorted().map { .string($0) })
            }
            object["objectId"] = .string(change.objectId)
            do {
                _ = try await engine.callHook(hook, className: change.className, object: Self.shown(object, change.className),
                                              user: await user(write.caller))
            } catch {
                logger.warning("\(hook.rawValue) of \(change.className) '\(change.objectId)' failed: \(error.message) (the write stands)")
            }
        }
    }

    /// An object as a hook receives it: REST JSON, `_User`'s secrets left out.
    static func shown(_ object: [String: Value], _ className: String) -> [String: Value] {
        var shown = object.mapValues(\.restJSON)
        if className == "_User" { for key in secretKeys { shown.removeValue(forKey: key) } }
        return shown
    }
}
