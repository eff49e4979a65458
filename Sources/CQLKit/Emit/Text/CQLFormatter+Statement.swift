extension CQLFormatter {
    /// The canonical text of a statement: a query as ``format(_:)`` writes
    /// it; writes with lowercase keywords, `key = value` with single spaces,
    /// ops as `op('Name', {'member': value})`, and the condition as
    /// `where objectId = 'x' [and ...]`. `CQLParser.parseStatement(format(s)) == s`.
    ///
    /// ```swift
    /// let s = try CQLParser.parseStatement("UPDATE Account SET account=op('Decrement',{amount:50}) WHERE amount>=100 AND objectId='5'")
    /// try CQLFormatter.format(s)
    /// // update Account set account = op('Decrement', {'amount': 50}) where objectId = '5' and amount >= 100
    /// ```
    public static func format(_ statement: Statement) throws(QueryError) -> String {
        if case .select(let q) = statement { return try format(q) }
        do throws(QueryError) {
            var w = CQLWriter()
            try w.write(statement)
            if w.placeholders != Array(0..<w.placeholders.count) {
                throw QueryError(.unsupported, "the placeholders are not in text order (\(w.placeholders.map { "#\($0 + 1)" }.joined(separator: ", "))), which CQL's positional '?' cannot express",
                                 range: statement.range)
            }
            return w.out
        } catch {
            throw statement.source.map { error.withSource($0) } ?? error
        }
    }
}

extension CQLWriter {
    mutating func write(_ statement: Statement) throws(QueryError) {
        switch statement {
        case .select(let q):
            try self.statement(q, .top, depth: 0)
        case .insert(let s):
            out += "insert into " + (try CQLLiterals.name(s.className, range: s.range)) + "("
            var names: [String] = []
            for c in s.columns { names.append(try CQLLiterals.name(c.name, range: s.range)) }
            out += names.joined(separator: ", ") + ") values "
            for (i, row) in s.rows.enumerated() {
                if i > 0 { out += ", " }
                try list(row, "(", ")", at: s.range)
            }
        case .update(let s):
            out += "update " + (try CQLLiterals.name(s.className, range: s.range)) + " set "
            for (i, a) in s.assignments.enumerated() {
                if i > 0 { out += ", " }
                out += try CQLLiterals.name(a.key.name, range: a.range) + " = "
                switch a.change {
                case .set(let t): try term(t, at: a.range)
                case .operation(let op): try operation(op, at: a.range)
                }
            }
            try writeWhere(s.objectId, s.condition, range: s.range)
        case .delete(let s):
            out += "delete from " + (try CQLLiterals.name(s.className, range: s.range))
            try writeWhere(s.objectId, s.condition, range: s.range)
        }
    }

    /// `op('Name')` or `op('Name', {'member': value})`.
    mutating func operation(_ op: FieldOperation, at r: SourceRange?) throws(QueryError) {
        out += "op(" + CQLLiterals.string(op.kind.rawValue)
        if let name = op.kind.argumentName, let arg = op.argument {
            out += ", {" + CQLLiterals.string(name) + ": "
            try term(arg, at: op.range ?? r)
            out += "}"
        }
        out += ")"
    }

    /// ` where objectId = x [and cond]`: the objectId first, as the REST
    /// path names it before the `where` (unless `?` order says otherwise).
    mutating func writeWhere(_ objectId: Term, _ condition: Condition?, range: SourceRange?) throws(QueryError) {
        let id = Condition(.compare(FieldPath(["objectId"]), .equal, objectId), range: range)
        out += " where "
        guard let condition else { return try self.condition(id, depth: 1) }
        // `?`s are positional: the objectId conjunct goes first, unless its
        // `?` came after some of the condition's, then right after the last
        // conjunct holding an earlier `?` (the parser takes the objectId
        // conjunct from anywhere among the top-level `and`s).
        var items: [Condition]
        if case .and(let inner) = condition.predicate { items = inner } else { items = [condition] }
        var at = 0
        if case .placeholder(let i, _) = objectId {
            for (k, item) in items.enumerated() {
                PlaceholderScan.visit(item) { j, _ in if j < i { at = k + 1 } }
            }
        }
        items.insert(id, at: at)
        try self.condition(Condition(.and(items), range: range), depth: 1)
    }
}
