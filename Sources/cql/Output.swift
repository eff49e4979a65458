#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import CQLKit

/// A bad query, parameter or datum: already rendered, ends the run with status 1.
struct CommandFailure: Error {
    var text: String
    /// 1 for a bad query or datum, 2 for bad usage.
    var status: Int32 = 1

    init(_ text: String, status: Int32 = 1) {
        self.text = text
        self.status = status
    }

    /// `error: <input>:LINE:COL: message` + source line + caret.
    init(_ error: QueryError, inputName: String = "<input>") {
        text = "error: " + error.rendered(inputName: inputName)
    }
}

/// Buffered standard output (one write per 64 KiB, not per line) and stderr.
enum Output {
    nonisolated(unsafe) private static var buffer: [UInt8] = []

    static func line(_ s: String) {
        buffer.append(contentsOf: s.utf8)
        buffer.append(0x0A)
        if buffer.count >= 1 << 16 { flush() }
    }

    /// `b` and a newline.
    static func line(bytes b: [UInt8]) {
        buffer.append(contentsOf: b)
        buffer.append(0x0A)
        if buffer.count >= 1 << 16 { flush() }
    }

    static func bytes(_ b: [UInt8]) {
        // A large run (a piece of `translate --lines` output, ~20 KiB) is
        // written as it is, after what is buffered, not copied in first.
        if b.count >= 1 << 14 {
            flush()
            b.withUnsafeBytes(writeAll)
            return
        }
        buffer.append(contentsOf: b)
        if buffer.count >= 1 << 16 { flush() }
    }

    static func flush() {
        guard !buffer.isEmpty else { return }
        buffer.withUnsafeBytes(writeAll)
        buffer.removeAll(keepingCapacity: true)
    }

    /// Writes all of `raw` to stdout: a short write goes on where it
    /// stopped, an interrupted one (EINTR) is tried again, and a full
    /// non-blocking pipe (EAGAIN) is waited for.
    ///
    /// Any other failure ends the run at once, since output that cannot be
    /// written must not look like success (a full disk left a truncated file
    /// and status 0): see ``outputFailed(_:)``.
    private static func writeAll(_ raw: UnsafeRawBufferPointer) {
        var offset = 0
        while offset < raw.count {
            let n = write(1, raw.baseAddress! + offset, raw.count - offset)
            if n > 0 {
                offset += n
                continue
            }
            let code = n == 0 ? EIO : errno
            if code == EINTR { continue }
            if code == EAGAIN {
                var ready = pollfd(fd: 1, events: Int16(POLLOUT), revents: 0)
                _ = poll(&ready, 1, -1)
                continue
            }
            outputFailed(code)
        }
    }

    /// The exit status of a run whose reader closed the pipe: 128 + SIGPIPE,
    /// what a shell reports for a tool that SIGPIPE killed.
    ///
    /// Why not 0: the run stopped early (an `exec` may not have applied its
    /// later statements), and `set -o pipefail` scripts expect the status
    /// that `yes | head -1` gives. Why not the signal itself: ``Main``
    /// ignores SIGPIPE, so the process ends by `exit` after its own clean-up
    /// instead of being killed in the middle of a write.
    static let closedPipeStatus: Int32 = 141

    /// Ends the run after a failed write to stdout: a closed pipe (EPIPE, the
    /// reader had enough, as `| head -1`) quietly with ``closedPipeStatus``;
    /// anything else (ENOSPC, EIO, EBADF...) with
    /// `error: cannot write output: <reason>` and status 1.
    static func outputFailed(_ code: Int32) -> Never {
        if code == EPIPE { exitProcess(closedPipeStatus) }
        error("error: cannot write output: " + String(cString: strerror(code)))
        exitProcess(1)
    }

    /// `warning: <message>` on stderr; the run goes on (exit status unchanged).
    static func warning(_ s: String) { error("warning: " + s) }

    static func error(_ s: String) {
        let text = s.hasSuffix("\n") ? s : s + "\n"
        var bytes = Array(text.utf8)
        bytes.withUnsafeMutableBytes { raw in
            _ = write(2, raw.baseAddress!, raw.count)
        }
    }
}

func exitProcess(_ code: Int32) -> Never { exit(code) }
