extension JSONReader {
    mutating func parseNumber() throws(QueryError) -> Value {
        let start = pos
        var isInteger = true
        if bytes[pos] == UInt8(ascii: "-") { pos += 1 }
        guard pos < bytes.count, isDigit(bytes[pos]) else { throw error("invalid number", at: start) }
        if bytes[pos] == UInt8(ascii: "0") {
            pos += 1
            if pos < bytes.count && isDigit(bytes[pos]) { throw error("leading zeros are not allowed in numbers", at: start) }
        } else {
            while pos < bytes.count && isDigit(bytes[pos]) { pos += 1 }
        }
        if pos < bytes.count && bytes[pos] == UInt8(ascii: ".") {
            isInteger = false
            pos += 1
            guard pos < bytes.count, isDigit(bytes[pos]) else { throw error("expected digits after '.'", at: pos) }
            while pos < bytes.count && isDigit(bytes[pos]) { pos += 1 }
        }
        if pos < bytes.count && (bytes[pos] == UInt8(ascii: "e") || bytes[pos] == UInt8(ascii: "E")) {
            isInteger = false
            pos += 1
            if pos < bytes.count && (bytes[pos] == UInt8(ascii: "+") || bytes[pos] == UInt8(ascii: "-")) { pos += 1 }
            guard pos < bytes.count, isDigit(bytes[pos]) else { throw error("expected digits in exponent", at: pos) }
            while pos < bytes.count && isDigit(bytes[pos]) { pos += 1 }
        }
        let range = SourceRange(start, pos)
        return try NumberText.value(UnsafeBufferPointer(rebasing: bytes[start..<pos]), isInteger: isInteger, range: range)
    }

    @inline(__always) private func isDigit(_ b: UInt8) -> Bool { b >= 0x30 && b <= 0x39 }
}

/// Conversion of validated number text to a value, shared by the JSON reader
/// and the query lexers.
enum NumberText {
    /// `isInteger` texts become `.int` (error beyond Int64); others `.double`
    /// (error when the magnitude overflows to infinity).
    static func value(_ text: UnsafeBufferPointer<UInt8>, isInteger: Bool, range: SourceRange) throws(QueryError) -> Value {
        if isInteger {
            var negative = false
            var i = 0
            if text[0] == UInt8(ascii: "-") { negative = true; i = 1 }
            var v: Int64 = 0
            while i < text.count {
                let d = Int64(text[i] - 48)
                let (m, o1) = v.multipliedReportingOverflow(by: 10)
                let (s, o2) = negative ? m.subtractingReportingOverflow(d) : m.addingReportingOverflow(d)
                if o1 || o2 {
                    throw QueryError(.invalidValue, "integer \(String(decoding: text, as: UTF8.self)) does not fit in 64 bits", range: range)
                }
                v = s
                i += 1
            }
            return .int(v)
        }
        let s = String(decoding: text, as: UTF8.self)
        guard let d = Double(s), d.isFinite else {
            throw QueryError(.invalidValue, "number \(s) is out of range", range: range)
        }
        return .double(d)
    }
}
