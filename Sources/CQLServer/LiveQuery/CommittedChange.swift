import CQLEval
import CQLKit
import Foundation

// Stand-in for the write pipeline's call of its observers (issue 39:
// WritePipeline declares CommittedWrite and CommittedChangeObserver and
// registers observers, but no write path calls them yet). Removed, with the
// hub registered in `Configuration.observers` instead, once writes call them.

/// The observers of one storage.
final class CommittedChangeObservers: @unchecked Sendable {
    private let lock = NSLock()
    private var observers: [any CommittedChangeObserver] = []

    func add(_ observer: any CommittedChangeObserver) {
        lock.withLock { observers.append(observer) }
    }

    var isActive: Bool { lock.withLock { !observers.isEmpty } }

    /// Called under the writer's serial order (one write at a time).
    func notify(_ write: WriteResult) {
        guard !write.changes.isEmpty else { return }
        let all = lock.withLock { observers }
        let committed = CommittedWrite(changes: write.changes, caller: Identity(isMaster: false))
        for o in all { o.committed(committed) }
    }
}

extension ServerStorage {
    /// Runs a write (`body`, given whether to read the object back) and
    /// tells the observers what it changed, before and after. (Stand-in: an
    /// update's or delete's object is read before the write, outside its
    /// transaction.)
    func observingChanges(_ statement: Statement, readBack: Bool, _ body: (Bool) async throws -> WriteResult) async throws -> WriteResult {
        guard committedObservers.isActive else { return try await body(readBack) }
        var target: (className: String, objectId: String)?
        switch statement {
        case .update(let u): if case .value(.string(let id)) = u.objectId { target = (u.className, id) }
        case .delete(let d): if case .value(.string(let id)) = d.objectId { target = (d.className, id) }
        case .insert, .select: break
        }
        var prior: [String: Value]?
        if let target {
            let query = Query(className: target.className, condition: Condition(.compare("objectId", .equal, .value(.string(target.objectId)))))
            prior = try? await find(try API.prepared(query, for: nil)).objects.first
        }
        var result = try await body(readBack || target != nil)
        var observed = result
        if let target, result.count > 0 {
            let after: [String: Value]?
            if case .delete = statement { after = nil } else { after = result.changes.first?.after }
            observed.changes = [ObjectChange(className: target.className, objectId: target.objectId, before: prior, after: after)]
        }
        committedObservers.notify(observed)
        if !readBack, case .update = statement { result.changes = [] }
        return result
    }
}
