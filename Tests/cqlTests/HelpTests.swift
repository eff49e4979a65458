import CorpusSupport
import Foundation
import XCTest

/// The help reads well at 80 columns, and a mistyped subcommand is named.
extension CLITests {
    func helpAt80Columns(_ arguments: [String]) throws -> String {
        let process = Process()
        process.executableURL = CLITests.binary
        process.arguments = arguments
        var environment = ProcessInfo.processInfo.environment
        environment["COLUMNS"] = "80"
        process.environment = environment
        let out = Pipe()
        process.standardOutput = out
        try process.run()
        let data = out.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        XCTAssertEqual(process.terminationStatus, 0)
        return String(decoding: data, as: UTF8.self)
    }

    /// The overview (abstract and discussion) wraps as one greedy fill per
    /// paragraph: no line past 80 columns, no line broken before a word that
    /// would have fitted on it (argument-parser re-wrapping a hard line
    /// break leaves such a short line), and no example line wrapped.
    func testHelpOverviewsWrapCleanlyAt80Columns() throws {
        for command in ["translate", "eval", "exec", "load", "run", "fmt", "explain", "dump", "pull"] {
            let overview = try helpAt80Columns([command, "--help"]).components(separatedBy: "\nUSAGE:")[0]
            XCTAssertTrue(overview.hasPrefix("OVERVIEW: "), command)
            XCTAssertEqual(Self.raggedLines(overview), [], "\(command) --help:\n\(overview)")
            for line in overview.split(separator: "\n") {
                XCTAssertLessThanOrEqual(line.count, 80, "\(command) --help: \(line)")
            }
        }
    }

    /// The check can fail: a hard break in a paragraph, and a wrapped example.
    func testHelpRaggedCheckCatchesHardBreaks() {
        let wide = String(repeating: "word ", count: 15) + "end.."
        XCTAssertEqual(Self.raggedLines("short line\ncontinues here\n"), ["short line"])
        XCTAssertEqual(Self.raggedLines("Examples:\n  cql eval --data x\n\"select\"\n"), ["  cql eval --data x"])
        XCTAssertEqual(Self.raggedLines("\(wide)\nnext\n\nnew paragraph\n\nExamples:\n  cql x\n    y\n"), [])
    }

    /// Lines after which the next line is a prose continuation (not
    /// indented) that would have fitted, or that go on from an example
    /// (indented) in a prose line: a wrapped example.
    static func raggedLines(_ overview: String) -> [String] {
        let lines = overview.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        var ragged: [String] = []
        for (a, b) in zip(lines, lines.dropFirst()) where !a.isEmpty && !b.isEmpty && !b.hasPrefix(" ") {
            if a.hasPrefix(" ") {
                ragged.append(a)  // an example went on in a prose line: it was wrapped
                continue
            }
            let word = b.prefix { $0 != " " }
            if a.count + 1 + word.count <= 79 { ragged.append(a) }
        }
        return ragged
    }

    func testMistypedSubcommandIsNamed() throws {
        let r = try cql(["evl", "x"])
        XCTAssertEqual(r.status, 2)
        XCTAssertEqual(r.stdout, "")
        XCTAssertEqual(r.stderr, "error: unknown subcommand 'evl'; did you mean 'eval'?\nSee 'cql --help'.\n")
        for (typo, meant) in [("trnaslate", "translate"), ("trans", "translate"), ("exce", "exec"), ("Fmt", "fmt"), ("laod", "load")] {
            XCTAssertTrue(try cql([typo, "select * from T"]).stderr.contains("did you mean '\(meant)'?"), typo)
        }
        let far = try cql(["zzzz"])
        XCTAssertEqual(far.status, 2)
        XCTAssertEqual(far.stderr, "error: unknown subcommand 'zzzz'; the subcommands are translate, eval, load, index, run, exec, serve, fmt, explain, files, dump, pull\nSee 'cql --help'.\n")
        // What argument-parser reads is left to it.
        XCTAssertEqual(try cql(["help", "eval"]).status, 0)
    }
}
