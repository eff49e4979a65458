/// Code point order of strings, which is the order of their UTF-8 bytes
/// (EvaluationSemantics.md: strings compare by code point). Swift's `<` on `String` is
/// not this order (it compares canonically equivalent strings as equal), so
/// the JSON writer's key order and the evaluator's string comparisons both
/// use this one function.
package enum CodePointOrder {
    /// `-1`, `0` or `1` as `a` sorts before, with or after `b`.
    @inline(__always)
    package static func compare(_ a: String, _ b: String) -> Int {
        // Native strings are contiguous UTF-8: compare the buffers directly.
        let fast: Int?? = a.utf8.withContiguousStorageIfAvailable { x in
            b.utf8.withContiguousStorageIfAvailable { y in
                let n = Swift.min(x.count, y.count)
                var i = 0
                while i < n {
                    if x[i] != y[i] { return x[i] < y[i] ? -1 : 1 }
                    i += 1
                }
                return x.count == y.count ? 0 : (x.count < y.count ? -1 : 1)
            }
        }
        if let r = fast ?? nil { return r }
        var ia = a.utf8.makeIterator(), ib = b.utf8.makeIterator()
        while true {
            switch (ia.next(), ib.next()) {
            case (nil, nil): return 0
            case (nil, _): return -1
            case (_, nil): return 1
            case (let x?, let y?):
                if x != y { return x < y ? -1 : 1 }
            }
        }
    }
}
