import PostgresNIO

extension PostgresRow {
    /// The first column as `PostgresData`, read by iterating the row:
    /// `makeRandomAccess()` copies every cell into an array first (2% of a
    /// Valine page's server CPU, at two calls a row).
    var firstData: PostgresData? {
        var cells = makeIterator()
        return cells.next().map(Self.data)
    }

    /// The last column as `PostgresData` (see ``firstData``).
    var lastData: PostgresData? {
        var last: PostgresCell?
        for cell in self { last = cell }
        return last.map(Self.data)
    }

    private static func data(_ cell: PostgresCell) -> PostgresData {
        PostgresData(type: cell.dataType, formatCode: cell.format, value: cell.bytes)
    }
}
