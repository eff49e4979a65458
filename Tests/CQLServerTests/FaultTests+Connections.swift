import Foundation
import XCTest

#if canImport(Glibc)
import Glibc
#endif

/// Connections as an operator meets them: more than the descriptor limit
/// allows, and clients that open one and send nothing (or a request head a
/// byte at a time). The server refuses what it cannot hold with a 503, cuts
/// off idle connections, and keeps serving (Server.md, "Connections").
final class FaultTestsConnections: XCTestCase {
    func directory() throws -> String {
        let dir = NSTemporaryDirectory() + "cql-fault-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        return dir
    }

    /// A TCP connection to the server, or nil when it cannot be made.
    static func connect(_ port: Int) -> Int32? {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { return nil }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else {
            close(fd)
            return nil
        }
        return fd
    }

    static func send(_ fd: Int32, _ text: String) {
        let bytes = Array(text.utf8)
        _ = bytes.withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
    }

    /// What arrives within `seconds`, and whether the server closed the connection.
    static func read(_ fd: Int32, within seconds: Double, until marker: String? = nil) -> (text: String, closed: Bool) {
        var received: [UInt8] = []
        let deadline = Date().addingTimeInterval(seconds)
        var buffer = [UInt8](repeating: 0, count: 4096)
        while Date() < deadline {
            var poller = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            let left = Int32(max(1, deadline.timeIntervalSinceNow * 1000))
            guard poll(&poller, 1, left) > 0 else { break }
            let n = recv(fd, &buffer, buffer.count, 0)
            if n <= 0 { return (String(decoding: received, as: UTF8.self), true) }
            received += buffer[0..<n]
            if let marker, String(decoding: received, as: UTF8.self).contains(marker) { break }
        }
        return (String(decoding: received, as: UTF8.self), false)
    }

    /// A new connection's request is answered 200.
    static func assertServes(_ server: ServedProcess, file: StaticString = #filePath, line: UInt = #line) throws {
        let fd = try XCTUnwrap(connect(server.port), file: file, line: line)
        defer { close(fd) }
        send(fd, dateRequest)
        let answer = read(fd, within: 10, until: "}").text
        XCTAssertTrue(answer.hasPrefix("HTTP/1.1 200"), answer, file: file, line: line)
    }

    static let dateRequest = "GET /1.1/date HTTP/1.1\r\nHost: 127.0.0.1\r\nX-LC-Id: \(FaultSupport.keys.appId)\r\nX-LC-Key: \(FaultSupport.keys.appKey)\r\n\r\n"

    /// Under `ulimit -n 256`, 400 clients at once: the server holds what its
    /// cap allows (the limit less the descriptors it keeps, 192), answers
    /// the rest 503 with a JSON body and closes them, and goes on serving.
    /// Before the cap, running out of descriptors killed the process.
    func testMoreConnectionsThanDescriptorsAreRefusedNotFatal() throws {
        let dir = try directory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let server = try ServedProcess(["--sqlite", dir + "/app.db"], shellPrefix: "ulimit -n 256", directory: dir)
        var sockets: [Int32] = []
        defer { for fd in sockets { close(fd) } }
        for _ in 0..<400 {
            guard let fd = Self.connect(server.port) else { continue }
            Self.send(fd, Self.dateRequest)
            sockets.append(fd)
        }
        var answered = 0, refused = 0, other: [String] = []
        for fd in sockets {
            let (text, _) = Self.read(fd, within: 10, until: "}")
            if text.hasPrefix("HTTP/1.1 200") { answered += 1 }
            else if text.hasPrefix("HTTP/1.1 503") && text.contains(#""code":503"#) { refused += 1 }
            else { other.append(String(text.prefix(80))) }
        }
        XCTAssertTrue(server.isRunning, "the server died: \(server.stderr.suffix(2000))")
        XCTAssertLessThanOrEqual(answered, 192, "held more than the cap")
        XCTAssertGreaterThan(answered, 100)
        XCTAssertGreaterThan(refused, 0)
        XCTAssertEqual(answered + refused + other.count, sockets.count)
        // Connections the kernel queued beyond the cap may time out unread; none may get anything else.
        XCTAssertTrue(other.allSatisfy(\.isEmpty), "\(other.filter { !$0.isEmpty }.prefix(3))")
        for fd in sockets { close(fd) }
        sockets = []
        // Every place is given back: a new client is served.
        usleep(300_000)
        try Self.assertServes(server)
        XCTAssertEqual(server.stop(within: 10), 0)
    }

    /// `--idle-timeout 1`: a request head that never ends (slowloris), one
    /// sent a byte every 0.2 s, and a kept-alive connection left idle are
    /// closed after about a second, and their places under
    /// `--max-connections` are free again.
    func testIdleAndHalfSentConnectionsAreCutOff() throws {
        let dir = try directory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let server = try ServedProcess(["--sqlite", dir + "/app.db", "--idle-timeout", "1", "--max-connections", "3"], directory: dir)
        let slow = try XCTUnwrap(Self.connect(server.port)), idle = try XCTUnwrap(Self.connect(server.port))
        let trickle = try XCTUnwrap(Self.connect(server.port))
        // The trickling thread is done before its socket closes (its number could be another's then).
        let trickled = DispatchSemaphore(value: 0)
        defer { trickled.wait(); close(slow); close(idle); close(trickle) }
        Self.send(slow, "GET /1.1/date HTTP/1.1\r\nHost: 127.0.0.1\r\n")
        Thread.detachNewThread {
            for byte in Self.dateRequest.prefix(10) {
                Self.send(trickle, String(byte))
                usleep(200_000)
            }
            trickled.signal()
        }
        Self.send(idle, Self.dateRequest)
        XCTAssertTrue(Self.read(idle, within: 5, until: "}").text.hasPrefix("HTTP/1.1 200"))
        // Every place taken: a fourth is refused at once.
        let third = try XCTUnwrap(Self.connect(server.port))
        let refusal = Self.read(third, within: 5)
        close(third)
        XCTAssertTrue(refusal.text.hasPrefix("HTTP/1.1 503"), refusal.text)
        XCTAssertTrue(refusal.closed)
        let start = ContinuousClock.now
        let (slowText, slowClosed) = Self.read(slow, within: 5)
        XCTAssertTrue(slowClosed, "a half-sent head was kept open: \(slowText)")
        XCTAssertTrue(Self.read(idle, within: 5).closed, "an idle keep-alive was kept open")
        XCTAssertTrue(Self.read(trickle, within: 5).closed, "a head sent a byte at a time was kept open")
        XCTAssertLessThan(FaultSupport.elapsed(since: start), 4)
        usleep(200_000)
        try Self.assertServes(server)
        XCTAssertEqual(server.stop(within: 10), 0)
    }
}
