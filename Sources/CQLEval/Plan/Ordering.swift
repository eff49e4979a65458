import CQLKit

/// Sorting results (EvaluationSemantics.md, "Order, paging, projection"): order keys
/// by the type order, each object by its best key tuple under MongoDB's
/// sort-key rule (``SortKeys``: arrays by their smallest element ascending and
/// largest descending, paths through one array paired per element, an empty
/// array at the end of a path before null), ties in input order; without
/// order keys, `near` sorts nearest first, equal distances newest first
/// (``distanceTie``).
///
/// Each object's keys are computed once (``entry(_:index:)``), not per
/// comparison.
struct Ordering: Sendable {
    typealias Key = SortKeys.Key

    let sortKeys: SortKeys
    /// The `near` point results are sorted by when there is no explicit order.
    let nearPath: Accessor?
    let nearCenter: GeoPoint?

    let keys: [Key]
    /// Per key, whether it is descending (what comparisons read).
    let descending: [Bool]

    /// What breaks a tie in distance (nearest first, no order keys):
    /// `created` descending, newest first. Usergrid's `within` without
    /// `order by` returns entities at one point newest first (its own geo
    /// tests put ten at one point and expect that), as its default order
    /// does without a `within`. LeanCloud and Parse objects carry
    /// `createdAt`, not `created`: for them equal distances stay in input
    /// order (objects without the key come last, in input order).
    static let distanceTie = SortKeys(keys: [Key(path: Accessor(FieldPath(["created"])), descending: true)])

    init(keys: [Key], nearPath: Accessor?, nearCenter: GeoPoint?) {
        sortKeys = SortKeys(keys: keys)
        self.keys = keys
        descending = sortKeys.descending
        self.nearPath = nearPath
        self.nearCenter = nearCenter
    }

    var isEmpty: Bool { keys.isEmpty && nearPath == nil }

    /// One result with what it sorts by.
    struct Entry {
        let index: Int
        let object: [String: Value]
        let values: [SortValue]
        let distance: Double
    }

    /// - Throws: `.data` when two order keys reach two different arrays of
    ///   `object` (MongoDB's "parallel arrays"), naming both keys.
    func entry(_ object: [String: Value], index: Int) throws(QueryError) -> Entry {
        let root = Value.object(object)
        let values: [SortValue]
        do throws(SortKeys.ParallelArrays) {
            if !keys.isEmpty {
                values = try sortKeys.best(root)
            } else if nearPath != nil {
                values = [Self.distanceTie.best(0, root)]
            } else {
                values = []
            }
        } catch {
            throw parallelArrays(error, object)
        }
        var distance = Double.infinity
        if let nearPath, let nearCenter {
            _ = nearPath.anyPresent(root) { x in
                let points: [GeoPoint]
                if let p = Semantic.geoPoint(x) {
                    points = [p]
                } else if case .array(let items) = x {
                    points = items.compactMap(Semantic.geoPoint)
                } else {
                    points = []
                }
                for p in points { distance = min(distance, Haversine.centralAngle(nearCenter, p)) }
                return false
            }
        }
        return Entry(index: index, object: object, values: values, distance: distance)
    }

    /// The runtime error for keys through parallel arrays: both keys, and the
    /// object by its objectId when it has one.
    private func parallelArrays(_ e: SortKeys.ParallelArrays, _ object: [String: Value]) -> QueryError {
        let a = keys[e.first].path.dotted, b = keys[e.second].path.dotted
        let which = object["objectId"].flatMap { $0.stringValue }.map { " of the object with objectId \"\($0)\"" } ?? " of one object"
        return QueryError(.data, "cannot order by \(a) and \(b): they reach two different arrays\(which) "
            + "(MongoDB: \"cannot sort with keys that are parallel arrays\")")
    }

    /// Strict weak order of entries; total thanks to the input index.
    func precedes(_ a: Entry, _ b: Entry) -> Bool {
        if keys.isEmpty {
            if nearPath != nil {
                if a.distance != b.distance { return a.distance < b.distance }
                let c = SortValue.compare(a.values[0], b.values[0])
                if c != 0 { return c > 0 }
            }
            return a.index < b.index
        }
        if descending.count == 1 {
            // The common case, without the loop.
            let c = SortValue.compare(a.values[0], b.values[0])
            if c != 0 { return descending[0] ? c > 0 : c < 0 }
        } else {
            let c = SortKeys.compare(a.values, b.values, descending)
            if c != 0 { return c < 0 }
        }
        return a.index < b.index
    }

    /// The first `count` entries in order, keeping at most `count` entries in
    /// memory (a bounded max-heap) when `count` is given.
    func sorted(_ entries: some Sequence<Entry>, keepingFirst count: Int?) -> [Entry] {
        guard let count else { return entries.sorted(by: precedes) }
        guard count > 0 else { return [] }
        var heap = BoundedHeap(capacity: count, precedes: precedes)
        for e in entries { heap.offer(e) }
        return heap.sortedElements()
    }
}

/// A max-heap (by `precedes`) holding the `capacity` smallest elements seen.
struct BoundedHeap<Element> {
    let capacity: Int
    let precedes: (Element, Element) -> Bool
    private(set) var items: [Element] = []

    init(capacity: Int, precedes: @escaping (Element, Element) -> Bool) {
        self.capacity = capacity
        self.precedes = precedes
        items.reserveCapacity(min(capacity, 4096))
    }

    mutating func offer(_ e: Element) {
        if items.count < capacity {
            items.append(e)
            siftUp(items.count - 1)
        } else if let top = items.first, precedes(e, top) {
            items[0] = e
            siftDown(0)
        }
    }

    func sortedElements() -> [Element] { items.sorted(by: precedes) }

    private mutating func siftUp(_ start: Int) {
        var i = start
        while i > 0 {
            let parent = (i - 1) / 2
            guard precedes(items[parent], items[i]) else { return }
            items.swapAt(parent, i)
            i = parent
        }
    }

    private mutating func siftDown(_ start: Int) {
        var i = start
        while true {
            let l = 2 * i + 1, r = l + 1
            var largest = i
            if l < items.count, precedes(items[largest], items[l]) { largest = l }
            if r < items.count, precedes(items[largest], items[r]) { largest = r }
            if largest == i { return }
            items.swapAt(i, largest)
            i = largest
        }
    }
}
