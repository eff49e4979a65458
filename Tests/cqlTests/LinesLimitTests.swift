import CorpusSupport
import Foundation
import XCTest

/// `translate --lines` keeps memory flat whatever its input: a line longer
/// than a query's limit (1 MiB) is that line's error as soon as the limit is
/// passed, and the rest of it is skipped as it is read, not buffered.
extension CLITests {
    static let queryLimit = 1 << 20

    func testLinesModeALineOverTheLimitIsItsErrorAndTheOthersGoOn() throws {
        let long = "select * from T where a = '" + String(repeating: "x", count: 3 * Self.queryLimit) + "'"
        for tail in ["\n", ""] {
            let input = "select * from A\n" + long + tail + (tail.isEmpty ? "" : "select * from B\n")
            let r = try cql(["translate", "--lines", "-"], stdin: input)
            XCTAssertEqual(r.status, 1)
            let expectedOut = #"{"className":"A"}"# + "\n\n" + (tail.isEmpty ? "" : #"{"className":"B"}"# + "\n")
            XCTAssertEqual(r.stdout, expectedOut)
            XCTAssertEqual(r.stderr, """
                error: <stdin>:2:1048577: the query is more than 1048576 bytes long; the limit is 1048576 bytes (the rest of the line is skipped)
                error: 1 of \(tail.isEmpty ? 2 : 3) lines failed

                """)
        }
    }

    /// A line of exactly the limit, and one of the limit and a `\r`, are
    /// read and translated (the limit is the query's, not the reader's).
    func testLinesModeALineAtTheLimitIsTranslated() throws {
        let prefix = "select * from T where a = '"
        let line = prefix + String(repeating: "x", count: Self.queryLimit - prefix.utf8.count - 1) + "'"
        XCTAssertEqual(line.utf8.count, Self.queryLimit)
        let r = try cql(["translate", "--lines", "-"], stdin: line + "\r\n" + line + "\n")
        XCTAssertEqual(r.status, 0, String(r.stderr.prefix(300)))
        XCTAssertEqual(r.stdout.split(separator: "\n").count, 2)
    }

    /// The error comes while the line is still being written: the writer
    /// waits for it before writing the rest, so a reader that waited for the
    /// line's end (buffering it whole) would never answer.
    func testLinesModeTheOverlongErrorComesBeforeTheLineEnds() throws {
        let process = Process()
        process.executableURL = CLITests.binary
        process.arguments = ["translate", "--lines", "-"]
        let inp = Pipe(), out = Pipe(), err = Pipe()
        process.standardInput = inp
        process.standardOutput = out
        process.standardError = err
        try process.run()
        let chunk = Data(String(repeating: "y", count: 1 << 16).utf8)
        inp.fileHandleForWriting.write(Data("select * from A\nselect * from T where a = '".utf8))
        for _ in 0..<(Self.queryLimit / chunk.count + 1) { inp.fileHandleForWriting.write(chunk) }
        // The message arrives with the line unfinished (read on a thread of
        // its own, so a reader that never answers fails the test, not hangs it).
        final class Box: @unchecked Sendable { var message = Data() }
        let box = Box()
        let arrived = DispatchSemaphore(value: 0)
        let errReader = err.fileHandleForReading
        Thread {
            while !box.message.contains(UInt8(ascii: "\n")) {
                let data = errReader.availableData
                if data.isEmpty { break }
                box.message.append(data)
            }
            arrived.signal()
        }.start()
        guard arrived.wait(timeout: .now() + 30) == .success else {
            process.terminate()
            return XCTFail("no error while the line was unfinished: the line is read whole")
        }
        XCTAssertTrue(String(decoding: box.message, as: UTF8.self).hasPrefix("error: <stdin>:2:1048577: the query is more than"),
                      String(decoding: box.message, as: UTF8.self))
        // Many more megabytes of the same line, then its end and one more line.
        for _ in 0..<(64 * Self.queryLimit / chunk.count) { inp.fileHandleForWriting.write(chunk) }
        inp.fileHandleForWriting.write(Data("'\nselect * from B\n".utf8))
        try inp.fileHandleForWriting.close()
        let output = out.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        XCTAssertEqual(String(decoding: output, as: UTF8.self), #"{"className":"A"}"# + "\n\n" + #"{"className":"B"}"# + "\n")
        XCTAssertEqual(process.terminationStatus, 1)
    }
}
