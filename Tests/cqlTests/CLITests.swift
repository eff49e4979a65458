import CorpusSupport
import Foundation
import XCTest

/// Runs the built `cql` binary as a user would and checks stdout, stderr and
/// the exit status (the contract README.md states in "A tour of the `cql`
/// command").
final class CLITests: XCTestCase {
    struct Run {
        var status: Int32
        var stdout: String
        var stderr: String
    }

    static var binary: URL {
        var dir = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        // `swift test` runs `<products>/<name>.xctest`; the tool sits beside it.
        if dir.lastPathComponent.hasSuffix(".xctest") { dir.deleteLastPathComponent() }
        return dir.appendingPathComponent("cql")
    }

    static var repositoryRoot: URL { Corpus.repositoryRoot }

    func cql(_ arguments: [String], stdin: String? = nil) throws -> Run {
        try cql(arguments, stdinBytes: stdin.map { Data($0.utf8) })
    }

    func cql(_ arguments: [String], stdinBytes: Data?) throws -> Run {
        try Self.cql(arguments, stdinBytes: stdinBytes)
    }

    /// The run of `cql arguments` (for the test classes that are not CLITests).
    static func cql(_ arguments: [String], stdinBytes: Data? = nil) throws -> Run {
        let process = Process()
        process.executableURL = Self.binary
        process.arguments = arguments
        process.currentDirectoryURL = Self.repositoryRoot
        // stderr goes to a file and stdout to a pipe read to the end before
        // waiting, so neither can fill up and block the child.
        let errURL = FileManager.default.temporaryDirectory.appendingPathComponent("cql-stderr-\(UUID().uuidString)")
        _ = FileManager.default.createFile(atPath: errURL.path, contents: nil)
        defer { try? FileManager.default.removeItem(at: errURL) }
        let errHandle = try FileHandle(forWritingTo: errURL)
        let out = Pipe(), inp = Pipe()
        process.standardOutput = out
        process.standardError = errHandle
        process.standardInput = inp
        try process.run()
        // Standard input is written from another thread while stdout is
        // read here: `cql` streams (`translate --lines` writes a block's
        // output before it reads the next), so writing all of a large input
        // first would fill the output pipe and stop both sides.
        let written = DispatchSemaphore(value: 0)
        Thread { [inp] in
            if let stdinBytes { inp.fileHandleForWriting.write(stdinBytes) }
            try? inp.fileHandleForWriting.close()
            written.signal()
        }.start()
        let outData = out.fileHandleForReading.readDataToEndOfFile()
        written.wait()
        process.waitUntilExit()
        try errHandle.close()
        let errData = try Data(contentsOf: errURL)
        return Run(status: process.terminationStatus, stdout: String(decoding: outData, as: UTF8.self),
                   stderr: String(decoding: errData, as: UTF8.self))
    }

    func testTranslateMustShow() throws {
        let r = try cql(["translate", "select * from GameScore where name is exists and score > 80 and score <= 100 order by -score limit 10"])
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertEqual(r.stdout, #"{"className":"GameScore","limit":10,"order":"-score","where":{"name":{"$exists":true},"score":{"$gt":80,"$lte":100}}}"# + "\n")
    }

    func testBadQueryRendersPositionAndCaretWithStatus1() throws {
        let r = try cql(["translate", "select * form GameScore"])
        XCTAssertEqual(r.status, 1)
        XCTAssertEqual(r.stdout, "")
        let lines = r.stderr.split(separator: "\n", omittingEmptySubsequences: false)
        XCTAssertTrue(lines[0].hasPrefix("error: <input>:1:10: "), r.stderr)
        XCTAssertEqual(lines[1], "select * form GameScore")
        XCTAssertEqual(lines[2], "         ^~~~")
    }

    func testBadUsageIsStatus2() throws {
        let r = try cql(["translate", "--to", "nonsense", "select * from T"])
        XCTAssertEqual(r.status, 2)
        XCTAssertTrue(r.stderr.contains("nonsense"), r.stderr)
        XCTAssertEqual(try cql(["frobnicate"]).status, 2)
        XCTAssertEqual(try cql(["translate"]).status, 2)
    }

    func testQueryFromStandardInputAndPretty() throws {
        let r = try cql(["translate", "--pretty", "-"], stdin: "select * from T where a = 1\n")
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertEqual(r.stdout, "{\n  \"className\": \"T\",\n  \"where\": {\n    \"a\": 1\n  }\n}\n")
    }

    func testParamsBindPlaceholders() throws {
        let r = try cql(["translate", "--params", #"["dennis", 80, 0, 10]"#, "select * from GameScore where name=? and score>? limit ?,?"])
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertEqual(r.stdout, #"{"className":"GameScore","limit":10,"skip":0,"where":{"name":"dennis","score":{"$gt":80}}}"# + "\n")
        let bad = try cql(["translate", "--params", "[1]", "select * from T where a = ? and b = ?"])
        XCTAssertEqual(bad.status, 1)
        XCTAssertTrue(bad.stderr.hasPrefix("error: <input>:1:"), bad.stderr)
        let badJSON = try cql(["translate", "--params", "[1,", "select * from T where a = ?"])
        XCTAssertEqual(badJSON.status, 1)
        XCTAssertTrue(badJSON.stderr.hasPrefix("error: <params>:1:"), badJSON.stderr)
    }

    func testLinesModeKeepsGoingAndReportsLineNumbers() throws {
        let input = "select * from A where x = 1\nselect * frm B\n\nselect count(*) from C\n"
        let r = try cql(["translate", "--lines", "-"], stdin: input)
        XCTAssertEqual(r.status, 1)
        XCTAssertEqual(r.stdout, #"{"className":"A","where":{"x":1}}"# + "\n\n\n" + #"{"className":"C","count":1,"limit":0}"# + "\n")
        XCTAssertTrue(r.stderr.hasPrefix("error: <stdin>:2:10: "), r.stderr)
    }

    /// Lines end at each `\n`, a `\r` before it dropped ("\r\n" is one
    /// Character, so a Character split read a CRLF file as one line).
    func testLinesModeReadsCRLFLines() throws {
        let r = try cql(["translate", "--lines", "-"], stdin: "select * from A where x = 1\r\n \r\nselect * from B\r\n")
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertEqual(r.stdout, #"{"className":"A","where":{"x":1}}"# + "\n\n" + #"{"className":"B"}"# + "\n")
    }

    /// `--lines` reads its input in blocks rather than whole, so it cannot
    /// reject a file for bad UTF-8 up front: a line that is not UTF-8 is that
    /// line's error, at its first bad byte, and the other lines go on. A
    /// byte order mark at the start is left out; a missing file is one error.
    func testLinesModeBadUTF8IsTheLinesErrorAndAByteOrderMarkIsSkipped() throws {
        var input = Data([0xEF, 0xBB, 0xBF])
        input.append(contentsOf: Array("select * from A\nselect * from B where y = '".utf8) + [0xFF, 0xFE] + Array("'\nselect * from C\n".utf8))
        let r = try cql(["translate", "--lines", "-"], stdinBytes: input)
        XCTAssertEqual(r.status, 1)
        XCTAssertEqual(r.stdout, #"{"className":"A"}"# + "\n\n" + #"{"className":"C"}"# + "\n")
        XCTAssertEqual(r.stderr, """
            error: <stdin>:2:28: the line is not valid UTF-8
            select * from B where y = '\u{FFFD}\u{FFFD}'
                                       ^
            error: 1 of 3 lines failed

            """)
        let missing = try cql(["translate", "--lines", "/nonexistent/queries.txt"])
        XCTAssertEqual(missing.status, 1)
        XCTAssertEqual(missing.stderr, "error: /nonexistent/queries.txt: cannot open the file (No such file or directory)\n")
        XCTAssertEqual(missing.stdout, "")
    }

    /// A `--lines` input of several blocks, each shared out among the cores,
    /// gives what its lines give one at a time: the same output lines in
    /// order, and the same warnings and errors, in line order, with each
    /// line's number.
    func testLinesModeOnEveryCoreGivesTheOneLineResultsInOrder() throws {
        let distinct = [
            "select * from GameScore where score > 243 and name = 'alice' limit 70",
            "select name, score from GameScore where level in (2, 5, 7) and cheatMode = false",
            "select * from T where a >",
            "  ",
            "select * from Todo where title like '%dé%' and priority != 3 order by createdAt desc limit 20\r",
            "delete from Post where objectId = 'p1'",
            "select * from T where x regexp '('",
            "select count(*) from C",
        ]
        var rng = SplitMix64(seed: 7)
        let picks = (0..<40_000).map { _ in Int(rng.next() % UInt64(distinct.count)) }
        let input = picks.map { distinct[$0] }.joined(separator: "\n") + "\n"
        XCTAssertGreaterThan(input.utf8.count, 1 << 20, "at least two blocks of 1 MiB")
        for options in [["--to", "where"], ["--to", "sql"]] {
            let single = try distinct.map { try cql(["translate"] + options + ["--lines", "-"], stdin: $0 + "\n") }
            var expectedOut = "", expectedErr = "", failures = 0
            for (index, pick) in picks.enumerated() {
                let one = single[pick]
                expectedOut += one.stdout
                // The one-line run's messages, renumbered, without its final count.
                let messages = one.stderr.components(separatedBy: "error: 1 of 1 lines failed\n")[0]
                expectedErr += messages.replacingOccurrences(of: "<stdin>:1:", with: "<stdin>:\(index + 1):")
                if one.status != 0 { failures += 1 }
            }
            if failures > 0 { expectedErr += "error: \(failures) of \(picks.count) lines failed\n" }
            let all = try cql(["translate"] + options + ["--lines", "-"], stdin: input)
            XCTAssertEqual(all.status, failures > 0 ? 1 : 0)
            XCTAssertEqual(all.stdout.split(separator: "\n", omittingEmptySubsequences: false).count, picks.count + 1)
            XCTAssertTrue(all.stdout == expectedOut, "\(options): output differs from the one-line runs")
            XCTAssertTrue(all.stderr == expectedErr, "\(options): messages differ from the one-line runs")
            // The same lines from a file: the same output, the messages naming the file.
            let file = FileManager.default.temporaryDirectory.appendingPathComponent("cql-lines-\(UUID().uuidString).txt")
            try Data(input.utf8).write(to: file)
            defer { try? FileManager.default.removeItem(at: file) }
            let fromFile = try cql(["translate"] + options + ["--lines", file.path])
            XCTAssertEqual(fromFile.status, all.status)
            XCTAssertTrue(fromFile.stdout == expectedOut, "\(options): output from the file differs")
            XCTAssertTrue(fromFile.stderr == expectedErr.replacingOccurrences(of: "<stdin>:", with: file.path + ":"),
                          "\(options): messages from the file differ")
        }
    }

    /// `cql translate` is read with ``Translate`` as the root command (the
    /// fast path for start-up); its help must still name the whole command,
    /// as `cql help translate` does.
    func testTranslateHelpNamesTheWholeCommand() throws {
        let direct = try cql(["translate", "--help"])
        let viaHelp = try cql(["help", "translate"])
        XCTAssertEqual(direct.status, 0, direct.stderr)
        XCTAssertTrue(direct.stdout.contains("USAGE: cql translate [<options>] [<query>]"), direct.stdout)
        XCTAssertEqual(direct.stdout, viaHelp.stdout)
    }

    func testDialectsAndUnsupportedConstruct() throws {
        let q = "select * from T where not (name regexp 'a.c')"
        let lc = try cql(["translate", "--dialect", "leancloud", q])
        XCTAssertEqual(lc.status, 1)
        XCTAssertTrue(lc.stderr.contains("leancloud"), lc.stderr)
        let parse = try cql(["translate", "--dialect", "parse", q])
        XCTAssertEqual(parse.stdout, #"{"className":"T","where":{"$nor":[{"name":{"$regex":"a.c"}}]}}"# + "\n", parse.stderr)
        let mongo = try cql(["translate", "--dialect", "mongo", q])
        XCTAssertEqual(mongo.stdout, #"{"className":"T","where":{"name":{"$not":{"$regex":"a.c"}}}}"# + "\n", mongo.stderr)
    }

    func testFmtAndToCQL() throws {
        let r = try cql(["fmt", "SELECT * FROM GameScore WHERE (score>80 AND score<=100) OR score=0 ORDER BY score,+name DESC LIMIT 100,10"])
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertEqual(r.stdout, "select * from GameScore where score > 80 and score <= 100 or score = 0 limit 100, 10 order by -score, name\n")
    }

    func testExplainShowsTokensAstAndOutputs() throws {
        let r = try cql(["explain", "select * from T where a > 1"])
        XCTAssertEqual(r.status, 0, r.stderr)
        for part in ["language: cql", "tokens:", "ast:", "where (leancloud): {\"className\":\"T\"", "cql: select * from T where a > 1"] {
            XCTAssertTrue(r.stdout.contains(part), "missing \(part) in\n\(r.stdout)")
        }
    }

    func testNoInputCrashesTheProcess() throws {
        var rng = SplitMix64(seed: 0xC11)  // seeded, so a failure reproduces
        for _ in 0..<20 {
            let bytes = (0..<Int.random(in: 1...200, using: &rng)).map { _ in UInt8.random(in: 0x20...0x7E, using: &rng) }
            let r = try cql(["translate", "-"], stdin: "select " + String(decoding: bytes, as: UTF8.self))
            XCTAssertTrue(r.status == 0 || r.status == 1, "status \(r.status): \(r.stderr)")
        }
        let deep = "select * from T where " + String(repeating: "(", count: 100_000) + "a = 1" + String(repeating: ")", count: 100_000)
        let r = try cql(["translate", "-"], stdin: deep)
        XCTAssertEqual(r.status, 1)
        XCTAssertTrue(r.stderr.contains("nest"), r.stderr)
    }
}

extension CLITests {
    func testEvalOverTheSampleData() throws {
        let r = try cql(["eval", "--data", "Corpus/data", "select * from GameScore where score > 1000 order by -score limit 5"])
        XCTAssertEqual(r.status, 0, r.stderr)
        let ids = r.stdout.split(separator: "\n").map { line -> String in
            let start = line.range(of: #""objectId":""#)!.upperBound
            return String(line[start...].prefix { $0 != "\"" })
        }
        XCTAssertEqual(ids, ["gs22", "gs09", "gs05", "gs16", "gs17"])
        let c = try cql(["eval", "--data", "Corpus/data", "--count", "select * from GameScore where score > 1000"])
        XCTAssertEqual(c.stdout, #"{"count":8}"# + "\n")
    }

    func testEvalBadDataNamesFileAndLineAndPrintsNothing() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("cql-eval-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let file = dir.appendingPathComponent("T.ndjson")
        try Data("{\"objectId\":\"a\",\"x\":1}\n{\"objectId\":\"b\",\"x\":1}\n{\"objectId\":\"c\",\n".utf8).write(to: file)
        let r = try cql(["eval", "--data", file.path, "select * from T where x = 1"])
        XCTAssertEqual(r.status, 1)
        XCTAssertEqual(r.stdout, "")
        XCTAssertTrue(r.stderr.contains("T.ndjson:3"), r.stderr)
    }

    /// A 200,000-deep array on line 2: a data error naming line 2 (the JSON
    /// reader's nesting limit), no crash, and nothing printed, not even the
    /// match on line 1.
    func testEvalDeeplyNestedDataLineIsAnErrorNamingItsLine() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("cql-eval-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let file = dir.appendingPathComponent("T.ndjson")
        let deep = String(repeating: "[", count: 200_000) + String(repeating: "]", count: 200_000)
        try Data("{\"objectId\":\"a\",\"x\":1}\n{\"objectId\":\"b\",\"x\":\(deep)}\n{\"x\":1}\n".utf8).write(to: file)
        for extra in [[], ["--count"]] {
            let r = try cql(["eval", "--data", file.path] + extra + ["select * from T where x = 1"])
            XCTAssertEqual(r.status, 1)
            XCTAssertEqual(r.stdout, "")
            XCTAssertTrue(r.stderr.contains("T.ndjson:2:532: JSON nesting deeper than 512 levels"), r.stderr)
        }
    }

    func testEvalOrderByParallelArraysIsAnErrorNamingBothKeys() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("cql-eval-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let file = dir.appendingPathComponent("T.ndjson")
        try Data("{\"objectId\":\"a\",\"x\":[1],\"y\":2}\n{\"objectId\":\"b\",\"x\":[1],\"y\":[2]}\n".utf8).write(to: file)
        let r = try cql(["eval", "--data", file.path, "select * from T order by x, -y"])
        XCTAssertEqual(r.status, 1)
        XCTAssertEqual(r.stdout, "")
        XCTAssertTrue(r.stderr.hasPrefix("error: cannot order by x and y: they reach two different arrays of the object with objectId \"b\""), r.stderr)
        // One array per object is fine.
        let ok = try cql(["eval", "--data", file.path, "select * from T where objectId = 'a' order by x, -y"])
        XCTAssertEqual(ok.status, 0, ok.stderr)
    }

    func testEvalBadPatternIsAQueryError() throws {
        let r = try cql(["eval", "--data", "Corpus/data", "select * from GameScore where name regexp '('"])
        XCTAssertEqual(r.status, 1)
        XCTAssertTrue(r.stderr.hasPrefix("error: <input>:1:"), r.stderr)
    }
}

extension CLITests {
    func testUsergridLimitAndCursorOptions() throws {
        // The cursor is base64url("offset:10"): the next page starts at 10.
        let r = try cql(["translate", "--from", "usergrid", "--class", "Dog", "--limit", "5", "--cursor", "b2Zmc2V0OjEw", "name = 'x*'"])
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertEqual(r.stdout, #"{"className":"Dog","limit":5,"order":"-created","skip":10,"where":{"name":{"$options":"is","$regex":"^\\Qx\\E.*\\z"}}}"# + "\n")
        let bad = try cql(["translate", "--from", "usergrid", "--cursor", "nonsense", "a = 1"])
        XCTAssertEqual(bad.status, 1, bad.stderr)
        let misuse = try cql(["translate", "--limit", "3", "select * from T"])
        XCTAssertEqual(misuse.status, 2, misuse.stderr)
    }

    func testUsergridEvalAndFmt() throws {
        let r = try cql(["eval", "--data", "Corpus/data", "--from", "usergrid", "--class", "GameScore", "--limit", "2", "score > 1000 order by score desc"])
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertEqual(r.stdout.split(separator: "\n").count, 2)
        let f = try cql(["fmt", "--from", "usergrid", "SELECT * WHERE a = 1 AND (b = 'x' OR c contains 'y*') ORDER  BY a ASC"])
        XCTAssertEqual(f.status, 0, f.stderr)
        XCTAssertEqual(f.stdout, "select * where a = 1 and (b = 'x' or c contains 'y*') order by a\n")
    }
}
