import CQLKit

/// Named collections of objects, the data the evaluator queries.
///
/// Objects are `[String: Value]` with typed values already decoded
/// (`{"__type":"Pointer",...}` is a `.pointer`). Each collection keeps an
/// `objectId` index for `include` and relations.
///
/// ```swift
/// var store = DocumentStore()
/// store.add([["objectId": "a1", "score": 90]], to: "GameScore")
/// store.objects(in: "GameScore").count      // 1
/// store.object(className: "GameScore", objectId: "a1")?["score"]   // .int(90)
///
/// let loaded = try DocumentStore.load(path: "Corpus/data")   // GameScore.ndjson, Post.ndjson, ...
/// loaded.objects(in: "Category").count                      // 5
/// ```
public struct DocumentStore: Sendable {
    struct Collection: Sendable {
        var objects: [[String: Value]] = []
        /// objectId → position of its first occurrence.
        var index: [String: Int] = [:]

        mutating func append(_ object: [String: Value]) {
            if case .string(let id)? = object["objectId"], index[id] == nil { index[id] = objects.count }
            objects.append(object)
        }
    }

    private(set) var collections: [String: Collection] = [:]

    /// An empty store.
    public init() {}

    /// A store holding the given collections.
    public init(_ collections: [String: [[String: Value]]]) {
        for (name, objects) in collections { add(objects, to: name) }
    }

    /// Appends objects to a collection (created when new).
    public mutating func add(_ objects: [[String: Value]], to className: String) {
        var c = collections.removeValue(forKey: className) ?? Collection()
        c.objects.reserveCapacity(c.objects.count + objects.count)
        for o in objects { c.append(o) }
        collections[className] = c
    }

    /// The names of the collections, sorted.
    public var classNames: [String] { collections.keys.sorted() }

    /// The objects of a collection in load order; empty when there is none.
    public func objects(in className: String) -> [[String: Value]] {
        collections[className]?.objects ?? []
    }

    /// The object of `className` with this `objectId`, if stored.
    public func object(className: String, objectId: String) -> [String: Value]? {
        guard let c = collections[className], let i = c.index[objectId] else { return nil }
        return c.objects[i]
    }

    // MARK: Writes (used by StatementExecutor)

    /// Replaces the object stored under `objectId` (its first occurrence).
    /// - Returns: whether there was one.
    @discardableResult
    mutating func replace(className: String, objectId: String, with object: [String: Value]) -> Bool {
        guard var c = collections[className], let i = c.index[objectId] else { return false }
        collections[className] = nil  // unique reference: edit in place
        c.objects[i] = object
        collections[className] = c
        return true
    }

    /// Removes every object of `className` for which `shouldRemove` holds,
    /// keeping the order of the others (the collection stays, maybe empty).
    /// - Returns: how many were removed.
    @discardableResult
    mutating func removeAll(in className: String, where shouldRemove: ([String: Value]) -> Bool) -> Int {
        guard var c = collections.removeValue(forKey: className) else { return 0 }
        let before = c.objects.count
        c.objects.removeAll(where: shouldRemove)
        if c.objects.count != before {
            c.index = [:]
            for (i, o) in c.objects.enumerated() {
                if case .string(let id)? = o["objectId"], c.index[id] == nil { c.index[id] = i }
            }
        }
        collections[className] = c
        return before - c.objects.count
    }
}
