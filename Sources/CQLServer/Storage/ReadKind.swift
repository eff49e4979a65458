import CQLKit
import Dispatch
import Foundation
import NIOCore

/// How a read is admitted to the storage's readers (Server.md,
/// "Slow neighbours"): a **point** read (a get by objectId, a session or
/// grantee lookup, the catalog) always may run; a **scan** (every other
/// find) takes one of `ServerStorage.scanPermits` first, which are one
/// fewer than the readers, so slow scans never hold every reader and a get
/// beside them waits for no scan.
///
/// ```swift
/// ReadKind.of(try WhereJSONReader.read(["className": "Todo", "where": ["objectId": "a1"]]))   // .point
/// ReadKind.of(try WhereJSONReader.read(["className": "Todo", "where": ["done": false]]))      // .scan
/// ```
public enum ReadKind: Sendable, Equatable {
    case point, scan

    /// `.point` when the query requires `objectId` to equal one value (at
    /// its top, or in its top `and`s: the caller's ACL condition is added
    /// so); `.scan` otherwise.
    public static func of(_ query: Query) -> ReadKind {
        pinsObjectId(query.condition) ? .point : .scan
    }

    static func pinsObjectId(_ c: Condition?) -> Bool {
        guard let c else { return false }
        if case .compare(let path, .equal, .value) = c.predicate { return path.singleComponent == "objectId" }
        if case .and(let items) = c.predicate { return items.contains { pinsObjectId($0) } }
        // Any other test (an or, a not, a range) pins no one object: a scan, the safe side.
        return false
    }
}

/// At most a number of holders at once; the others wait in order, each
/// until its deadline, without holding a thread (an async wait).
///
/// ```swift
/// let permits = AsyncPermits(3)
/// guard await permits.acquire(before: .now() + .seconds(10)) else { throw APIError.timeout(10) }
/// defer { permits.release() }
/// ```
final class AsyncPermits: @unchecked Sendable {
    private let lock = NSLock()
    private var available: Int
    private var waiters: [(id: UInt64, continuation: CheckedContinuation<Bool, Never>)] = []
    private var nextId: UInt64 = 0

    init(_ count: Int) { available = max(1, count) }

    /// True once a permit is held; false when `deadline` came first.
    func acquire(before deadline: NIODeadline) async -> Bool {
        await withCheckedContinuation { (continuation: CheckedContinuation<Bool, Never>) in
            lock.lock()
            if available > 0 && waiters.isEmpty {
                available -= 1
                lock.unlock()
                continuation.resume(returning: true)
                return
            }
            let id = nextId
            nextId += 1
            waiters.append((id, continuation))
            lock.unlock()
            let wait = max(0, (deadline - .now()).nanoseconds)
            DispatchQueue.global().asyncAfter(deadline: .now() + .nanoseconds(Int(wait))) { [weak self] in self?.expire(id) }
        }
    }

    /// Gives a permit back: to the first waiter, else to the pool.
    func release() {
        lock.lock()
        if waiters.isEmpty {
            available += 1
            lock.unlock()
            return
        }
        let next = waiters.removeFirst()
        lock.unlock()
        next.continuation.resume(returning: true)
    }

    private func expire(_ id: UInt64) {
        lock.lock()
        guard let index = waiters.firstIndex(where: { $0.id == id }) else {
            lock.unlock()
            return
        }
        let waiter = waiters.remove(at: index)
        lock.unlock()
        waiter.continuation.resume(returning: false)
    }
}
