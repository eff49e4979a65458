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
    /// `.json` of a directory, or the one file (its class is `className` or
    /// its base name).
    public static func files(at path: String, className: String? = nil) throws(QueryError) -> [(className: String, path: String)] {
        if DataLoader.isDirectory(path) { return try DataLoader.dataFiles(inDirectory: path) }
        guard FileManager.default.fileExists(atPath: path) else {
            throw QueryError(.data, "\(path): no such file or directory")
        }
        return [(className.flatMap { $0.isEmpty ? nil : $0 } ?? DataLoader.className(ofFile: path), path)]
    }

    /// Each object of one file (typed values decoded, as the evaluator reads
    /// them) with its line number (for `.json` files: its position, from 1).
    /// - Throws: `.data` errors naming the file and line.
    public static func forEachObject(
        inFile path: String, _ body: ([String: Value], Int) throws(QueryError) -> Void
    ) throws(QueryError) {
        if DataLoader.format(of: path) == .json {
            for (i, o) in try DataLoader.objects(inJSON: path).enumerated() { try body(o, i + 1) }
        } else {
            try DataLoader.forEachObject(inNDJSON: path, body)
        }
    }

    /// An object stored as JSON text elsewhere (a database row), read as
    /// the evaluator reads a data line.
    public static func object(json: String) throws(QueryError) -> [String: Value] {
        var text = json
        var result: Result<[String: Value], QueryError> = .failure(QueryError(.data, "<row>: empty"))
        text.withUTF8 { buffer in
            result = Result { () throws(QueryError) in try DataLoader.object(line: buffer, number: 1, file: "<row>") }
        }
        return try result.get()
    }
}
