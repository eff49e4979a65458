import Foundation

/// One case of a corpus file: named fields and where the case starts.
///
/// Corpus files (`Corpus/<area>/*.cases`) hold cases separated by blank lines.
/// Each line of a case is `field: value`; a line starting with `| ` continues
/// the previous field on a new line (multi-line queries); lines starting with
/// `#` are comments. Which fields exist is up to the test that reads the
/// area: `query`, `params`, `where`, `where.mongo`, `cql`, `error`, ...
public struct CorpusCase: Sendable, CustomStringConvertible {
    public var file: String
    public var line: Int
    public var fields: [String: String]
    /// Field names in the order they appear.
    public var order: [String]

    public subscript(_ name: String) -> String? { fields[name] }

    /// `file:line` for failure messages.
    public var description: String { "\(file):\(line)" }
}

public enum CorpusError: Error, CustomStringConvertible {
    case malformed(String)
    public var description: String {
        switch self { case .malformed(let m): return m }
    }
}

public enum Corpus {
    /// The repository's root (where `Package.swift` is), found from this source file.
    public static var repositoryRoot: URL {
        var url = URL(fileURLWithPath: #filePath)
        while url.path != "/" {
            url.deleteLastPathComponent()
            if FileManager.default.fileExists(atPath: url.appendingPathComponent("Package.swift").path) { return url }
        }
        fatalError("Package.swift not found above \(#filePath)")
    }

    /// The repository's `Corpus/` directory.
    public static var root: URL { repositoryRoot.appendingPathComponent("Corpus") }

    /// Every case of every `*.cases` file under `Corpus/<area>/`, files in name order.
    public static func cases(in area: String) throws -> [CorpusCase] {
        let dir = root.appendingPathComponent(area)
        let names = try FileManager.default.contentsOfDirectory(atPath: dir.path)
            .filter { $0.hasSuffix(".cases") }.sorted()
        var all: [CorpusCase] = []
        for name in names {
            let text = try String(contentsOf: dir.appendingPathComponent(name), encoding: .utf8)
            all += try parse(text, file: "Corpus/\(area)/\(name)")
        }
        return all
    }

    /// Every line of every `Corpus/data/*.ndjson` file, files in name order.
    public static func dataLines() throws -> [String] {
        let dir = root.appendingPathComponent("data")
        var lines: [String] = []
        for name in try FileManager.default.contentsOfDirectory(atPath: dir.path).filter({ $0.hasSuffix(".ndjson") }).sorted() {
            let text = try String(contentsOf: dir.appendingPathComponent(name), encoding: .utf8)
            lines += text.split(separator: "\n").map(String.init)
        }
        return lines
    }

    /// Parses the text of one corpus file.
    public static func parse(_ text: String, file: String) throws -> [CorpusCase] {
        var cases: [CorpusCase] = []
        var current: CorpusCase?
        var lastField: String?
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
        for (n, rawLine) in lines.enumerated() {
            let line = String(rawLine.hasSuffix("\r") ? rawLine.dropLast() : rawLine)
            if line.trimmingCharacters(in: .whitespaces).isEmpty {
                if let c = current { cases.append(c) }
                current = nil
                lastField = nil
                continue
            }
            if line.hasPrefix("#") { continue }
            if line.hasPrefix("|") {
                guard var c = current, let f = lastField else {
                    throw CorpusError.malformed("\(file):\(n + 1): continuation line without a field")
                }
                let rest = line.hasPrefix("| ") ? String(line.dropFirst(2)) : String(line.dropFirst())
                c.fields[f, default: ""] += "\n" + rest
                current = c
                continue
            }
            guard let colon = line.firstIndex(of: ":") else {
                throw CorpusError.malformed("\(file):\(n + 1): expected 'field: value'")
            }
            let name = String(line[..<colon]).trimmingCharacters(in: .whitespaces)
            var value = String(line[line.index(after: colon)...])
            if value.hasPrefix(" ") { value.removeFirst() }
            if current == nil { current = CorpusCase(file: file, line: n + 1, fields: [:], order: []) }
            if current!.fields[name] != nil {
                throw CorpusError.malformed("\(file):\(n + 1): field '\(name)' given twice in one case")
            }
            current!.fields[name] = value
            current!.order.append(name)
            lastField = name
        }
        if let c = current { cases.append(c) }
        return cases
    }
}
