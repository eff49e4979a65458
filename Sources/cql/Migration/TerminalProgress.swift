#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import CQLEval
import Foundation

/// A progress line rewritten in place on standard error, at most twice a
/// second, only when standard error is a terminal (logs and pipes stay
/// clean): what `cql files fetch`, `cql dump` and `cql pull` show while they
/// work. The line's text comes from `text`, asked each time it is shown.
///
/// ```swift
/// let progress = TerminalProgress { "\(done) of \(total) files" }
/// progress?.tick()      // shown if half a second has passed
/// progress?.finish()    // the last figures, then a newline
/// ```
final class TerminalProgress: @unchecked Sendable {
    private let text: @Sendable () -> String
    private let lock = NSLock()
    private var lastShown = 0.0
    private var shown = false
    let start = TerminalProgress.now()

    /// nil when standard error is not a terminal.
    init?(_ text: @escaping @Sendable () -> String) {
        guard isatty(2) != 0 else { return nil }
        self.text = text
    }

    /// Shows the line if it was last shown half a second ago or more.
    func tick() {
        let t = Self.now()
        lock.lock()
        defer { lock.unlock() }
        guard t - lastShown >= 0.5 else { return }
        lastShown = t
        show()
    }

    /// The final figures and a newline (when a line was shown).
    func finish() {
        lock.lock()
        defer { lock.unlock() }
        guard shown else { return }
        show()
        Self.writeError("\n")
    }

    private func show() {
        shown = true
        Self.writeError("\r\u{1B}[K" + text())
    }

    static func writeError(_ s: String) {
        var bytes = Array(s.utf8)
        bytes.withUnsafeMutableBytes { b in _ = write(2, b.baseAddress, b.count) }
    }

    /// Seconds on the monotonic clock.
    static func now() -> Double {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9
    }

    /// Seconds since the start.
    var elapsed: Double { Self.now() - start }

    /// `1.2 MB`, `340 KB`, `12 B`.
    static func bytes(_ n: Int) -> String {
        let d = Double(n)
        if d >= 1_048_576 { return tenths(d / 1_048_576) + " MB" }
        if d >= 1024 { return tenths(d / 1024) + " KB" }
        return "\(n) B"
    }

    static func tenths(_ x: Double) -> String { LoadProgress.tenths(x) }

    /// `1:05` for 65 seconds (`h:mm:ss` past an hour).
    static func duration(_ seconds: Double) -> String {
        let s = max(0, Int(seconds.rounded(.up)))
        let two = { (n: Int) in n < 10 ? "0\(n)" : "\(n)" }
        return s >= 3600 ? "\(s / 3600):\(two(s / 60 % 60)):\(two(s % 60))" : "\(s / 60):\(two(s % 60))"
    }

    /// `1,234,567`.
    static func grouped(_ n: Int) -> String { LoadProgress.grouped(n) }
}
