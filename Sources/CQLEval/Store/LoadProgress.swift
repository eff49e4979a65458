#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The progress line of a long load (`cql load` of a large export): objects
/// read, megabytes per second and the time left, rewritten in place on
/// standard error about twice a second. ``onTerminal(files:)`` makes one
/// only when standard error is a terminal, so logs and pipes stay clean.
///
/// ```swift
/// let progress = LoadProgress.onTerminal(files: paths)   // nil when stderr is not a terminal
/// try DataFiles.forEachObject(inFile: path, progress: progress) { object, line in ... }
/// progress?.finish()
/// ```
public final class LoadProgress {
    /// The bytes of every file to read.
    public let totalBytes: Int
    /// Objects read so far.
    public private(set) var objects = 0
    private var finishedBytes = 0
    private var fileBytes = 0
    private let start: Double
    private var lastShown: Double
    private var shown = false
    private let write: (String) -> Void

    /// A progress line over `totalBytes`, written through `write`.
    public init(totalBytes: Int, write: @escaping (String) -> Void) {
        self.totalBytes = totalBytes
        self.write = write
        start = LoadProgress.now()
        lastShown = start
    }

    /// A progress line on standard error for reading `files`, or `nil` when
    /// standard error is not a terminal.
    public static func onTerminal(files: [String]) -> LoadProgress? {
        guard isatty(2) != 0 else { return nil }
        return LoadProgress(totalBytes: files.reduce(0) { $0 + size(of: $1) }) { text in
            var bytes = Array(text.utf8)
            bytes.withUnsafeMutableBytes { b in _ = LoadProgress.writeStandardError(b.baseAddress, b.count) }
        }
    }

    private static func writeStandardError(_ p: UnsafeMutableRawPointer?, _ n: Int) -> Int {
        #if canImport(Glibc)
        Glibc.write(2, p, n)
        #else
        Darwin.write(2, p, n)
        #endif
    }

    /// `bytes` more of the current file read, holding `objects` more objects.
    public func advance(bytes: Int, objects: Int) {
        fileBytes += bytes
        self.objects += objects
        // The clock is read once per 1024 objects.
        guard objects == 0 || self.objects & 1023 == 0 else { return }
        let t = LoadProgress.now()
        if t - lastShown >= 0.5 {
            lastShown = t
            show(at: t)
        }
    }

    /// The current file is read whole (`size` bytes).
    public func endFile(size: Int) {
        finishedBytes += size
        fileBytes = 0
    }

    /// Ends the line (when one was shown) with the final figures.
    public func finish() {
        guard shown else { return }
        show(at: LoadProgress.now())
        write("\n")
    }

    private func show(at t: Double) {
        shown = true
        write("\r\u{1B}[K" + LoadProgress.line(objects: objects, bytes: min(finishedBytes + fileBytes, totalBytes), total: totalBytes, seconds: t - start))
    }

    /// The text of the line: `1,234,567 objects, 120.4 of 800.0 MB, 45.3 MB/s, 0:15 left`.
    public static func line(objects: Int, bytes: Int, total: Int, seconds: Double) -> String {
        let mb = 1_048_576.0
        let rate = seconds > 0 ? Double(bytes) / mb / seconds : 0
        var text = "\(grouped(objects)) objects, \(tenths(Double(bytes) / mb)) of \(tenths(Double(total) / mb)) MB, \(tenths(rate)) MB/s"
        if rate > 0 {
            let left = Int((Double(total - bytes) / mb / rate).rounded(.up))
            text += ", \(left / 60):\(left % 60 < 10 ? "0" : "")\(left % 60) left"
        }
        return text
    }

    /// `1,234,567`.
    public static func grouped(_ n: Int) -> String {
        var digits = Array(String(n))
        var out = ""
        while digits.count > 3 {
            out = "," + String(digits.suffix(3)) + out
            digits.removeLast(3)
        }
        return String(digits) + out
    }

    /// `12.3` (one decimal).
    public static func tenths(_ x: Double) -> String {
        let t = Int((x * 10).rounded())
        return "\(t / 10).\(t % 10)"
    }

    /// A file's size in bytes (0 when it cannot be read).
    public static func size(of path: String) -> Int {
        var st = stat()
        return stat(path, &st) == 0 ? Int(st.st_size) : 0
    }

    private static func now() -> Double {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9
    }
}
