/// Parses one JSON text after another — the lines of an NDJSON file — with
/// the reader's buffers kept from one text to the next (allocating and
/// freeing them per line was a measurable share of reading a data file).
///
/// Each call is ``JSONReader/parse(bytes:maxDepth:decodingTypedValues:keepingOnly:)``;
/// not thread-safe (one parser per thread).
///
/// ```swift
/// let parser = JSONLineParser(decodingTypedValues: true)
/// try parser.parse(line)   // .object([...]) for each line
/// ```
package final class JSONLineParser {
    private let maxDepth: Int
    private let decodesTypedValues: Bool
    private let members = JSONMemberStack()

    package init(maxDepth: Int = JSONReader.defaultMaxDepth, decodingTypedValues: Bool = false) {
        self.maxDepth = maxDepth
        self.decodesTypedValues = decodingTypedValues
    }

    /// One JSON text; `keepingOnly` as for ``JSONReader``.
    package func parse(_ bytes: UnsafeBufferPointer<UInt8>, keepingOnly filter: JSONKeyFilter? = nil) throws(QueryError) -> Value {
        try JSONReader.parse(bytes: bytes, maxDepth: maxDepth, decodingTypedValues: decodesTypedValues, keepingOnly: filter,
                             members: members)
    }
}
