import Foundation

/// The committed writes waiting for ``LiveQueryHub``'s dispatcher, taken
/// all at once: while the dispatcher matches, the writes that commit queue
/// here, and it takes them together next (at most ``batchLimit``), so under
/// load it neither waits nor is woken once per write, and each connection
/// is sent one message per batch (LiveQuery.md, "Limits").
///
/// ```swift
/// let pending = PendingWrites(limit: 100_000)
/// _ = pending.append(write)        // .queued; .full once `limit` writes wait
/// let batch = await pending.take() // [write]; nil once finished or cancelled
/// ```
final class PendingWrites: @unchecked Sendable {
    /// The most writes one batch takes (a batch's events are sent when it is matched).
    static let batchLimit = 256

    let limit: Int
    private let lock = NSLock()
    private var items: [CommittedWrite] = []
    private var start = 0
    private var waiter: CheckedContinuation<[CommittedWrite]?, Never>?
    private var finished = false

    init(limit: Int) { self.limit = limit }

    enum Appended: Equatable { case queued, full, finished }

    /// Queues a write; nothing is queued when `limit` writes wait (`full`)
    /// or after ``finish()`` (`finished`).
    func append(_ write: CommittedWrite) -> Appended {
        lock.lock()
        guard !finished else {
            lock.unlock()
            return .finished
        }
        guard items.count - start < limit else {
            lock.unlock()
            return .full
        }
        items.append(write)
        let woken = waiter
        waiter = nil
        let batch = woken == nil ? nil : takeLocked()
        lock.unlock()
        woken?.resume(returning: batch)
        return .queued
    }

    /// The writes waiting, oldest first (at most ``batchLimit``), waiting for
    /// one if there is none; nil once finished and empty, or when the task
    /// is cancelled.
    func take() async -> [CommittedWrite]? {
        await withTaskCancellationHandler {
            await withCheckedContinuation { (c: CheckedContinuation<[CommittedWrite]?, Never>) in
                lock.lock()
                if start < items.count {
                    let batch = takeLocked()
                    lock.unlock()
                    c.resume(returning: batch)
                } else if finished || Task.isCancelled {
                    lock.unlock()
                    c.resume(returning: nil)
                } else {
                    waiter = c
                    lock.unlock()
                }
            }
        } onCancel: {
            lock.lock()
            let woken = waiter
            waiter = nil
            lock.unlock()
            woken?.resume(returning: nil)
        }
    }

    /// No more writes; ``take()`` answers what waits, then nil.
    func finish() {
        lock.lock()
        finished = true
        let woken = waiter
        waiter = nil
        lock.unlock()
        woken?.resume(returning: nil)
    }

    /// How many writes wait.
    var count: Int { lock.withLock { items.count - start } }

    private func takeLocked() -> [CommittedWrite] {
        let end = min(items.count, start + Self.batchLimit)
        let batch = Array(items[start..<end])
        if end == items.count {
            items.removeAll(keepingCapacity: items.capacity <= 4 * Self.batchLimit)
            start = 0
        } else {
            start = end
            // Compacted once the taken half dominates: O(1) amortized a write.
            if start >= items.count / 2 {
                items.removeFirst(start)
                start = 0
            }
        }
        return batch
    }
}
