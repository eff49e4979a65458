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
        case .escapedString, .fraction, .object, .array, .typed:
            return try? parser.parse(value(k))
        }
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
