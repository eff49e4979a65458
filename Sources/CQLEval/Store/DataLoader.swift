#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import CQLKit
import Foundation

/// Reading collections from files: `.ndjson` / `.jsonl` (one object per
/// line, streamed), `.json` (an array of objects, a REST reply
/// `{"results": [...]}`, or JSON Lines as LeanCloud's export writes them), or
/// a directory of such files. Typed values are decoded. Bad data is a `.data`
/// error whose message starts with `file:line:column:`.
///
/// LeanCloud's export: a class comes in parts `<Class>.<n>.json` (or
/// `.jsonl`), read in part order (`.2` before `.10`), and a part may start
/// with a header line `#filetype:JSON-streaming;version=1.0;class=Counter`
/// whose `class=` names the class (it wins over the file name).
enum DataLoader {
    enum Format {
        case ndjson, json
    }

    /// The format a file's name says: `.ndjson` / `.jsonl` are lines, `.json`
    /// may be either (``readFormat(of:)`` looks at its content).
    static func format(of path: String) -> Format? {
        if path.hasSuffix(".ndjson") || path.hasSuffix(".jsonl") { return .ndjson }
        if path.hasSuffix(".json") { return .json }
        return nil
    }

    /// How a data file is read: by its name, and for a `.json` file by its
    /// content: JSON Lines when its first non-blank line is a `#` header,
    /// or an object complete on its own line followed by more lines (one
    /// object a line); else one JSON value (an array, or a REST reply
    /// `{"results": [...]}`, whose errors say so).
    static func readFormat(of path: String) -> Format {
        guard format(of: path) == .json else { return .ndjson }
        let lines = firstLines(of: path, count: 2)
        guard let first = lines.first else { return .json }
        if first.first == UInt8(ascii: "#") { return .ndjson }
        guard lines.count == 2, first.first == UInt8(ascii: "{"),
            case .object? = try? first.withUnsafeBufferPointer({ (b) throws(QueryError) in try JSONLineParser(decodingTypedValues: false).parse(b) })
        else { return .json }
        return .ndjson
    }

    /// Up to `count` non-blank lines from the start of a file (without the
    /// BOM, `\r` or surrounding blanks), reading no more than 64 MB.
    static func firstLines(of path: String, count: Int) -> [[UInt8]] {
        guard let file = fopen(path, "rb") else { return [] }
        defer { fclose(file) }
        var out: [[UInt8]] = []
        var line: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 64 * 1024)
        var read = 0
        func finish() {
            var l = line[...]
            if read <= 64 * 1024 + 3, l.starts(with: [0xEF, 0xBB, 0xBF]), out.isEmpty { l = l.dropFirst(3) }
            while let b = l.first, b == 0x20 || b == 0x09 || b == 0x0D { l = l.dropFirst() }
            while let b = l.last, b == 0x20 || b == 0x09 || b == 0x0D { l = l.dropLast() }
            if !l.isEmpty { out.append(Array(l)) }
            line.removeAll(keepingCapacity: true)
        }
        while out.count < count && read < 64 << 20 {
            let n = chunk.withUnsafeMutableBytes { fread($0.baseAddress, 1, $0.count, file) }
            if n == 0 { break }
            read += n
            for b in chunk[0..<n] {
                if b == 0x0A {
                    finish()
                    if out.count == count { return out }
                } else {
                    line.append(b)
                }
            }
        }
        if out.count < count { finish() }
        return out
    }

    /// The class a `#` header line names (`...;class=Counter`), if any.
    static func headerClass(_ line: [UInt8]) -> String? {
        guard line.first == UInt8(ascii: "#") else { return nil }
        let text = String(decoding: line.dropFirst(), as: UTF8.self)
        for field in text.split(separator: ";") {
            let f = field.trimmingCharacters(in: .whitespaces)
            if f.hasPrefix("class=") {
                let name = String(f.dropFirst(6)).trimmingCharacters(in: .whitespaces)
                return name.isEmpty ? nil : name
            }
        }
        return nil
    }

    /// The `#` header line a JSON Lines data file starts with, if any.
    static func header(ofFile path: String) -> [UInt8]? {
        guard format(of: path) != nil, let first = firstLines(of: path, count: 1).first, first.first == UInt8(ascii: "#") else { return nil }
        return first
    }

    /// The class a data file holds: the `class=` of its `#` header line,
    /// else its name without directory, extension and part number
    /// (`Counter.3.json` holds `Counter`).
    static func className(ofFile path: String) -> String {
        header(ofFile: path).flatMap(headerClass) ?? nameParts(path).className
    }

    /// A data file's name read as `<Class>[.<part>].<extension>`.
    static func nameParts(_ path: String) -> (className: String, part: Int?) {
        let name = path.split(separator: "/").last.map(String.init) ?? path
        for ext in [".ndjson", ".jsonl", ".json"] where name.hasSuffix(ext) {
            let base = name.dropLast(ext.count)
            if let dot = base.lastIndex(of: "."), dot != base.startIndex {
                let digits = base[base.index(after: dot)...]
                if !digits.isEmpty, digits.count <= 18, digits.utf8.allSatisfy({ $0 >= 48 && $0 <= 57 }) {
                    return (String(base[..<dot]), Int(digits))
                }
            }
            return (String(base), nil)
        }
        return (name, nil)
    }

    /// A compressed archive, which must be unpacked first: its error.
    static func archiveError(_ path: String) -> QueryError? {
        let lower = path.lowercased()
        guard lower.hasSuffix(".tar.gz") || lower.hasSuffix(".tgz") || lower.hasSuffix(".tar") || lower.hasSuffix(".zip") || lower.hasSuffix(".gz") else { return nil }
        let dir = "DIR"
        let unpack = lower.hasSuffix(".zip") ? "unzip \(path) -d \(dir)" : lower.hasSuffix(".tar") ? "tar xf \(path) -C \(dir)"
            : lower.hasSuffix(".gz") && !lower.hasSuffix(".tar.gz") ? "gunzip -k \(path)" : "tar xzf \(path) -C \(dir)"
        return QueryError(.data, "\(path): an archive, which is not read directly: unpack it first (mkdir \(dir) && \(unpack)), then load \(dir)")
    }

    static func isDirectory(_ path: String) -> Bool {
        var isDir: ObjCBool = false
        return FileManager.default.fileExists(atPath: path, isDirectory: &isDir) && isDir.boolValue
    }

    /// The data files of a directory with their classes, ordered by the
    /// class their name says, then part number (numerically), then name.
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
        let files = Set(names).union(committed).filter { format(of: $0) != nil && !$0.hasPrefix(".") }.map { name in
            (name: name, parts: nameParts(name), path: (committed.contains(name) ? journal : base) + name)
        }
        return files.sorted { a, b in
            if a.parts.className != b.parts.className { return a.parts.className < b.parts.className }
            if a.parts.part != b.parts.part { return (a.parts.part ?? -1) < (b.parts.part ?? -1) }
            return a.name < b.name
        }.map { (className(ofFile: $0.path), $0.path) }
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
        var seen = false
        try LineReader(path: path).forEachLine { (line, number) throws(QueryError) in
            guard let start = line.firstIndex(where: { $0 != 0x20 && $0 != 0x09 && $0 != 0x0D }) else { return }
            if line[start] == UInt8(ascii: "#") {
                // LeanCloud's export: a header line, first in its part.
                guard !seen else {
                    throw QueryError(.data, "\(path):\(number): a '#' header line may only be the first line of a file")
                }
                seen = true
                return
            }
            seen = true
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
    /// - A directory: every `<ClassName>.ndjson` / `.jsonl` / `.json` file in
    ///   it (not recursive) becomes the collection `<ClassName>`, e.g.
    ///   `_Join:likes:Post.ndjson` holds the relation `likes` of `Post`;
    ///   LeanCloud's export parts `<ClassName>.<n>.json` are read in part
    ///   order into one collection, named by their `#` header line.
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
        if let e = DataLoader.archiveError(path) { throw e }
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
        switch DataLoader.readFormat(of: path) {
        case .json:
            add(try DataLoader.objects(inJSON: path), to: className)
        case .ndjson:
            // Anything not named .json is read as NDJSON.
            var objects: [[String: Value]] = []
            try DataLoader.forEachObject(inNDJSON: path) { (o, _) throws(QueryError) in objects.append(o) }
            add(objects, to: className)
        }
    }
}
