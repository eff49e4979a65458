#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import CorpusSupport
import Foundation
import XCTest

/// A write to stdout that fails is never silent (issue 20): every subcommand,
/// its output sent to `/dev/full` (a full disk), exits 1 with
/// `error: cannot write output: ...`; sent to a pipe nobody reads (`| head -1`
/// after head is gone), it ends quietly with status 141 and is not killed by
/// SIGPIPE.
///
/// (An extension of ExecTests for its fresh copy of Corpus/data, which the
/// `exec` and `load` invocations change.)
extension ExecTests {
    /// Where the child's stdout goes.
    enum Sink {
        /// `/dev/full`: every write fails with ENOSPC.
        case full
        /// A pipe whose read end is closed before the child starts: EPIPE.
        case closedPipe
        /// Standard output closed (`>&-`): EBADF.
        case closed
    }

    /// Runs `cql` with stdout sent to `sink` and `stdin` as standard input.
    func cql(_ arguments: [String], to sink: Sink, stdin: String = "") throws -> Run {
        // A child that ends before reading its input must not end this
        // process with SIGPIPE when the input is written.
        signal(SIGPIPE, SIG_IGN)
        let process = Process()
        process.executableURL = CLITests.binary
        process.currentDirectoryURL = Corpus.repositoryRoot
        let err = Pipe(), inp = Pipe()
        process.standardError = err
        process.standardInput = inp
        switch sink {
        case .full:
            process.standardOutput = try XCTUnwrap(FileHandle(forWritingAtPath: "/dev/full"))
            process.arguments = arguments
        case .closedPipe:
            let out = Pipe()
            try out.fileHandleForReading.close()
            process.standardOutput = out
            process.arguments = arguments
        case .closed:
            // Foundation cannot start a child without a stdout; a shell can.
            process.executableURL = URL(fileURLWithPath: "/bin/sh")
            process.arguments = ["-c", "exec \"$0\" \"$@\" >&-", CLITests.binary.path] + arguments
        }
        try process.run()
        inp.fileHandleForWriting.write(Data(stdin.utf8))
        try inp.fileHandleForWriting.close()
        let errData = err.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return Run(status: process.terminationStatus, signaled: process.terminationReason == .uncaughtSignal,
                   stdout: "", stderr: String(decoding: errData, as: UTF8.self))
    }

    /// Every subcommand that prints, with what it needs (a database file
    /// made by the first `load`, a data directory that `exec` may change).
    func invocations() -> [(arguments: [String], stdin: String)] {
        let db = directory.appendingPathComponent("scores.db").path
        return [
            (["translate", "select * from GameScore where score > 80"], ""),
            (["translate", "--to", "sql", "--dialect", "sqlite", "select * from GameScore"], ""),
            (["translate", "--from", "usergrid", "--class", "dogs", "name = 'fred'"], ""),
            (["translate", "--lines", "-"], "select * from A where x = 1\nselect * from B\n"),
            (["translate", "--lines", "-", "--to", "cql"], "select * from A where x = 1\n"),
            (["eval", "--data", "Corpus/data", "select * from GameScore"], ""),
            (["eval", "--data", "Corpus/data", "--count", "select * from GameScore"], ""),
            (["fmt", "select * from T where a=1"], ""),
            (["explain", "select * from T where a = 1 or a = 2"], ""),
            (["load", "--sqlite", db, directory.path], ""),
            (["index", "--sqlite", db, "name"], ""),
            (["run", "--sqlite", db, "select * from GameScore"], ""),
            (["run", "--sqlite", db, "--explain", "select * from GameScore where score = 1"], ""),
            (["exec", "--data", directory.path, "update GameScore set score = 1 where objectId = 'gs05'"], ""),
            (["exec", "--sqlite", db, "update GameScore set score = 2 where objectId = 'gs05'"], ""),
            (["eval", "--help"], ""),
            (["translate", "--help"], ""),
        ]
    }

    func testOutputToAFullDiskIsAnErrorForEveryCommand() throws {
        try checkEveryCommand(.full, status: 1, stderr: "error: cannot write output: No space left on device\n")
    }

    func testOutputToAClosedPipeEndsQuietlyForEveryCommand() throws {
        try checkEveryCommand(.closedPipe, status: 141, stderr: "")
    }

    /// Every invocation, its stdout sent to `sink`, ends with `status` and
    /// says `stderr`, never killed by a signal.
    private func checkEveryCommand(_ sink: Sink, status: Int32, stderr: String) throws {
        for (arguments, stdin) in invocations() {
            let r = try cql(arguments, to: sink, stdin: stdin)
            XCTAssertFalse(r.signaled, "\(arguments): killed by a signal")
            XCTAssertEqual(r.status, status, "\(arguments): \(r.stderr)")
            XCTAssertEqual(r.stderr, stderr, "\(arguments)")
        }
    }

    func testOutputToAClosedStandardOutputIsAnError() throws {
        let r = try cql(["translate", "select * from T"], to: .closed)
        XCTAssertEqual(r.status, 1, r.stderr)
        XCTAssertEqual(r.stderr, "error: cannot write output: Bad file descriptor\n")
    }

    /// `| head -1` as a shell runs it: output far larger than a pipe holds,
    /// its reader gone after one line. The pipeline's status is head's (0)
    /// and cql says nothing; `pipefail` shows cql's 141.
    func testOutputHeadOfALongOutputEndsQuietly() throws {
        let lines = String(repeating: "select * from A where x = 1\n", count: 20_000)
        let input = directory.appendingPathComponent("queries.txt")
        try Data(lines.utf8).write(to: input)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/bash")
        process.arguments = ["-c", "set -o pipefail; \"$0\" translate --lines \"$1\" | head -1", CLITests.binary.path, input.path]
        let out = Pipe(), err = Pipe()
        process.standardOutput = out
        process.standardError = err
        try process.run()
        let outData = out.fileHandleForReading.readDataToEndOfFile()
        let errData = err.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        XCTAssertEqual(String(decoding: outData, as: UTF8.self), #"{"className":"A","where":{"x":1}}"# + "\n")
        XCTAssertEqual(String(decoding: errData, as: UTF8.self), "")
        XCTAssertEqual(process.terminationStatus, 141)
    }
}
