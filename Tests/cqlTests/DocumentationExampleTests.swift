import CorpusSupport
import Foundation
import XCTest

/// Every `$ cql ...` example of README.md and of the DocC articles, run as
/// shown (through `sh`, so `printf ... | cql ...` works) with the output
/// shown compared: the documentation says only what the command does.
///
/// An example is a line `$ command` inside a code block; its output is the
/// lines after it up to the next `$ ` line or the end of the block (stdout,
/// then stderr). `...` in the shown output stands for any text (lines left
/// out, or the rest of a long line). Each example runs in a fresh directory
/// holding what the documentation assumes: `Corpus/` (the repository's),
/// `mydata/` (a copy of Corpus/data), `S.ndjson` (EvaluationSemantics'
/// running example), `export/` (a LeanCloud export: CorpusSupport's
/// `LeanCloudExport`) and, for every example but `load`, `scores.db` (loaded
/// from Corpus/data with an index on score) and `app.db` (loaded from
/// `export/` with an index on url).
final class DocumentationExampleTests: XCTestCase {
    struct Example {
        var file: String
        var line: Int
        var command: String
        var output: String
    }

    /// README.md and every article of every library target's catalog
    /// (`Sources/<Target>/<Target>.docc`).
    static let documents = ["README.md"] + ["CQLKit", "CQLEval", "CQLSQL", "CQLServer"].flatMap { target in
        let catalog = "Sources/\(target)/\(target).docc"
        return ((try? FileManager.default.contentsOfDirectory(
            atPath: Corpus.repositoryRoot.appendingPathComponent(catalog).path)) ?? [])
            .filter { $0.hasSuffix(".md") }.sorted().map { "\(catalog)/\($0)" }
    }

    /// The examples of one markdown text.
    static func examples(in text: String, file: String) -> [Example] {
        var out: [Example] = []
        var inBlock = false
        var current: (line: Int, indent: Int, command: String, output: [String])?
        func finish() {
            guard let c = current else { return }
            var lines = c.output
            while lines.last?.trimmingCharacters(in: .whitespaces).isEmpty == true { lines.removeLast() }
            out.append(Example(file: file, line: c.line, command: c.command, output: lines.map { $0 + "\n" }.joined()))
            current = nil
        }
        for (i, raw) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let line = String(raw)
            let trimmed = line.drop { $0 == " " }
            let indent = line.count - trimmed.count
            if trimmed.hasPrefix("```") {
                finish()
                inBlock.toggle()
                continue
            }
            guard inBlock else { continue }
            if trimmed.hasPrefix("$ ") {
                finish()
                let command = String(trimmed.dropFirst(2))
                if command.hasPrefix("cql ") || command.contains("| cql ") { current = (i + 1, indent, command, []) }
                continue
            }
            let commandIndent = current?.indent ?? 0
            current?.output.append(String(line.dropFirst(min(indent, commandIndent))))
        }
        finish()
        return out
    }

    /// Whether `actual` is what `shown` shows: equal, or with each `...` of
    /// `shown` standing for any text.
    static func matches(_ actual: String, _ shown: String) -> Bool {
        let parts = shown.components(separatedBy: "...")
        guard parts.count > 1 else { return actual == shown }
        guard actual.hasPrefix(parts[0]), actual.hasSuffix(parts[parts.count - 1]) else { return false }
        var rest = actual.dropFirst(parts[0].count).dropLast(parts[parts.count - 1].count)
        for part in parts.dropFirst().dropLast() where !part.isEmpty {
            guard let r = rest.range(of: part) else { return false }
            rest = rest[r.upperBound...]
        }
        return true
    }

    func testEveryCommandExampleOfTheDocumentationPrintsWhatItShows() throws {
        var all: [Example] = []
        for document in Self.documents {
            let text = try String(contentsOf: Corpus.repositoryRoot.appendingPathComponent(document), encoding: .utf8)
            all += Self.examples(in: text, file: document)
        }
        // Not a test that cannot fail: the examples issue 20 found untested are among them.
        let commands = all.map(\.command)
        XCTAssertTrue(commands.contains { $0.contains("--dialect mongo") && $0.contains("near geopoint") }, "the Mongo near example")
        XCTAssertTrue(commands.contains { $0.contains("weight > 2.4") }, "the Usergrid weight > 2.4 example")
        XCTAssertGreaterThan(all.filter { $0.file == "README.md" }.count, 20)
        XCTAssertGreaterThan(all.count, 50)
        // Every catalog is read, not only CQLKit's.
        for target in ["CQLKit", "CQLEval", "CQLSQL", "CQLServer"] {
            XCTAssertTrue(Self.documents.contains { $0.hasPrefix("Sources/\(target)/\(target).docc/") }, "\(target)'s catalog is not read")
        }
        for example in all {
            let actual = try run(example.command)
            XCTAssertTrue(Self.matches(actual, example.output),
                          "\(example.file):\(example.line): $ \(example.command)\n--- shown ---\n\(example.output)--- printed ---\n\(actual)")
        }
    }

    /// The matcher itself: `...` is any text, nothing else is.
    func testTheComparisonCanFail() {
        XCTAssertTrue(Self.matches("a\nb\nc\n", "a\n...\nc\n"))
        XCTAssertTrue(Self.matches("{\"x\":1,\"y\":2}\n", "{\"x\":1,...}\n"))
        XCTAssertFalse(Self.matches("a\nb\n", "a\nc\n"))
        XCTAssertFalse(Self.matches("a\nb\nc\n", "a\n...\nd\n"))
        let found = Self.examples(in: "```\n$ cql fmt x\none\n\n two\n$ ls\nthree\n```\n`$ cql no`\n", file: "t")
        XCTAssertEqual(found.map(\.command), ["cql fmt x"])
        XCTAssertEqual(found.first?.output, "one\n\n two\n")
    }

    /// Runs `command` with `sh` in a fresh directory; stdout then stderr.
    private func run(_ command: String) throws -> String {
        let fm = FileManager.default
        let dir = fm.temporaryDirectory.appendingPathComponent("cql-doc-\(UUID().uuidString)")
        try fm.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? fm.removeItem(at: dir) }
        let corpus = Corpus.repositoryRoot.appendingPathComponent("Corpus")
        try fm.createSymbolicLink(at: dir.appendingPathComponent("Corpus"), withDestinationURL: corpus)
        try fm.copyItem(at: corpus.appendingPathComponent("data"), to: dir.appendingPathComponent("mydata"))
        try Data(Self.runningExample.utf8).write(to: dir.appendingPathComponent("S.ndjson"))
        if command.contains("scores.db") && !command.hasPrefix("cql load") {
            _ = try shell("cql load --sqlite scores.db --index score Corpus/data", in: dir)
        }
        // `export/`: a LeanCloud export (CorpusSupport's); `app.db`: loaded from it.
        let export = dir.appendingPathComponent("export")
        try fm.createDirectory(at: export, withIntermediateDirectories: true)
        for (name, lines) in LeanCloudExport.parts {
            try Data((lines.joined(separator: "\n") + "\n").utf8).write(to: export.appendingPathComponent(name))
        }
        if command.contains("app.db") && !command.hasPrefix("cql load") {
            _ = try shell("cql load --sqlite app.db --index url export", in: dir)
        }
        return try shell(command, in: dir)
    }

    private func shell(_ command: String, in dir: URL) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/sh")
        process.arguments = ["-c", command]
        process.currentDirectoryURL = dir
        var environment = ProcessInfo.processInfo.environment
        environment["PATH"] = CLITests.binary.deletingLastPathComponent().path + ":" + (environment["PATH"] ?? "/usr/bin:/bin")
        process.environment = environment
        let errURL = dir.appendingPathComponent(".stderr")
        _ = FileManager.default.createFile(atPath: errURL.path, contents: nil)
        let errHandle = try FileHandle(forWritingTo: errURL)
        let out = Pipe()
        process.standardOutput = out
        process.standardError = errHandle
        try process.run()
        let outData = out.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        try errHandle.close()
        return String(decoding: outData, as: UTF8.self) + String(decoding: try Data(contentsOf: errURL), as: UTF8.self)
    }

    /// EvaluationSemantics.md's "A running example", saved as S.ndjson there.
    static let runningExample = """
        {"objectId":"s1","score":10}
        {"objectId":"s2","score":"10"}
        {"objectId":"s3","score":null}
        {"objectId":"s4"}
        {"objectId":"s5","score":[3,20]}
        {"objectId":"s6","score":10.0}

        """
}
