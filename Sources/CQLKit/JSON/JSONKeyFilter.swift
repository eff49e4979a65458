/// The top-level members to build when reading many JSON objects of which a
/// consumer reads only a few keys (``JSONReader/parse(bytes:maxDepth:decodingTypedValues:keepingOnly:)``).
/// Prepared once, used for every line. A class, so that the reader holds it
/// with one reference (a struct's fields would be retained per object read).
///
/// Why the byte form: deciding whether a member is kept must not cost a
/// String and a hash per key. A key written as plain ASCII (the usual case)
/// is compared byte for byte with the kept keys, and a kept key's String is
/// shared rather than built again. That is exact only when every kept key is
/// ASCII: Swift compares Strings by canonical equivalence, under which two
/// different ASCII strings are never equal, but an ASCII key can equal a
/// non-ASCII one (`"K"` and the Kelvin sign `"\u{212A}"`). Otherwise, and for
/// keys with escapes or non-ASCII bytes, the key is built and looked up in
/// the set.
///
/// ```swift
/// let filter = JSONKeyFilter(["score"])
/// try JSONReader.parse(bytes: line, keepingOnly: filter)   // {"objectId":"a","score":90} → .object(["score": 90])
/// ```
package final class JSONKeyFilter: Sendable {
    /// The keys kept.
    package let keys: Set<String>
    /// Whether every kept key is ASCII, so ``keptKey(ascii:)`` applies.
    let allASCII: Bool
    /// The kept keys as UTF-8 with their Strings.
    private let asciiKeys: [(bytes: [UInt8], key: String)]

    package init(_ keys: Set<String>) {
        self.keys = keys
        asciiKeys = keys.map { (bytes: Array($0.utf8), key: $0) }
        allASCII = asciiKeys.allSatisfy { $0.bytes.allSatisfy { $0 < 0x80 } }
    }

    /// The kept key spelled by `raw` (plain ASCII bytes between quotes), or
    /// `nil` when its member is dropped. Only when ``allASCII``.
    @inline(__always)
    func keptKey(ascii raw: UnsafeBufferPointer<UInt8>) -> String? {
        for k in asciiKeys where k.bytes.count == raw.count {
            var equal = true
            for i in 0..<raw.count where raw[i] != k.bytes[i] {
                equal = false
                break
            }
            if equal { return k.key }
        }
        return nil
    }
}
