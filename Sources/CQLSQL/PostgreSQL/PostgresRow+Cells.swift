import PostgresNIO

extension PostgresRow {
    /// The first column as `PostgresData`, read by iterating the row:
    /// `makeRandomAccess()` copies every cell into an array first.
    var firstData: PostgresData? {
        var cells = makeIterator()
        return cells.next().map(Self.data)
    }

    /// The last column as `PostgresData` (see ``firstData``): the indexes
    /// are walked, and only the last cell is made.
    var lastData: PostgresData? {
        var i = startIndex, last: Index?
        let end = endIndex
        while i < end {
            last = i
            i = index(after: i)
        }
        return last.map { Self.data(self[$0]) }
    }

    /// The first column as the texts of a one-dimensional `text[]` in
    /// PostgreSQL's binary form (`array_agg` of text), in order; `[]` for
    /// SQL NULL (`array_agg` of no rows); nil when it is anything else.
    ///
    /// The binary form: the number of dimensions, a flag, the element type's
    /// OID; per dimension its length and lower bound; then each element as
    /// its length (-1: NULL) and bytes. Every number is a big-endian Int32.
    var aggregatedTexts: [String]? {
        var cells = makeIterator()
        guard let cell = cells.next() else { return nil }
        guard var bytes = cell.bytes else { return [] }
        guard cell.format == .binary, cell.dataType == .textArray,
              let dimensions = bytes.readInteger(as: Int32.self), bytes.readInteger(as: Int32.self) != nil,
              let element = bytes.readInteger(as: UInt32.self), element == PostgresDataType.text.rawValue
        else { return nil }
        if dimensions == 0 { return [] }
        guard dimensions == 1, let length = bytes.readInteger(as: Int32.self), length >= 0, bytes.readInteger(as: Int32.self) != nil
        else { return nil }
        var texts: [String] = []
        texts.reserveCapacity(Int(length))
        for _ in 0..<length {
            guard let size = bytes.readInteger(as: Int32.self), size >= 0, let text = bytes.readString(length: Int(size)) else { return nil }
            texts.append(text)
        }
        return bytes.readableBytes == 0 ? texts : nil
    }

    private static func data(_ cell: PostgresCell) -> PostgresData {
        PostgresData(type: cell.dataType, formatCode: cell.format, value: cell.bytes)
    }
}
