import Foundation
import XCTest
@testable import CQLServer

/// The access log's batches (``ServerLogBuffer``), written to a pipe.
final class ServerLogBufferTests: XCTestCase {
    /// What the pipe holds within `seconds` (everything, once `count` bytes came).
    func read(_ fd: Int32, atLeast count: Int, within seconds: Double) -> String {
        var bytes: [UInt8] = []
        let until = Date().addingTimeInterval(seconds)
        while bytes.count < count && Date() < until {
            var p = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            guard poll(&p, 1, 20) > 0 else { continue }
            var chunk = [UInt8](repeating: 0, count: 65536)
            let n = Foundation.read(fd, &chunk, chunk.count)
            if n > 0 { bytes += chunk[0..<n] }
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    func pipe() -> (read: Int32, write: Int32) {
        var fds: [Int32] = [0, 0]
        XCTAssertEqual(Foundation.pipe(&fds), 0)
        return (fds[0], fds[1])
    }

    func testLinesComeWholeInOrderWithinTheDelay() {
        let (r, w) = pipe()
        defer { close(r); close(w) }
        let buffer = ServerLogBuffer(fileDescriptor: w)
        let lines = (0..<200).map { "line \($0) of the access log\n" }
        DispatchQueue.concurrentPerform(iterations: 4) { part in
            // Four writers at once: each line whole, each writer's in its order.
            for i in stride(from: part, to: 200, by: 4) { buffer.append(lines[i], urgent: false) }
        }
        let total = lines.reduce(0) { $0 + $1.utf8.count }
        // No flush(): the flusher writes them (50 ms after the first).
        let text = read(r, atLeast: total, within: 5)
        XCTAssertEqual(text.utf8.count, total)
        XCTAssertEqual(Set(text.split(separator: "\n").map { $0 + "\n" }), Set(lines))
        for part in 0..<4 {
            let mine = text.split(separator: "\n").compactMap { Int($0.split(separator: " ")[1]) }.filter { $0 % 4 == part }
            XCTAssertEqual(mine, mine.sorted())
        }
    }

    func testAWarningIsWrittenAtOnceWithTheLinesBeforeIt() {
        let (r, w) = pipe()
        defer { close(r); close(w) }
        // A batch would wait 30 s: the warning does not.
        let buffer = ServerLogBuffer(fileDescriptor: w, delay: 30)
        buffer.append("first\n", urgent: false)
        buffer.append("an error\n", urgent: true)
        XCTAssertEqual(read(r, atLeast: 15, within: 10), "first\nan error\n")
    }

    func testPastTheLimitLinesAreDroppedAndCounted() {
        let (r, w) = pipe()
        defer { close(r); close(w) }
        let buffer = ServerLogBuffer(fileDescriptor: w, delay: 30, limit: 20)
        // Within the first batch's delay: two lines fit in 20 bytes, three do not.
        for i in 0..<5 { buffer.append("line \(i)\n", urgent: false) }
        buffer.flush()
        XCTAssertEqual(read(r, atLeast: 200, within: 0.5),
                       "line 0\nline 1\ncql serve: 3 log lines dropped: stderr was not read fast enough\n")
    }
}
