import CQLKit

/// Equality as EvaluationSemantics.md defines it, which is not `Value.==`:
/// numbers by value (`1 == 1.0`), strings by UTF-8 bytes (no Unicode
/// normalization), Dates by instant, Pointers by className + objectId,
/// GeoPoints by latitude + longitude (a plain `{latitude, longitude}` object
/// counts as one), objects deep with key order ignored, arrays in order.
enum Semantic {
    /// A plain object holding exactly the numeric keys `latitude` and
    /// `longitude` (Usergrid's `location`) as a GeoPoint; anything else as is.
    @inline(__always)
    static func canonical(_ v: Value) -> Value {
        if case .object(let o) = v, o.count == 2, let p = geoPoint(inObject: o) { return .geoPoint(p) }
        return v
    }

    static func geoPoint(inObject o: [String: Value]) -> GeoPoint? {
        guard o.count == 2, let lat = o["latitude"]?.numberValue, let lng = o["longitude"]?.numberValue else { return nil }
        return GeoPoint(latitude: lat, longitude: lng)
    }

    /// The GeoPoint a stored value stands for, if any.
    static func geoPoint(_ v: Value) -> GeoPoint? {
        switch v {
        case .geoPoint(let p): return p
        case .object(let o): return geoPoint(inObject: o)
        default: return nil
        }
    }

    static func equal(_ x: Value, _ y: Value) -> Bool {
        let a = canonical(x), b = canonical(y)
        switch (a, b) {
        case (.null, .null): return true
        case (.bool(let p), .bool(let q)): return p == q
        case (.int(let p), .int(let q)): return p == q
        case (.double(let p), .double(let q)): return p == q
        case (.int(let p), .double(let q)), (.double(let q), .int(let p)): return Numbers.compare(p, q) == 0
        case (.string(let p), .string(let q)): return bytesEqual(p, q)
        case (.array(let p), .array(let q)):
            guard p.count == q.count else { return false }
            for i in p.indices where !equal(p[i], q[i]) { return false }
            return true
        case (.object(let p), .object(let q)): return objectsEqual(p, q)
        case (.typedObject(let c, let p), .typedObject(let d, let q)): return bytesEqual(c, d) && objectsEqual(p, q)
        case (.date(let p), .date(let q)): return p == q
        case (.pointer(let p), .pointer(let q)):
            return bytesEqual(p.className, q.className) && bytesEqual(p.objectId, q.objectId)
        case (.geoPoint(let p), .geoPoint(let q)): return p.latitude == q.latitude && p.longitude == q.longitude
        case (.bytes(let p), .bytes(let q)): return bytesEqual(p, q)
        case (.file(let p), .file(let q)): return optionalBytesEqual(p.id, q.id) && optionalBytesEqual(p.name, q.name)
        case (.relation(let p), .relation(let q)): return bytesEqual(p, q)
        default: return false
        }
    }

    /// Keys compare by bytes too: a dictionary lookup would also find a
    /// canonically equivalent key ("e\u{301}" for "é"), so the key found is
    /// checked.
    private static func objectsEqual(_ p: [String: Value], _ q: [String: Value]) -> Bool {
        guard p.count == q.count else { return false }
        for (k, v) in p {
            guard let i = q.index(forKey: k), bytesEqual(q[i].key, k), equal(v, q[i].value) else { return false }
        }
        return true
    }

    /// File ids and names compare like strings: by bytes.
    private static func optionalBytesEqual(_ a: String?, _ b: String?) -> Bool {
        switch (a, b) {
        case (nil, nil): return true
        case (let x?, let y?): return bytesEqual(x, y)
        default: return false
        }
    }

    /// Byte-wise string equality (Swift's `==` uses canonical equivalence,
    /// under which "é" and "e\u{301}" are equal; MongoDB's is bytes). Also
    /// for Bytes' base64 text and File ids, so that equality agrees with
    /// the order (``ValueOrder``).
    @inline(__always)
    static func bytesEqual(_ a: String, _ b: String) -> Bool {
        a.utf8.count == b.utf8.count && ValueOrder.compareBytes(a, b) == 0
    }

    /// A hash consistent with ``equal(_:_:)``.
    static func hash(_ x: Value, into h: inout Hasher) {
        let v = canonical(x)
        switch v {
        case .null: h.combine(0 as UInt8)
        case .bool(let b): h.combine(1 as UInt8); h.combine(b)
        // Equal numbers convert to the same double, so hash that.
        case .int(let i): h.combine(2 as UInt8); h.combine(Double(i))
        case .double(let d): h.combine(2 as UInt8); h.combine(d)
        case .string(let s): h.combine(3 as UInt8); hashBytes(s, into: &h)
        case .array(let a):
            h.combine(4 as UInt8)
            h.combine(a.count)
            for e in a { hash(e, into: &h) }
        case .object(let o):
            h.combine(5 as UInt8)
            h.combine(unorderedHash(o))
        case .typedObject(let c, let o):
            h.combine(6 as UInt8)
            hashBytes(c, into: &h)
            h.combine(unorderedHash(o))
        case .date(let d): h.combine(7 as UInt8); h.combine(d.millisecondsSince1970)
        case .pointer(let p): h.combine(8 as UInt8); hashBytes(p.className, into: &h); hashBytes(p.objectId, into: &h)
        case .geoPoint(let p): h.combine(9 as UInt8); h.combine(p.latitude); h.combine(p.longitude)
        case .bytes(let b): h.combine(10 as UInt8); hashBytes(b, into: &h)
        case .file(let f):
            h.combine(11 as UInt8)
            hashBytes(f.id ?? "", into: &h)
            h.combine(f.id == nil)
            hashBytes(f.name ?? "", into: &h)
            h.combine(f.name == nil)
        case .relation(let c): h.combine(12 as UInt8); hashBytes(c, into: &h)
        }
    }

    private static func hashBytes(_ s: String, into h: inout Hasher) {
        let done: Void? = s.utf8.withContiguousStorageIfAvailable { h.combine(bytes: UnsafeRawBufferPointer($0)) }
        if done == nil { for b in s.utf8 { h.combine(b) } }
        h.combine(s.utf8.count)
    }

    /// Order-independent: the sum of per-entry hashes.
    private static func unorderedHash(_ o: [String: Value]) -> Int {
        var sum = 0
        for (k, v) in o {
            var eh = Hasher()
            hashBytes(k, into: &eh)
            hash(v, into: &eh)
            sum = sum &+ eh.finalize()
        }
        return sum
    }
}

/// A value hashed and compared by ``Semantic``, so constant `in` lists can be
/// sets: `SemanticKey(.int(1)) == SemanticKey(.double(1))`.
struct SemanticKey: Hashable, Sendable {
    let value: Value
    init(_ value: Value) { self.value = value }
    static func == (a: SemanticKey, b: SemanticKey) -> Bool { Semantic.equal(a.value, b.value) }
    func hash(into h: inout Hasher) { Semantic.hash(value, into: &h) }
}
