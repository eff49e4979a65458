import CQLKit
import Foundation

/// Reading collections from files: `.ndjson` (one object per line, streamed),
/// `.json` (an array of objects, or a REST reply `{"results": [...]}`), or a
/// directory of `<ClassName>.ndjson|.json` files. Typed values are decoded.
/// Bad data is a `.data` error whose message starts with `file:line:column:`.
enum DataLoader {
    enum Format {
        case ndjson, json
    }

    static func format(of path: String) -> Format? {
        if path.hasSuffix(".ndjson") || path.hasSuffix(".jsonl") { return .ndjson }
        if path.hasSuffix(".json") { return .json }
        return nil
    }

    /// The class a data file holds: its name without directory and extension.
    static func className(ofFile path: String) -> String {
        let name = path.split(separator: "/").last.map(String.init) ?? path
        for ext in [".ndjson", ".jsonl", ".json"] where name.hasSuffix(ext) { return String(name.dropLast(ext.count)) }
        return name
    }

    static func isDirectory(_ path: String) -> Bool {
        var isDir: ObjCBool = false
        return FileManager.default.fileExists(atPath: path, isDirectory: &isDir) && isDir.boolValue
    }

    /// The data files of a directory by class name, sorted by file name.
    /// A file of a committed write that is not moved in place yet is read
    /// from the journal (``DataDirectory``'s recovery rule).
    static func dataFiles(inDirectory path: String) throws(QueryError) -> [(className: String, path: String)] {
        let names: [String]
        do {
            names = try FileManager.default.contentsOfDirectory(atPath: path)
        } catch {
            throw QueryError(.data, "\(path): cannot read the directory")
        }
        let base = path.hasSuffix("/") ? path : path + "/"
        let journal = base + DataDirectory.journalName + "/"
        let committed = Set((try? FileManager.default.contentsOfDirectory(atPath: journal)) ?? [])
        return Set(names).union(committed).sorted().compactMap { name in
            guard format(of: name) != nil, !name.hasPrefix(".") else { return nil }
            return (className(ofFile: name), (committed.contains(name) ? journal : base) + name)
        }
    }

    /// Each object of an NDJSON file, in order; blank lines are skipped.
    static func forEachObject(
        inNDJSON path: String, _ body: ([String: Value], Int) throws(QueryError) -> Void
    ) throws(QueryError) {
        try forEachObject(inNDJSON: path, keepingOnly: nil) { (o, number, _) throws(QueryError) in try body(o, number) }
    }

    /// Each object of an NDJSON file with only the top-level `keys` built
    /// (all when `nil`; see `JSONReader.parse(bytes:keepingOnly:)`), its line
    /// number and its line, which ``object(line:number:file:)`` reads whole.
    /// Every line is checked as strictly as when building all keys.
    static func forEachObject(
        inNDJSON path: String, keepingOnly keys: JSONKeyFilter?,
        _ body: ([String: Value], Int, UnsafeBufferPointer<UInt8>) throws(QueryError) -> Void
    ) throws(QueryError) {
        let parser = JSONLineParser(decodingTypedValues: true)
        try LineReader(path: path).forEachLine { (line, number) throws(QueryError) in
            guard line.contains(where: { $0 != 0x20 && $0 != 0x09 && $0 != 0x0D }) else { return }
            try body(try object(line: line, number: number, file: path, parser: parser, keepingOnly: keys), number, line)
        }
    }

    /// The object on one NDJSON line, typed values decoded.
    static func object(
        line: UnsafeBufferPointer<UInt8>, number: Int, file path: String,
        parser: JSONLineParser = JSONLineParser(decodingTypedValues: true), keepingOnly keys: JSONKeyFilter? = nil
    ) throws(QueryError) -> [String: Value] {
        let value: Value
        do throws(QueryError) {
            value = try parser.parse(line, keepingOnly: keys)
        } catch {
            throw located(error, file: path, line: number, lineBytes: line)
        }
        guard case .object(let o) = value else {
            throw QueryError(.data, "\(path):\(number): expected a JSON object, found \(value.typeDescription)")
        }
        return o
    }

    /// The objects of a `.json` file.
    static func objects(inJSON path: String) throws(QueryError) -> [[String: Value]] {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw QueryError(.data, "\(path): cannot read the file")
        }
        guard let text = String(data: data, encoding: .utf8) else {
            throw QueryError(.data, "\(path): the file is not valid UTF-8")
        }
        let value: Value
        do {
            value = try JSONReader.parse(text)
        } catch {
            let (line, column) = lineAndColumn(error.range?.start ?? 0, in: Array(text.utf8))
            throw QueryError(.data, "\(path):\(line):\(column): \(error.message)")
        }
        let items: [Value]
        let prefix: String
        switch value {
        case .array(let a):
            items = a
            prefix = ""
        case .object(let o):
            guard case .array(let a)? = o["results"] else {
                throw QueryError(.data, "\(path):1:1: expected an array of objects or {\"results\": [...]}, found an object without 'results'")
            }
            items = a
            prefix = "results"
        default:
            throw QueryError(.data, "\(path):1:1: expected an array of objects or {\"results\": [...]}, found \(value.typeDescription)")
        }
        var out: [[String: Value]] = []
        out.reserveCapacity(items.count)
        for (i, item) in items.enumerated() {
            do throws(QueryError) {
                out.append(try object(item))
            } catch {
                // Only now pay for positions: parse again recording them.
                throw QueryError(.data, "\(path):\(elementLine(text, "\(prefix)[\(i)]")): \(error.message)")
            }
        }
        return out
    }

    /// The 1-based line where the value at `jsonPath` starts.
    private static func elementLine(_ text: String, _ jsonPath: String) -> Int {
        guard let (_, locations) = try? JSONReader.parseLocated(text), let range = locations[jsonPath] else { return 1 }
        return lineAndColumn(range.start, in: Array(text.utf8)).0
    }

    /// A parsed value as an object with typed values decoded; the error
    /// message says what is wrong, the caller adds where.
    private static func object(_ value: Value) throws(QueryError) -> [String: Value] {
        guard case .object = value else {
            throw QueryError(.data, "expected a JSON object, found \(value.typeDescription)")
        }
        let decoded: Value
        do {
            decoded = try value.decodingTypedValues()
        } catch {
            let at = error.path.map { "\($0): " } ?? ""
            throw QueryError(.data, at + error.message)
        }
        guard case .object(let o) = decoded else {
            throw QueryError(.data, "expected a plain JSON object, found \(decoded.typeDescription)")
        }
        return o
    }

    private static func located(_ error: QueryError, file: String, line: Int, lineBytes: UnsafeBufferPointer<UInt8>) -> QueryError {
        let offset = min(error.range?.start ?? 0, lineBytes.count)
        var column = 1
        for b in lineBytes[0..<offset] where b & 0xC0 != 0x80 { column += 1 }
        return QueryError(.data, "\(file):\(line):\(column): \(error.message)")
    }

    private static func lineAndColumn(_ offset: Int, in bytes: [UInt8]) -> (Int, Int) {
        var line = 1, column = 1
        for b in bytes[0..<min(offset, bytes.count)] {
            if b == 0x0A {
                line += 1
                column = 1
            } else if b & 0xC0 != 0x80 {
                column += 1
            }
        }
        return (line, column)
    }
}

extension DocumentStore {
    /// Loads data from a file or a directory.
    ///
    /// - A directory: every `<ClassName>.ndjson` / `.json` file in it (not
    ///   recursive) becomes the collection `<ClassName>`, e.g.
    ///   `_Join:likes:Post.ndjson` holds the relation `likes` of `Post`.
    /// - A file: its objects become the collection `className`, or the file's
    ///   base name when `className` is `nil` or empty.
    ///
    /// ```swift
    /// let store = try DocumentStore.load(path: "Corpus/data")
    /// store.classNames     // ["Category", "Comment", "GameScore", ..., "_Join:likes:Post", ...]
    /// ```
    /// - Throws: `.data` with a message `file:line[:column]: what is wrong`.
    public static func load(path: String, className: String? = nil) throws(QueryError) -> DocumentStore {
        var store = DocumentStore()
        try store.load(path: path, className: className)
        return store
    }

    /// Adds the data at `path` (see ``load(path:className:)``).
    /// `skippingClass`: a class whose file is not read (the CLI streams it).
    public mutating func load(path: String, className: String? = nil, skippingClass: String? = nil) throws(QueryError) {
        if DataLoader.isDirectory(path) {
            // Readers share the lock writers (`cql exec`) take exclusively.
            let lock = try DataDirectory.Lock(path, exclusive: false)
            defer { lock.release() }
            return try loadDirectory(path, skippingClass: skippingClass)
        }
        guard FileManager.default.fileExists(atPath: path) else {
            throw QueryError(.data, "\(path): no such file or directory")
        }
        let name = className.flatMap { $0.isEmpty ? nil : $0 } ?? DataLoader.className(ofFile: path)
        if name != skippingClass { try loadFile(path, as: name) }
    }

    /// Every data file of a directory, without locking (the caller holds the lock).
    mutating func loadDirectory(_ path: String, skippingClass: String? = nil) throws(QueryError) {
        for file in try DataLoader.dataFiles(inDirectory: path) where file.className != skippingClass {
            try loadFile(file.path, as: file.className)
        }
    }

    private mutating func loadFile(_ path: String, as className: String) throws(QueryError) {
        switch DataLoader.format(of: path) {
        case .json:
            add(try DataLoader.objects(inJSON: path), to: className)
        case .ndjson, nil:
            // Anything not named .json is read as NDJSON.
            var objects: [[String: Value]] = []
            try DataLoader.forEachObject(inNDJSON: path) { (o, _) throws(QueryError) in objects.append(o) }
            add(objects, to: className)
        }
    }
}
