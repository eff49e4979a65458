extension JSONLineScan {
    /// The object the last scanned line holds with only the members `filter`
    /// keeps: what `JSONReader.parse(bytes:decodingTypedValues: true,
    /// keepingOnly: filter)` gives for it (a repeated key: its last value).
    /// Plain strings, integers and literals are built from the scan; other
    /// values are read by `parser` from their bytes. `nil` (read the line
    /// with the reader then) when `filter` has a non-ASCII key.
    ///
    /// ```swift
    /// scan.scan(line /* {"objectId":"a","score":90} */)
    /// scan.object(keepingOnly: JSONKeyFilter(["score"]), parser: parser)   // ["score": 90]
    /// ```
    package func object(keepingOnly filter: JSONKeyFilter, parser: JSONLineParser) -> [String: Value]? {
        guard filter.allASCII else { return nil }
        var object = [String: Value](minimumCapacity: filter.keys.count)
        for k in 0..<count {
            guard let name = filter.keptKey(ascii: key(k)) else { continue }
            guard let v = builtValue(k, parser) else { return nil }
            object[name] = v
        }
        return object
    }

    /// The value of member `k` as the reader builds it.
    @inline(__always)
    package func builtValue(_ k: Int, _ parser: JSONLineParser) -> Value? {
        let m = members[k]
        switch m.kind {
        case .plainString:
            return .string(String(decoding: UnsafeBufferPointer(start: line.baseAddress! + m.valueStart + 1,
                                                                 count: m.valueEnd - m.valueStart - 2), as: UTF8.self))
        case .integer: return .int(m.integer)
        case .true: return .bool(true)
        case .false: return .bool(false)
        case .null: return .null
        case .typed:
            if m.isDate { return .date(DateValue(millisecondsSince1970: m.integer)) }
            // A Date, a Pointer or a GeoPoint is built from its members' bytes: a
            // LeanCloud export has them on every line, and the reader would
            // build a dictionary to decode each.
            if let v = Cursor.typedValue(in: line.baseAddress!, from: m.valueStart, to: m.valueEnd) { return v }
            return try? parser.parse(value(k))
        case .array:
            // Tags and the like: an array of plain strings, integers and
            // literals is built from its bytes, not read again.
            if let v = Cursor.flatArray(in: line.baseAddress!, from: m.valueStart, to: m.valueEnd) { return v }
            return try? parser.parse(value(k))
        case .escapedString, .fraction, .object:
            return try? parser.parse(value(k))
        }
    }
}

extension JSONLineScan.Cursor {
    /// The array at `start..<end` (one the scan accepted) when each of its
    /// elements is a plain string, an integer or a literal, built as the
    /// reader builds it; `nil` for any other element (the reader builds
    /// that array).
    ///
    /// ```swift
    /// // ["旅行",3,true]
    /// Cursor.flatArray(in: p, from: 0, to: n)   // .array([.string("旅行"), .int(3), .bool(true)])
    /// ```
    static func flatArray(in p: UnsafePointer<UInt8>, from start: Int, to end: Int) -> Value? {
        var walk = JSONLineScan.Cursor(p: p, n: end)
        walk.i = start + 1
        var items: [Value] = []
        walk.skipSpace()
        if walk.at(UInt8(ascii: "]")) { return .array(items) }
        while true {
            walk.skipSpace()
            let itemStart = walk.i
            guard let kind = walk.value(depth: 2) else { return nil }
            switch kind {
            case .plainString:
                items.append(.string(String(decoding: UnsafeBufferPointer(start: p + itemStart + 1, count: walk.i - itemStart - 2), as: UTF8.self)))
            case .integer: items.append(.int(walk.integer))
            case .true: items.append(.bool(true))
            case .false: items.append(.bool(false))
            case .null: items.append(.null)
            default: return nil
            }
            walk.skipSpace()
            guard walk.at(UInt8(ascii: ",")) else { break }
            walk.i += 1
        }
        return .array(items)
    }
}

extension JSONLineScan {
    /// The index of the last member whose key is `key`'s bytes (the one the
    /// reader keeps), or `nil`.
    @inline(__always)
    package func lastMember(named key: [UInt8]) -> Int? {
        let base = line.baseAddress!
        var k = count - 1
        while k >= 0 {
            let m = members[k]
            if m.keyEnd - m.keyStart == key.count {
                var equal = true
                for j in 0..<key.count where base[m.keyStart + j] != key[j] {
                    equal = false
                    break
                }
                if equal { return k }
            }
            k -= 1
        }
        return nil
    }
}
