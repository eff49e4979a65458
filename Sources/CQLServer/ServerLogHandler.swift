import CQLKit
import Foundation
import Logging
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The server's log lines on stderr: `<UTC time> <level> <label>: <message>`,
/// written in batches (``ServerLogBuffer``).
///
/// ```
/// 2026-11-28T11:31:15.378Z info cql.serve: GET /1.1/classes/Comment/5f2b… 200 1.2ms
/// ```
///
/// Why not swift-log's `StreamLogHandler`: it formats the time with
/// `strftime` in the local zone, which asks the C library for the zone —
/// a `stat` of `/etc/localtime` — on every line, and the access log writes
/// a line per request; its stamp also stops at the second. Here the time is
/// UTC to the millisecond (what a server's logs should say) computed by
/// arithmetic, and lines go out whole and in order, in batches
/// (``ServerLogBuffer``), so lines from concurrent requests never
/// interleave.
///
/// Metadata is written as `key=value` after the label, as given; the server
/// never puts keys, tokens or bodies into its log (`AccessLogMiddleware`).
public struct ServerLogHandler: LogHandler {
    public var logLevel: Logger.Level = .info
    public var metadata: Logger.Metadata = [:]
    public let label: String

    public init(label: String) { self.label = label }

    public subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    public func log(event: LogEvent) {
        var ts = timespec()
        clock_gettime(CLOCK_REALTIME, &ts)
        let now = DateValue(millisecondsSince1970: Int64(ts.tv_sec) * 1000 + Int64(ts.tv_nsec) / 1_000_000)
        var line = ISODate.format(now)
        line += " \(event.level) \(label):"
        var all = metadata
        if let extra = event.metadata { all.merge(extra) { _, new in new } }
        for (k, v) in all.sorted(by: { $0.key < $1.key }) { line += " \(k)=\(v)" }
        line += " \(event.message)\n"
        ServerLogBuffer.shared.append(line, urgent: event.level >= .warning)
    }
}

/// Log lines on their way to stderr, written by a thread of their own in
/// batches: 50 ms after the first line of a batch, at once for a warning or
/// worse or when 32 KiB wait, and at ``flush()`` (`cql serve` calls it as
/// it exits).
///
/// Why: the access log is a line per request. A `write` per line is a
/// system call on the event loop and a wake-up of whatever reads the log (a
/// pipe, journald), both on the cores the requests need; and when the
/// reader falls behind and the pipe fills, that `write` blocks the event
/// loop and every connection on it. Batches on their own thread are what
/// nginx's `access_log ... buffer= flush=` does, for the same reasons.
/// Measured in Server.md ("Threads").
///
/// Lines go out whole and in the order they came. The price: a process
/// killed with SIGKILL loses up to 50 ms of its log (never a request). If
/// stderr is not read at all, at most 4 MiB wait; lines past that are
/// dropped and counted, and the count is written when stderr moves again.
///
/// ```swift
/// LoggingSystem.bootstrap { ServerLogHandler(label: $0) }
/// Logger(label: "cql.serve").info("GET /1.1/date 200 0.1ms")  // on stderr within 50 ms
/// Logger(label: "cql.serve").error("disk full")               // at once, after the line above
/// ServerLogBuffer.shared.flush()                              // whatever waits, now (at exit)
/// ```
public final class ServerLogBuffer: @unchecked Sendable {
    public static let shared = ServerLogBuffer()
    static let batchSize = 32 * 1024

    /// Where the lines go (stderr), how long a batch waits, and how many
    /// bytes may wait.
    let fileDescriptor: Int32, delay: TimeInterval, limit: Int

    init(fileDescriptor: Int32 = 2, delay: TimeInterval = 0.05, limit: Int = 4 * 1024 * 1024) {
        self.fileDescriptor = fileDescriptor
        self.delay = delay
        self.limit = limit
    }

    private var pending: [UInt8] = []
    private var dropped = 0
    private var urgent = false
    private var flusherStarted = false
    /// Guards the state above and wakes the flusher.
    private let condition = NSCondition()
    /// Held from taking a batch to having written it, so batches keep their order.
    private let writing = NSLock()

    func append(_ line: String, urgent isUrgent: Bool) {
        condition.lock()
        defer { condition.unlock() }
        let wasEmpty = pending.isEmpty
        if pending.count + line.utf8.count > limit {
            dropped += 1
        } else {
            pending.append(contentsOf: line.utf8)
        }
        if !flusherStarted {
            flusherStarted = true
            let thread = Thread { self.runFlusher() }
            thread.name = "cql-log"
            thread.start()
        }
        let wake = isUrgent || pending.count >= Self.batchSize
        if wake { urgent = true }
        // The flusher waits for a first line, or sleeps out a batch's delay.
        if wasEmpty || wake { condition.signal() }
    }

    /// Writes every line waiting (on the caller's thread).
    public func flush() {
        writing.lock()
        defer { writing.unlock() }
        condition.lock()
        let batch = takeBatch()
        condition.unlock()
        writeAll(batch)
    }

    /// The waiting lines and the note of any dropped; `condition` held.
    private func takeBatch() -> [UInt8] {
        var batch: [UInt8] = []
        swap(&batch, &pending)
        if dropped > 0 {
            batch.append(contentsOf: "cql serve: \(dropped) log lines dropped: stderr was not read fast enough\n".utf8)
            dropped = 0
        }
        urgent = false
        return batch
    }

    private func runFlusher() {
        while true {
            condition.lock()
            while pending.isEmpty && dropped == 0 { condition.wait() }
            let deadline = Date(timeIntervalSinceNow: delay)
            while !urgent && condition.wait(until: deadline) {}
            condition.unlock()
            flush()
        }
    }

    private func writeAll(_ bytes: [UInt8]) {
        bytes.withUnsafeBufferPointer { bytes in
            var offset = 0
            while offset < bytes.count {
                let n = write(fileDescriptor, bytes.baseAddress! + offset, bytes.count - offset)
                if n < 0 && errno == EINTR { continue }
                // A closed stderr loses the lines, never a request.
                if n <= 0 { return }
                offset += n
            }
        }
    }
}
