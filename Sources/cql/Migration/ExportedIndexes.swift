import CQLKit
import Foundation

/// The indexes an app had on LeanCloud, read from an export, and the
/// indexes `cql` makes for them (`--indexes-from` of `load`, `pull` and
/// `index`; the migration article, "Indexes").
///
/// **What is read** — LeanCloud's backup export is a MongoDB dump: beside
/// each class's `<Class>.bson` lies `<Class>.metadata.json`, whose
/// `indexes` list each index's `key` (a key path → `1`, `-1`, `"hashed"`,
/// `"2dsphere"`, `"text"`, ...; plain or extended JSON numbers), `name` and
/// `unique`. A path is a directory (its `*.metadata.json`, the dump's
/// database folder) or one file: a `.metadata.json`, or a JSON file of the
/// same entries by class — `{"<Class>": [{"key": {...}}, ...]}` — where
/// `keys` (what LeanCloud's `POST /1.1/indices/<Class>` takes) is read as
/// `key`. The class is `collectionName`, else the `ns` after its database,
/// else the file's name.
///
/// **What is made** — each key of an index gets, on that class only, the
/// expression indexes `--index` makes (the generated SQL uses one key's
/// index per condition, so a compound index becomes one index per key).
/// Nothing is made, and the report says why, for: `_id` (objectId, the
/// table's key), `createdAt`/`updatedAt` (columns indexed already), the
/// ACL's own keys, and `text`/`2d`/`2dsphere`/`geoHaystack` indexes (no
/// such index here). `unique` is reported: the index is made, but only
/// `_User`'s, `_Role`'s and `_File`'s own keys are kept unique by the
/// server.
///
/// ```swift
/// let found = try ExportedIndexes.read(path: "dump/app")
/// found.keysByClass   // ["GameScore": ["playerName", "score"]]  (from {"score": -1, "playerName": 1})
/// found.notes         // ["GameScore: GameScore.metadata.json: indexes[0] (_id_): _id is objectId, the table's key already"]
/// ```
struct ExportedIndexes {
    /// The keys to index, by class, in the order first met.
    var keysByClass: [String: [String]] = [:]
    /// A line per index part left out or changed, with why.
    var notes: [String] = []

    /// Reads `path` (a dump folder, a `.metadata.json` or an index list).
    static func read(path: String) throws(CommandFailure) -> ExportedIndexes {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
            throw CommandFailure("error: --indexes-from: no such file or directory: \(path)")
        }
        var found = ExportedIndexes()
        if isDirectory.boolValue {
            let names = ((try? FileManager.default.contentsOfDirectory(atPath: path)) ?? []).filter { $0.hasSuffix(".metadata.json") }.sorted()
            if names.isEmpty {
                throw CommandFailure("error: --indexes-from: \(path) holds no <Class>.metadata.json (the folder of a MongoDB dump: LeanCloud's backup export)")
            }
            for name in names { try found.add(file: (path as NSString).appendingPathComponent(name)) }
        } else {
            try found.add(file: path)
        }
        return found
    }

    private mutating func add(file: String) throws(CommandFailure) {
        let name = (file as NSString).lastPathComponent
        let value: Value
        do {
            let text = try String(contentsOfFile: file, encoding: .utf8)
            value = try JSONReader.parse(text)
        } catch let e as QueryError {
            throw CommandFailure("error: --indexes-from: \(name): \(e.shortDescription)")
        } catch {
            throw CommandFailure("error: --indexes-from: cannot read \(file): \(error.localizedDescription)")
        }
        guard case .object(let top) = value else {
            throw CommandFailure("error: --indexes-from: \(name): expected a JSON object (a MongoDB dump's .metadata.json or {\"<Class>\": [indexes]})")
        }
        if case .array(let indexes)? = top["indexes"] {
            let className = Self.className(top, file: name)
            for (i, index) in indexes.enumerated() { try add(index, of: className, from: "\(name): indexes[\(i)]") }
            return
        }
        for className in top.keys.sorted() {
            guard case .array(let indexes)? = top[className] else {
                throw CommandFailure("error: --indexes-from: \(name): \(className): expected an array of indexes ({\"key\": {\"<key>\": 1}})")
            }
            for (i, index) in indexes.enumerated() { try add(index, of: className, from: "\(name): \(className)[\(i)]") }
        }
    }

    /// The class a `.metadata.json` describes.
    static func className(_ top: [String: Value], file: String) -> String {
        if case .string(let c)? = top["collectionName"], !c.isEmpty { return c }
        if case .array(let indexes)? = top["indexes"] {
            for case .object(let index) in indexes {
                if case .string(let ns)? = index["ns"], let dot = ns.firstIndex(of: ".") { return String(ns[ns.index(after: dot)...]) }
            }
        }
        return file.hasSuffix(".metadata.json") ? String(file.dropLast(".metadata.json".count)) : file
    }

    private mutating func add(_ index: Value, of className: String, from place: String) throws(CommandFailure) {
        guard case .object(let fields) = index, case .object(let key)? = fields["key"] ?? fields["keys"], !key.isEmpty else {
            throw CommandFailure("error: --indexes-from: \(place): an index needs \"key\": {\"<key>\": 1, ...}")
        }
        let label = fields["name"]?.stringValue.map { "\(place) (\($0))" } ?? place
        // A dump's keys keep their order in the file; Value's object does
        // not, so a compound index's keys are taken sorted (each gets its own index).
        for path in key.keys.sorted() {
            let kind = key[path] ?? .null
            if let special = Self.specialKind(kind) {
                notes.append("\(className): \(label): a \(special) index on \(path) is not made (no \(special) index here; near queries scan)")
                continue
            }
            let (local, whyNot) = Self.localKey(path)
            guard let local else {
                notes.append("\(className): \(label): \(path) is \(whyNot)")
                continue
            }
            if path != local { notes.append("\(className): \(label): \(path) is indexed as \(local)") }
            if !keysByClass[className, default: []].contains(local) { keysByClass[className, default: []].append(local) }
        }
        if case .bool(true)? = fields["unique"] {
            notes.append("\(className): \(label): unique in the source; indexed, not kept unique here (only _User's, _Role's and _File's own keys are)")
        }
    }

    /// The kind of a key that is not an ordered one (`1`, `-1`, `"hashed"`).
    static func specialKind(_ kind: Value) -> String? {
        guard case .string(let s) = kind, s != "hashed" else { return nil }
        return s
    }

    /// The key as stored here, or nil and why no index is made for it.
    static func localKey(_ path: String) -> (String?, String) {
        switch path {
        case "_id", "objectId": return (nil, "objectId, the table's key already")
        case "createdAt", "updatedAt", "_created_at", "_updated_at": return (nil, "an indexed column of every table already")
        case "ACL", "_rperm", "_wperm", "_acl": return (nil, "the ACL, which reads filter another way; not indexed")
        default:
            // Parse Server's names of Pointer keys in MongoDB.
            if path.hasPrefix("_p_"), path.count > 3 { return (String(path.dropFirst(3)), "") }
            return (path, "")
        }
    }
}
