/// The members (key, value) of the JSON objects being read, innermost last.
///
/// Why: a dictionary grown key by key rehashes every key at each doubling;
/// reading data files, that was a quarter of the time. The reader instead
/// pushes each member here and builds the object's dictionary once its member
/// count is known, at that capacity. Members are moved out, not copied, so the
/// stack costs no retain/release per value (an `Array` of tuples would copy
/// each member and destroy it through generic value witnesses).
final class JSONMemberStack {
    typealias Member = (key: String, value: Value)

    private var base: UnsafeMutablePointer<Member>
    private var capacity: Int
    private(set) var count = 0

    init(capacity: Int = 16) {
        self.capacity = capacity
        base = .allocate(capacity: capacity)
    }

    deinit {
        base.deinitialize(count: count)
        base.deallocate()
    }

    @inline(__always)
    func push(_ key: String, _ value: Value) {
        if count == capacity { grow() }
        (base + count).initialize(to: (key, value))
        count += 1
    }

    /// The members from `start` to the top as a dictionary (a repeated key
    /// keeps its last value); they leave the stack.
    func popObject(from start: Int) -> [String: Value] {
        var dict = [String: Value](minimumCapacity: count - start)
        for i in start..<count {
            let (key, value) = (base + i).move()
            dict[key] = value
        }
        count = start
        return dict
    }

    private func grow() {
        let bigger = UnsafeMutablePointer<Member>.allocate(capacity: capacity * 2)
        bigger.moveInitialize(from: base, count: count)
        base.deallocate()
        base = bigger
        capacity *= 2
    }
}
