/// Operands and key paths: every term must be bound to a value by now, and
/// values take the dialect's form (Mongo Dates as `{"$date":...}`).
extension ConditionEmitter {
    /// The key under which a condition on the `$elemMatch` element itself is
    /// emitted (an empty path); never valid anywhere else.
    static let elementKey = ""

    /// The dotted key of `path`. Dotted where-JSON cannot express a component
    /// that holds a `.` or is empty, and a `$` at the start would read as an operator.
    func key(_ path: FieldPath, _ range: SourceRange?) throws(QueryError) -> String {
        // The usual key, one plain ASCII component, judged over its bytes at once.
        if let only = path.singleComponent, let isObjectId = ConditionEmitter.plainASCIIIsObjectId(only) {
            return isObjectId ? table.objectIdKey : only
        }
        let components = path.components
        if components.isEmpty || (components.count == 1 && components[0].isEmpty) { return ConditionEmitter.elementKey }
        // An ASCII component is checked by its bytes (its Characters are its
        // bytes); any other through the Character tests below.
        if components.allSatisfy(ConditionEmitter.isPlainASCIIComponent) {
            if components.count == 1 { return components[0] == "objectId" ? table.objectIdKey : components[0] }
            return path.dotted
        }
        for c in components where c.isEmpty || c.contains(".") || c.hasPrefix("$") {
            let why = c.isEmpty ? "an empty component" : c.hasPrefix("$") ? "a component starting with '$'" : "a component containing '.'"
            throw QueryError(.unsupported, "the key '\(path.dotted)' has \(why), which the \(table.name) where-JSON dialect cannot express", range: range)
        }
        if path.components == ["objectId"] { return table.objectIdKey }
        return path.dotted
    }

    /// For a component ``isPlainASCIIComponent(_:)`` accepts, whether it is
    /// `objectId`; `nil` for any other component (or a non-contiguous String).
    /// Over the contiguous bytes in one loop, `objectId` told by one 8-byte
    /// load (cheaper than `elementsEqual` over a UTF8View).
    static func plainASCIIIsObjectId(_ c: String) -> Bool? {
        // 0: not plain, 1: plain, 2: plain and `objectId` (a flat answer:
        // a `Bool?` inside the Optional the call returns cost more).
        let answer: UInt8? = c.utf8.withContiguousStorageIfAvailable { b -> UInt8 in
            guard let p = b.baseAddress, b.count > 0, p[0] != UInt8(ascii: "$") else { return 0 }
            // Eight bytes at a time: a high bit, or a `.` (a zero byte of the
            // word xor dots), in any of them.
            var i = 0
            while i + 8 <= b.count {
                let w = UnsafeRawPointer(p + i).loadUnaligned(as: UInt64.self)
                let x = w ^ 0x2E2E_2E2E_2E2E_2E2E
                if (w | ((x &- 0x0101_0101_0101_0101) & ~x)) & 0x8080_8080_8080_8080 != 0 { return 0 }
                i += 8
            }
            while i < b.count {
                if p[i] >= 0x80 || p[i] == UInt8(ascii: ".") { return 0 }
                i += 1
            }
            guard b.count == 8 else { return 1 }
            return UInt64(littleEndian: UnsafeRawPointer(p).loadUnaligned(as: UInt64.self)) == objectIdBytes ? 2 : 1
        }
        switch answer {
        case 1: return false
        case 2: return true
        default: return nil
        }
    }

    /// The bytes of `objectId` as one little-endian word (`o` lowest).
    static let objectIdBytes: UInt64 = 0x6449_7463_656A_626F

    /// A non-empty ASCII component without `.` that does not start with `$`.
    static func isPlainASCIIComponent(_ c: String) -> Bool {
        var utf8 = c.utf8.makeIterator()
        guard let first = utf8.next(), first != UInt8(ascii: "$"), first != UInt8(ascii: "."), first < 0x80 else { return false }
        while let b = utf8.next() { if b >= 0x80 || b == UInt8(ascii: ".") { return false } }
        return true
    }

    /// The value of a bound term. `allowRelativeTime`: the dialect may pass
    /// `{"$relativeTime": ...}` through (Parse, range comparisons only).
    func value(_ t: Term, at range: SourceRange?, allowRelativeTime: Bool = false) throws(QueryError) -> Value {
        switch t {
        case .value(let v):
            return try convert(v, at: range)
        case .array(let items):
            return try list(items, at: range)
        case .placeholder(let index, let r):
            throw ConditionEmitter.unbound(index, r ?? range)
        case .call(let f, let args, let r):
            if let (index, pr) = ConditionEmitter.firstPlaceholder(in: args) { throw ConditionEmitter.unbound(index, pr ?? r ?? range) }
            throw QueryError(.binding, "\(f.rawValue)(...) is not bound; bind the query before emitting where-JSON", range: r ?? range)
        case .currentTimestamp:
            throw QueryError(.binding, "current_timestamp() is not bound; bind the query with a time ('now') before emitting where-JSON", range: range)
        case .relativeTime(let text):
            if allowRelativeTime && table.supports(.relativeTime) { return .object(["$relativeTime": .string(text)]) }
            throw QueryError(.binding, "the relative time '\(text)' is not bound; bind the query with a time ('now') before emitting \(table.name) where-JSON", range: range)
        }
    }

    func list(_ terms: [Term], at range: SourceRange?) throws(QueryError) -> Value {
        var out: [Value] = []
        out.reserveCapacity(terms.count)
        for t in terms { out.append(try value(t, at: range)) }
        return .array(out)
    }

    /// A bound string operand (`like` and `regexp` patterns).
    func string(_ t: Term, _ construct: String, at range: SourceRange?) throws(QueryError) -> String {
        let v = try value(t, at: range)
        guard case .string(let s) = v else {
            throw QueryError(.invalidValue, "the '\(construct)' pattern must be a string, found \(v.typeDescription)", range: range)
        }
        return s
    }

    /// A bound number (distances).
    func number(_ t: Term, _ construct: String, at range: SourceRange?) throws(QueryError) -> Value {
        let v = try value(t, at: range)
        guard v.numberValue != nil else {
            throw QueryError(.invalidValue, "'\(construct)' needs a number, found \(v.typeDescription)", range: range)
        }
        return v
    }

    /// `v` in the dialect's form. Non-finite doubles have no JSON form.
    func convert(_ v: Value, at range: SourceRange?) throws(QueryError) -> Value {
        switch v {
        case .double(let d) where !d.isFinite:
            throw QueryError(.invalidValue, "the number \(d) has no JSON form", range: range)
        case .date(let d) where table.dates == .extendedJSON:
            return .object(["$date": .string(ISODate.format(d))])
        case .array(let items):
            var out: [Value] = []
            out.reserveCapacity(items.count)
            for item in items { out.append(try convert(item, at: range)) }
            return .array(out)
        case .object(let o):
            // Every reader takes `{"$date": ...}` for a Date (MongoDB extended JSON).
            if o.count == 1, o["$date"] != nil {
                throw QueryError(.unsupported, "an object whose only key is '$date' reads as a Date; it cannot be expressed in the \(table.name) where-JSON dialect", range: range)
            }
            var out: [String: Value] = [:]
            for (k, item) in o { out[k] = try convert(item, at: range) }
            return .object(out)
        default:
            return v
        }
    }

    static func unbound(_ index: Int, _ range: SourceRange?) -> QueryError {
        QueryError(.binding, "the \(TypedFunctions.ordinal(index + 1)) '?' has no value; bind the query's parameters before emitting where-JSON", range: range)
    }

    static func firstPlaceholder(in terms: [Term]) -> (Int, SourceRange?)? {
        for t in terms {
            switch t {
            case .placeholder(let i, let r): return (i, r)
            case .array(let items), .call(_, let items, _):
                if let found = firstPlaceholder(in: items) { return found }
            default: continue
            }
        }
        return nil
    }
}
