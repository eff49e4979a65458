import CQLKit

/// Sorting results (semantics.md, "Ordering, paging, projection"): order keys
/// by the type order, arrays by their smallest element ascending and largest
/// descending, an empty array before null, missing as null, ties in input
/// order; without order keys, `near` sorts nearest first.
struct Ordering: Sendable {
    struct Key: Sendable {
        let path: Accessor
        let descending: Bool
    }

    let keys: [Key]
    /// The `near` point results are sorted by when there is no explicit order.
    let nearPath: Accessor?
    let nearCenter: GeoPoint?

    var isEmpty: Bool { keys.isEmpty && nearPath == nil }

    /// A sort value: an empty array sorts before every value (null included).
    enum SortValue {
        case emptyArray
        case value(Value)

        static func compare(_ a: SortValue, _ b: SortValue) -> Int {
            switch (a, b) {
            case (.emptyArray, .emptyArray): return 0
            case (.emptyArray, .value): return -1
            case (.value, .emptyArray): return 1
            case (.value(let x), .value(let y)): return ValueOrder.compare(x, y)
            }
        }
    }

    /// One result with what it sorts by.
    struct Entry {
        let index: Int
        let object: [String: Value]
        let values: [SortValue]
        let distance: Double
    }

    func entry(_ object: [String: Value], index: Int) -> Entry {
        let root = Value.object(object)
        var values: [SortValue] = []
        values.reserveCapacity(keys.count)
        for key in keys { values.append(sortValue(root, key)) }
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

    private func sortValue(_ root: Value, _ key: Key) -> SortValue {
        var best: SortValue?
        func offer(_ candidate: SortValue) {
            guard let b = best else {
                best = candidate
                return
            }
            let c = SortValue.compare(candidate, b)
            if key.descending ? c > 0 : c < 0 { best = candidate }
        }
        _ = key.path.visit(root, present: { x in
            if case .array(let items) = x {
                if items.isEmpty { offer(.emptyArray) }
                for item in items { offer(.value(item)) }
            } else {
                offer(.value(x))
            }
            return false
        }, missing: {
            offer(.value(.null))
            return false
        })
        return best ?? .value(.null)
    }

    /// Strict weak order of entries; total thanks to the input index.
    func precedes(_ a: Entry, _ b: Entry) -> Bool {
        for (i, key) in keys.enumerated() {
            var c = SortValue.compare(a.values[i], b.values[i])
            if key.descending { c = -c }
            if c != 0 { return c < 0 }
        }
        if nearPath != nil, keys.isEmpty, a.distance != b.distance { return a.distance < b.distance }
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
