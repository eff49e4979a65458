/// Deterministic JSON output: object keys sorted by code point, integers
/// exact, doubles in their shortest round-trip form (always with a `.` or an
/// exponent, so they read back as doubles), typed values in their REST form.
///
/// ```swift
/// JSONWriter.string(.object(["b": .int(1), "a": .double(2)]))
/// // {"a":2.0,"b":1}
/// JSONWriter.string(.object(["a": .array([.int(1)])]), pretty: true)
/// // {
/// //   "a": [
/// //     1
/// //   ]
/// // }
/// ```
public enum JSONWriter {
    /// The JSON text of `value`.
    public static func string(_ value: Value, pretty: Bool = false) -> String {
        var out: [UInt8] = []
        out.reserveCapacity(64)
        write(value, to: &out, pretty: pretty)
        return String(decoding: out, as: UTF8.self)
    }

    /// Appends the JSON text of `value` to `out`.
    public static func write(_ value: Value, to out: inout [UInt8], pretty: Bool = false) {
        emit(value, &out, pretty ? 0 : -1)
    }

    private static func newline(_ out: inout [UInt8], _ indent: Int) {
        out.append(0x0A)
        for _ in 0..<indent { out.append(0x20); out.append(0x20) }
    }

    /// `indent < 0` means compact.
    private static func emit(_ value: Value, _ out: inout [UInt8], _ indent: Int) {
        switch value {
        case .null: out.append(contentsOf: "null".utf8)
        case .bool(let b): out.append(contentsOf: (b ? "true" : "false").utf8)
        case .int(let i): appendInteger(i, &out)
        case .double(let d): out.append(contentsOf: doubleText(d).utf8)
        case .string(let s): writeString(s, &out)
        case .array(let items):
            if items.isEmpty { out.append(contentsOf: "[]".utf8); return }
            out.append(UInt8(ascii: "["))
            for (n, item) in items.enumerated() {
                if n > 0 { out.append(UInt8(ascii: ",")) }
                if indent >= 0 { newline(&out, indent + 1) }
                emit(item, &out, indent >= 0 ? indent + 1 : -1)
            }
            if indent >= 0 { newline(&out, indent) }
            out.append(UInt8(ascii: "]"))
        case .object(let dict):
            if dict.count == 1, let only = dict.first {
                // One member (most operator objects): nothing to sort.
                emitObject(CollectionOfOne(only), &out, indent)
                return
            }
            // Sorting the dictionary's indices moves no key or value (sorting
            // (key, value) pairs copied each through generic value witnesses).
            var order = Array(dict.indices)
            order.sort { utf8Precedes(dict.keys[$0], dict.keys[$1]) }
            emitObject(order.lazy.map { dict[$0] }, &out, indent)
        default:
            let members = TypedValueCoding.restFields(of: value).sorted { utf8Precedes($0.0, $1.0) }
            emitObject(members.lazy.map { (key: $0.0, value: $0.1) }, &out, indent)
        }
    }

    private static func emitObject(
        _ sorted: some Collection<(key: String, value: Value)>, _ out: inout [UInt8], _ indent: Int
    ) {
        if sorted.isEmpty { out.append(contentsOf: "{}".utf8); return }
        out.append(UInt8(ascii: "{"))
        for (n, (k, v)) in sorted.enumerated() {
            if n > 0 { out.append(UInt8(ascii: ",")) }
            if indent >= 0 { newline(&out, indent + 1) }
            writeString(k, &out)
            out.append(UInt8(ascii: ":"))
            if indent >= 0 { out.append(0x20) }
            emit(v, &out, indent >= 0 ? indent + 1 : -1)
        }
        if indent >= 0 { newline(&out, indent) }
        out.append(UInt8(ascii: "}"))
    }

    /// Shortest round-trip text; always reads back as a double (`2.0`, `1e-05`).
    /// Non-finite doubles have no JSON form and print as `null`.
    static func doubleText(_ d: Double) -> String {
        guard d.isFinite else { return "null" }
        var s = d.description
        if s.hasSuffix(".0"), let i = Int64(exactly: d), abs(i) >= 1_000_000_000_000_000 {
            s = String(i) + ".0"
        }
        return s
    }

    /// Code point (UTF-8 byte) order of keys.
    @inline(__always)
    static func utf8Precedes(_ a: String, _ b: String) -> Bool { CodePointOrder.compare(a, b) < 0 }

    /// Decimal digits straight into `out` (no String per integer).
    static func appendInteger(_ i: Int64, _ out: inout [UInt8]) {
        // Up to three digits (most limits and operands) byte by byte: cheaper than the buffer append below.
        if i >= 0 && i < 1000 {
            if i >= 100 { out.append(UInt8(truncatingIfNeeded: i / 100) &+ 0x30) }
            if i >= 10 { out.append(UInt8(truncatingIfNeeded: i / 10 % 10) &+ 0x30) }
            out.append(UInt8(truncatingIfNeeded: i % 10) &+ 0x30)
            return
        }
        if i < 0 { out.append(UInt8(ascii: "-")) }
        var m = i.magnitude
        var digits: (UInt64, UInt64, UInt64) = (0, 0, 0)  // 24 bytes: room for Int64's 19 digits
        withUnsafeMutableBytes(of: &digits) { buf in
            var first = buf.count
            repeat {
                first -= 1
                buf[first] = UInt8(truncatingIfNeeded: m % 10) &+ 0x30
                m /= 10
            } while m > 0
            out.append(contentsOf: UnsafeRawBufferPointer(rebasing: buf[first...]))
        }
    }

    private static let hex: [UInt8] = Array("0123456789abcdef".utf8)

    static func writeString(_ s: String, _ out: inout [UInt8]) {
        out.append(UInt8(ascii: "\""))
        writeStringBody(s, &out)
        out.append(UInt8(ascii: "\""))
    }

    /// The escaped characters of `s` without the quotes, for writers that
    /// build one JSON string from several pieces (a comma-separated key list).
    static func writeStringBody(_ s: String, _ out: inout [UInt8]) {
        let done: Void? = s.utf8.withContiguousStorageIfAvailable { bytes in
            // A short string (keys, most values) is checked byte by byte: the
            // word-at-a-time scan costs more to set up than it saves there.
            if bytes.count <= 32, bytes.allSatisfy({ $0 >= 0x20 && $0 != 0x22 && $0 != 0x5C && $0 != 0x7F }) {
                out.append(contentsOf: bytes)
            } else {
                appendEscaped(bytes, &out)
            }
        }
        if done == nil { Array(s.utf8).withUnsafeBufferPointer { appendEscaped($0, &out) } }
    }

    /// The string body: written eight bytes at a time into a scratch
    /// buffer with room for the worst case (every byte `\u00XX`), the first
    /// byte needing an escape found in each word from its mask, then
    /// appended to `out` at once.
    ///
    /// Why: `translate --to sql` writes SQL text holding a `"` every dozen
    /// bytes (quoted names and JSON paths); finding each run and appending
    /// it to the array on its own cost more than the copying.
    private static func appendEscaped(_ bytes: UnsafeBufferPointer<UInt8>, _ out: inout [UInt8]) {
        guard let src = bytes.baseAddress else { return }
        let n = bytes.count
        // On the stack when small (Swift decides), so short strings pay no allocation.
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: n * 6 + 8) { scratch in
            appendEscaped(src, n, scratch.baseAddress!, &out)
        }
    }

    private static func appendEscaped(
        _ src: UnsafePointer<UInt8>, _ n: Int, _ dst: UnsafeMutablePointer<UInt8>, _ out: inout [UInt8]
    ) {
        var i = 0, j = 0
        while i < n {
            if i + 8 <= n {
                let w = UnsafeRawPointer(src + i).loadUnaligned(as: UInt64.self)
                // The word is stored whole: the bytes after an escaped one
                // are overwritten as they are written.
                UnsafeMutableRawPointer(dst + j).storeBytes(of: w, as: UInt64.self)
                let special = JSONStringScan.escapedBytes(UInt64(littleEndian: w))
                if special == 0 {
                    i += 8
                    j += 8
                    continue
                }
                let k = special.trailingZeroBitCount / 8
                i += k
                j += k
            }
            let b = src[i]
            i += 1
            switch b {
            case UInt8(ascii: "\""), UInt8(ascii: "\\"):
                dst[j] = 0x5C; dst[j + 1] = b; j += 2
            case 0x0A: dst[j] = 0x5C; dst[j + 1] = UInt8(ascii: "n"); j += 2
            case 0x0D: dst[j] = 0x5C; dst[j + 1] = UInt8(ascii: "r"); j += 2
            case 0x09: dst[j] = 0x5C; dst[j + 1] = UInt8(ascii: "t"); j += 2
            case 0x08: dst[j] = 0x5C; dst[j + 1] = UInt8(ascii: "b"); j += 2
            case 0x0C: dst[j] = 0x5C; dst[j + 1] = UInt8(ascii: "f"); j += 2
            case 0..<0x20, 0x7F:
                dst[j] = 0x5C; dst[j + 1] = UInt8(ascii: "u"); dst[j + 2] = UInt8(ascii: "0"); dst[j + 3] = UInt8(ascii: "0")
                dst[j + 4] = hex[Int(b >> 4)]; dst[j + 5] = hex[Int(b & 0xF)]
                j += 6
            default:
                dst[j] = b; j += 1
            }
        }
        out.append(contentsOf: UnsafeBufferPointer(start: dst, count: j))
    }
}
