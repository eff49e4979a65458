import CQLKit
import Foundation

/// The data files `cql eval --data` reads, for other stores that import the
/// same data (CQLSQL's `cql load`): the same files, the same objects, the
/// same errors with file and line.
///
/// ```swift
/// for file in try DataFiles.files(at: "Corpus/data") {        // ("GameScore", "Corpus/data/GameScore.ndjson"), ...
///     try DataFiles.forEachObject(inFile: file.path) { object, line in ... }
/// }
/// ```
public enum DataFiles {
    /// The `(className, path)` of each data file: every `<Class>.ndjson` /
    /// `.jsonl` / `.json` of a directory (LeanCloud's export parts
    /// `<Class>.<n>.json` in part order, the class named by their `#`
    /// header line), or the one file (its class is `className`, else its
    /// header's, else its base name). An archive (`.tar.gz`) is an error
    /// saying how to unpack it.
    public static func files(at path: String, className: String? = nil) throws(QueryError) -> [(className: String, path: String)] {
        if DataLoader.isDirectory(path) { return try DataLoader.dataFiles(inDirectory: path) }
        if let e = DataLoader.archiveError(path) { throw e }
        guard FileManager.default.fileExists(atPath: path) else {
            throw QueryError(.data, "\(path): no such file or directory")
        }
        return [(className.flatMap { $0.isEmpty ? nil : $0 } ?? DataLoader.className(ofFile: path), path)]
    }

    /// Each object of one file (typed values decoded, as the evaluator reads
    /// them) with its line number (for a `.json` array: its position, from
    /// 1). JSON Lines are streamed (constant memory); `progress` hears of
    /// every object and byte read.
    /// - Throws: `.data` errors naming the file and line.
    public static func forEachObject(
        inFile path: String, progress: LoadProgress? = nil, _ body: ([String: Value], Int) throws(QueryError) -> Void
    ) throws(QueryError) {
        if DataLoader.readFormat(of: path) == .json {
            for (i, o) in try DataLoader.objects(inJSON: path).enumerated() {
                try body(o, i + 1)
                progress?.advance(bytes: 0, objects: 1)
            }
            progress?.endFile(size: LoadProgress.size(of: path))
        } else if let progress {
            try DataLoader.forEachObject(inNDJSON: path, keepingOnly: nil) { (o, number, line) throws(QueryError) in
                try body(o, number)
                progress.advance(bytes: line.count + 1, objects: 1)
            }
            progress.endFile(size: LoadProgress.size(of: path))
        } else {
            try DataLoader.forEachObject(inNDJSON: path, body)
        }
    }

    /// An object stored as JSON text elsewhere (a database row), read as
    /// the evaluator reads a data line.
    /// ``object(json:)`` of UTF-8 bytes (a database's row as it hands it over).
    public static func object(jsonBytes bytes: UnsafeBufferPointer<UInt8>) throws(QueryError) -> [String: Value] {
        try DataLoader.object(line: bytes, number: 1, file: "<row>")
    }

    public static func object(json: String) throws(QueryError) -> [String: Value] {
        var text = json
        var result: Result<[String: Value], QueryError> = .failure(QueryError(.data, "<row>: empty"))
        text.withUTF8 { buffer in result = Result { () throws(QueryError) in try object(jsonBytes: buffer) } }
        return try result.get()
    }
}
