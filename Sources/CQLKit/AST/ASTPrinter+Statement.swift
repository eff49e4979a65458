extension ASTPrinter {
    /// The dump of a statement: a query as the query dump, a write
    /// with its columns and rows, assignments and ops, objectId and condition.
    ///
    /// ```swift
    /// print(ASTPrinter.describe(try CQLParser.parseStatement(
    ///     "update T set n = op('Increment', {'amount': 1}), s = ? where objectId = 'a1' and n < 10")))
    /// // update T
    /// //   set n: op Increment amount 1
    /// //   set s: ?1
    /// //   objectId: "a1"
    /// //   where: compare n < 10
    /// ```
    public static func describe(_ statement: Statement) -> String {
        var out: [String] = []
        switch statement {
        case .select(let q):
            return describe(q)
        case .insert(let s):
            out.append("insert " + s.className)
            out.append("  columns: " + s.columns.map(\.name).joined(separator: ", "))
            for row in s.rows { out.append("  row: " + row.map(term).joined(separator: ", ")) }
        case .update(let s):
            out.append("update " + s.className)
            for a in s.assignments {
                switch a.change {
                case .set(let t): out.append("  set \(a.key.name): " + term(t))
                case .operation(let op):
                    let arg = op.kind.argumentName.flatMap { name in op.argument.map { " \(name) " + term($0) } } ?? ""
                    out.append("  set \(a.key.name): op \(op.kind.rawValue)" + arg)
                }
            }
            writeTarget(s.objectId, s.condition, into: &out)
        case .delete(let s):
            out.append("delete " + s.className)
            writeTarget(s.objectId, s.condition, into: &out)
        }
        return out.joined(separator: "\n")
    }

    private static func writeTarget(_ id: Term, _ condition: Condition?, into out: inout [String]) {
        out.append("  objectId: " + term(id))
        guard let condition else { return }
        let lines = describe(condition).split(separator: "\n").map { "  " + $0 }
        if let first = lines.first {
            out.append("  where: " + first.drop(while: { $0 == " " }))
            out.append(contentsOf: lines.dropFirst())
        }
    }
}
