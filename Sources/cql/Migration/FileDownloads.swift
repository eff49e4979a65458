import AsyncHTTPClient
import Crypto
import Foundation
import NIOCore
import NIOHTTP1

/// One file to copy: its `_File` object, the key its bytes go under in the
/// files directory, where they come from, and what they must be.
struct FileJob: Sendable {
    var objectId: String
    var key: String
    var source: String
    /// `metaData.size`, when the object says.
    var size: Int?
    /// `metaData._checksum` (MD5, lowercase hex), when the object says.
    var checksum: String?
}

/// What the downloads have done so far (shared by the parallel jobs and the
/// progress line).
final class DownloadCounters: @unchecked Sendable {
    private let lock = NSLock()
    private(set) var files = 0
    private(set) var failed = 0
    private(set) var bytes = 0
    let totalFiles: Int
    let totalBytes: Int
    let started = TerminalProgress.now()

    init(totalFiles: Int, totalBytes: Int) {
        self.totalFiles = totalFiles
        self.totalBytes = totalBytes
    }

    func received(_ n: Int) { lock.withLock { bytes += n } }
    func finished(failed: Bool) { lock.withLock { files += 1; if failed { self.failed += 1 } } }

    /// `12 of 100 files (1 failed), 3.4 MB of 10.2 MB, 1.1 MB/s, 0:06 left`.
    func line(seconds: Double) -> String {
        let (files, failed, bytes) = lock.withLock { (self.files, self.failed, self.bytes) }
        let rate = seconds > 0 ? Double(bytes) / seconds : 0
        var text = "\(TerminalProgress.grouped(files)) of \(TerminalProgress.grouped(totalFiles)) files"
        if failed > 0 { text += " (\(failed) failed)" }
        text += ", \(TerminalProgress.bytes(bytes))"
        if totalBytes > 0 { text += " of \(TerminalProgress.bytes(totalBytes))" }
        text += ", \(TerminalProgress.bytes(Int(rate)))/s"
        if rate > 0 && totalBytes > bytes { text += ", \(TerminalProgress.duration(Double(totalBytes - bytes) / rate)) left" }
        else if files > 0 && files < totalFiles { text += ", \(TerminalProgress.duration(seconds / Double(files) * Double(totalFiles - files))) left" }
        return text
    }
}

/// The parallel, verified downloads of `cql files fetch`.
///
/// Each file is written aside (`<key>.fetch-<random>`, mode 0600), its MD5
/// computed as the bytes arrive, then `fsync`ed and renamed to `<key>`
/// only when its size is `metaData.size` and its MD5 `_checksum` (each when
/// the object has one): a file under its key is always whole and verified,
/// whatever stopped an earlier run. A status of 429 or 5xx and a failed
/// connection are tried again (four attempts, 0.5 s, 1 s, 2 s apart);
/// another status, a size or checksum mismatch fail the file at once.
enum FileDownloads {
    /// Suffix of a file being written (removed by the next run if left).
    static let asideMarker = ".fetch-"

    enum Attempt: Sendable {
        case done(bytes: Int)
        case failed(String)
        /// An answer worth another try (429, 5xx, a transfer cut short).
        case retry(String)
        /// No connection (refused, timed out, no such host).
        case unreachable(String)
    }

    /// An HTTP client for `connections` downloads at once from any host:
    /// redirects followed, 10 s to connect, 60 s of silence ends a transfer.
    static func client(connections: Int) -> HTTPClient {
        var configuration = HTTPClient.Configuration(
            redirectConfiguration: .follow(max: 5, allowCycles: false),
            timeout: .init(connect: .seconds(10), read: .seconds(60)),
            connectionPool: .init(idleTimeout: .seconds(60), concurrentHTTP1ConnectionsPerHostSoftLimit: max(connections, 1)))
        configuration.decompression = .disabled
        return HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
    }

    /// Hosts that refuse or drop every connection: after three failed
    /// connections and no answer, the rest of a host's files fail at once
    /// (a file domain that stopped answering costs seconds, not hours).
    final class Hosts: @unchecked Sendable {
        private let lock = NSLock()
        private var failures: [String: Int] = [:]
        private var answered: Set<String> = []

        static func host(_ url: String) -> String {
            let rest = url.split(separator: "/", maxSplits: 3, omittingEmptySubsequences: false)
            return rest.count > 2 ? rest[2].lowercased() : url
        }

        func isDead(_ url: String) -> Bool {
            let h = Self.host(url)
            return lock.withLock { !answered.contains(h) && failures[h, default: 0] >= 3 }
        }
        func answer(_ url: String) { let h = Self.host(url); _ = lock.withLock { answered.insert(h) } }
        func fail(_ url: String) { let h = Self.host(url); lock.withLock { failures[h, default: 0] += 1 } }
    }

    /// Runs `jobs`, `parallel` at a time; `finished` hears of each (on the
    /// calling task, one at a time) with nil or the reason it failed.
    static func run(_ jobs: [FileJob], directory: String, parallel: Int, counters: DownloadCounters, progress: TerminalProgress?,
                    finished: (FileJob, Attempt) async -> Void) async {
        let client = client(connections: parallel)
        let hosts = Hosts()
        await withTaskGroup(of: (FileJob, Attempt).self) { group in
            var next = 0
            func start() {
                guard next < jobs.count else { return }
                let job = jobs[next]
                next += 1
                group.addTask { (job, await fetch(job, directory: directory, client: client, hosts: hosts, counters: counters, progress: progress)) }
            }
            for _ in 0..<max(parallel, 1) { start() }
            while let (job, outcome) = await group.next() {
                if case .done = outcome { counters.finished(failed: false) } else { counters.finished(failed: true) }
                progress?.tick()
                await finished(job, outcome)
                start()
            }
        }
        try? await client.shutdown()
    }

    /// One file, tried up to four times (a failed connection: twice).
    static func fetch(_ job: FileJob, directory: String, client: HTTPClient, hosts: Hosts, counters: DownloadCounters,
                      progress: TerminalProgress?) async -> Attempt {
        var attempt = 0
        while true {
            if hosts.isDead(job.source) { return .failed("the host does not answer (3 connections failed)") }
            attempt += 1
            let outcome = await fetchOnce(job, directory: directory, client: client, counters: counters, progress: progress)
            switch outcome {
            case .done, .failed: hosts.answer(job.source)
            case .retry: break
            case .unreachable: hosts.fail(job.source)
            }
            let reason: String
            switch outcome {
            case .done, .failed: return outcome
            case .retry(let r): reason = r
            case .unreachable(let r):
                if attempt >= 2 { return .failed("\(r) (\(attempt) attempts)") }
                reason = r
            }
            if attempt >= 4 { return .failed("\(reason) (\(attempt) attempts)") }
            try? await Task.sleep(nanoseconds: 500_000_000 << UInt64(attempt - 1))
        }
    }

    static func fetchOnce(_ job: FileJob, directory: String, client: HTTPClient, counters: DownloadCounters, progress: TerminalProgress?) async -> Attempt {
        let final = directory + "/" + job.key
        let aside = final + asideMarker + String(UInt32.random(in: 0...UInt32.max), radix: 16)
        let fd = open(aside, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard fd >= 0 else { return .failed("cannot create a file in \(directory): \(String(cString: strerror(errno)))") }
        var isOpen = true
        var received = 0
        func fail(_ a: Attempt) -> Attempt {
            if isOpen { close(fd); isOpen = false }
            unlink(aside)
            counters.received(-received)
            return a
        }
        do {
            var request = HTTPClientRequest(url: encodedURL(job.source))
            request.headers.add(name: "User-Agent", value: "cql-files-fetch")
            let response = try await client.execute(request, deadline: .distantFuture)
            guard response.status == .ok else {
                let code = Int(response.status.code)
                let reason = "HTTP \(code) \(response.status.reasonPhrase)"
                return fail(code == 429 || code >= 500 ? .retry(reason) : .failed(reason))
            }
            var md5 = Insecure.MD5()
            for try await buffer in response.body {
                let written = buffer.withUnsafeReadableBytes { raw -> Bool in
                    md5.update(bufferPointer: raw)
                    return writeAll(fd, raw)
                }
                guard written else { return fail(.failed("cannot write in \(directory): \(String(cString: strerror(errno)))")) }
                received += buffer.readableBytes
                counters.received(buffer.readableBytes)
                progress?.tick()
                if let size = job.size, received > size {
                    return fail(.failed("more than the \(size) bytes of metaData.size"))
                }
            }
            if fsync(fd) != 0 { return fail(.failed("cannot write in \(directory): \(String(cString: strerror(errno)))")) }
            close(fd)
            isOpen = false
            if let size = job.size, received != size { return fail(.failed("\(received) bytes, metaData.size says \(size)")) }
            let digest = md5.finalize().map { String(format: "%02x", $0) }.joined()
            if let sum = job.checksum, sum != digest { return fail(.failed("MD5 \(digest), metaData._checksum says \(sum)")) }
            if rename(aside, final) != 0 { return fail(.failed("cannot rename into \(directory): \(String(cString: strerror(errno)))")) }
            return .done(bytes: received)
        } catch {
            return fail(isConnectionFailure(error) && received == 0 ? .unreachable(describe(error)) : .retry(describe(error)))
        }
    }

    static func writeAll(_ fd: Int32, _ raw: UnsafeRawBufferPointer) -> Bool {
        var offset = 0
        while offset < raw.count {
            let n = write(fd, raw.baseAddress! + offset, raw.count - offset)
            if n < 0 && errno == EINTR { continue }
            if n <= 0 { return false }
            offset += n
        }
        return true
    }

    /// Whether `error` means no connection was made.
    static func isConnectionFailure(_ error: any Error) -> Bool {
        if let e = error as? HTTPClientError, e == .connectTimeout { return true }
        let text = "\(error)"
        return text.contains("connect") || text.contains("Connect") || text.contains("resolve") || text.contains("DNS")
    }

    /// A short reason for a transport error.
    static func describe(_ error: any Error) -> String {
        if let e = error as? HTTPClientError {
            switch e {
            case .readTimeout: return "no bytes for 60 s (read timeout)"
            case .connectTimeout: return "cannot connect within 10 s"
            case .remoteConnectionClosed: return "the connection closed before the end"
            default: return "\(e)"
            }
        }
        let text = "\(error)"
        if text.contains("connectionRefused") || text.contains("Connection refused") { return "connection refused" }
        return text
    }

    /// `url` with every byte outside printable ASCII (and space, `"`, `<`,
    /// `>`, `\`, `^`, `` ` ``, `{`, `|`, `}`) percent-encoded: a URL stored with
    /// its file's Chinese name in plain UTF-8 is fetched as the encoded one a
    /// browser would send; one already encoded is left as it is.
    static func encodedURL(_ url: String) -> String {
        var out = ""
        let unsafe = Set("\"<>\\^`{|}".utf8)
        for b in url.utf8 {
            if b > 0x20 && b < 0x7F && !unsafe.contains(b) { out.unicodeScalars.append(Unicode.Scalar(b)) }
            else { out += String(format: "%%%02X", b) }
        }
        return out
    }

    /// Removes what an interrupted run left being written.
    static func removeLeftovers(in directory: String) {
        for name in (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? [] where name.contains(asideMarker) {
            unlink(directory + "/" + name)
        }
    }

    /// Makes the renames so far durable (the directory's entries).
    static func syncDirectory(_ directory: String) {
        let fd = open(directory, O_RDONLY | O_CLOEXEC)
        if fd >= 0 { fsync(fd); close(fd) }
    }
}
