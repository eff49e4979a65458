/// The entry buffer ``DirectConditionWriter`` shares across a request's
/// where objects: a growable run of ``DirectConditionEntry``s in memory it
/// owns, freed when the buffer goes.
///
/// An `Array` pays its generic grow path and a uniqueness check on every write; entries
/// here live in one allocation that grows by doubling, and the writer's
/// in-place sort works on the pointer directly. Entries are plain data (no
/// reference), so they are moved and dropped without any runtime call.
struct DirectEntryBuffer: ~Copyable {
    private var base: UnsafeMutablePointer<DirectConditionEntry>
    private var capacity: Int
    private(set) var count = 0
    /// Whether `base` was allocated here (else it is the caller's, on its stack).
    private var ownsBase = true

    init(capacity: Int) {
        self.capacity = Swift.max(capacity, 1)
        base = .allocate(capacity: self.capacity)
    }

    /// Entries in `stack` (uninitialized memory valid as long as the
    /// buffer) until it is full, then in memory of its own: no allocation
    /// for a request that fits.
    init(stack: UnsafeMutableBufferPointer<DirectConditionEntry>) {
        if let start = stack.baseAddress, stack.count > 0 {
            base = start
            capacity = stack.count
            ownsBase = false
        } else {
            capacity = 8
            base = .allocate(capacity: capacity)
        }
    }

    // Entries hold no reference (``DirectConditionEntry``): nothing to
    // deinitialize, dropping them is setting the count.
    deinit { if ownsBase { base.deallocate() } }

    mutating func append(_ entry: DirectConditionEntry) {
        if count == capacity { grow() }
        (base + count).initialize(to: entry)
        count += 1
    }

    /// Drops the entries from `start` on.
    mutating func removeAll(from start: Int) {
        precondition(start >= 0 && start <= count)
        count = start
    }

    subscript(i: Int) -> DirectConditionEntry {
        _read {
            precondition(i >= 0 && i < count)
            yield base[i]
        }
        _modify {
            precondition(i >= 0 && i < count)
            yield &base[i]
        }
    }

    /// The entries `range` as a buffer (valid until the next append).
    func buffer(_ range: Range<Int>) -> UnsafeMutableBufferPointer<DirectConditionEntry> {
        precondition(range.lowerBound >= 0 && range.upperBound <= count)
        return UnsafeMutableBufferPointer(start: base + range.lowerBound, count: range.count)
    }

    private mutating func grow() {
        let bigger = UnsafeMutablePointer<DirectConditionEntry>.allocate(capacity: capacity * 2)
        bigger.moveInitialize(from: base, count: count)
        if ownsBase { base.deallocate() }
        base = bigger
        capacity *= 2
        ownsBase = true
    }
}
