/// Write statements: `insert into`, `update ... set`, `delete from` (CQL.md, "Writes: insert, update, delete").
extension CQLParserState {
    /// Whether the current token is the contextual word `w` (lowercase), for
    /// the words only DML gives a meaning (`into`, `values`, `set`, `op`).
    func isDMLWord(_ w: String) -> Bool { kind == .identifier && current.word == w }

    /// A class name after `what` (`'into'`, `'update'`, `'from'`).
    @inline(never)
    func parseClassName(after what: String) throws -> String {
        guard isName() else { throw failName(expected: "a class name after \(what)") }
        return advanceName()
    }

    // MARK: insert

    /// `insert into T(a, b) values (1, 'x') [, (2, 'y')]`.
    @inline(never)
    func parseInsert() throws -> InsertStatement {
        let begin = start
        skip()
        guard isDMLWord("into") else { throw fail(expected: "'into' after 'insert'") }
        skip()
        let className = try parseClassName(after: "'into'")
        guard kind == .leftParen else { throw fail(expected: "'(' and the column names after the class name") }
        let open = start
        skip()
        var columns: [NamedKey] = []
        while true {
            columns.append(try parseWriteKey(expected: columns.isEmpty ? "a column name" : "a column name after ','", existing: columns, what: "column"))
            if kind == .comma { skip(); continue }
            guard kind == .rightParen else { throw unclosed("',' or ')'", "column list", openedAt: open) }
            skip()
            break
        }
        guard isDMLWord("values") else { throw fail(expected: "'values' after the column list") }
        skip()
        var rows: [[Term]] = []
        while true {
            guard kind == .leftParen else {
                throw fail(expected: rows.isEmpty ? "'(' and the values after 'values'" : "'(' and the values of another row after ','")
            }
            rows.append(try parseRow(columns: columns, number: rows.count + 1))
            guard kind == .comma else { break }
            skip()
        }
        return InsertStatement(className: className, columns: columns, rows: rows, range: range(from: begin))
    }

    /// A key to write: a plain name, not a built-in key, not given twice.
    @inline(never)
    func parseWriteKey(expected what: String, existing: [NamedKey], what kindName: String) throws -> NamedKey {
        guard isName() else { throw failName(expected: what) }
        let t = advance()
        if kind == .dot {
            throw syntax("a \(kindName) is a plain key: nested keys ('\(CQLToken.clip(t.name)).…') cannot be written by CQL", at: SourceRange(t.range.start, current.range.end))
        }
        try WriteChecks.writableKey(t.name, range: t.range)
        if let first = existing.first(where: { $0.name == t.name }) {
            let at = first.range.map { " (first at \(position(of: $0.start)))" } ?? ""
            throw syntax("the \(kindName) '\(CQLToken.clip(t.name))' is given twice\(at)", at: t.range)
        }
        return NamedKey(t.name, range: t.range)
    }

    /// `(v1, v2, ...)`: one value per column.
    @inline(never)
    func parseRow(columns: [NamedKey], number: Int) throws -> [Term] {
        let open = start
        try enter()
        skip()
        var values: [Term] = []
        var ranges: [SourceRange] = []
        if kind != .rightParen {
            while true {
                let (t, r) = try parseStoredValue()
                values.append(t)
                ranges.append(r)
                if kind == .comma { skip(); continue }
                guard kind == .rightParen else { throw unclosed("',' or ')'", "row of values", openedAt: open) }
                break
            }
        }
        skip()
        leave()
        let whole = range(from: open)
        if values.count != columns.count {
            let row = number == 1 ? "the row" : "row \(number)"
            let v = values.count == 1 ? "1 value" : "\(values.count) values"
            let c = columns.count == 1 ? "1 column" : "\(columns.count) columns"
            let at = values.count > columns.count ? ranges[columns.count] : whole
            throw QueryError(.syntax, "\(row) has \(v) but there \(columns.count == 1 ? "is" : "are") \(c)", range: at)
        }
        return values
    }

    /// A value to store: any term, but not `op(...)`, which only `update ... set` takes.
    @inline(never)
    func parseStoredValue() throws -> (Term, SourceRange) {
        if isDMLWord("op") && kind(at: 1) == .leftParen {
            throw syntaxHere("op(...) is an update operation: it can only be the value of 'set key = op(...)' in an update")
        }
        let (t, r) = try parseTerm(expected: "a value")
        if case .value(let v) = t { try WriteChecks.settable(v, range: r) }
        return (t, r)
    }

    // MARK: update

    /// `update T set k = v | op(...) [, ...] where objectId = x [and cond]`.
    @inline(never)
    func parseUpdate() throws -> UpdateStatement {
        let begin = start
        skip()
        let className = try parseClassName(after: "'update'")
        guard isDMLWord("set") else { throw fail(expected: "'set' after the class name") }
        skip()
        var assignments: [Assignment] = []
        while true {
            let keys = assignments.map(\.key)
            let key = try parseWriteKey(expected: assignments.isEmpty ? "a key after 'set'" : "a key after ','", existing: keys, what: "key")
            guard kind == .equal else { throw fail(expected: "'=' after the key '\(CQLToken.clip(key.name))'") }
            skip()
            let change: Assignment.Change
            if isDMLWord("op") && kind(at: 1) == .leftParen {
                change = .operation(try parseOperation())
            } else {
                change = .set(try parseStoredValue().0)
            }
            assignments.append(Assignment(key, change, range: range(from: key.range?.start ?? begin)))
            guard kind == .comma else { break }
            skip()
        }
        let (objectId, idRange, condition) = try parseWriteWhere(verb: "update")
        return UpdateStatement(className: className, assignments: assignments, objectId: objectId, condition: condition,
                               range: range(from: begin), objectIdRange: idRange)
    }

    /// `op('Name')` or `op('Name', {arg: value})`; arguments may be `?`.
    @inline(never)
    func parseOperation() throws -> FieldOperation {
        let begin = start
        skip()
        skip()  // '('
        guard kind == .string, case .string(let name)? = current.value else {
            throw fail(expected: "the op name as a string ('Increment', 'Add', ...) after 'op('")
        }
        let nameRange = current.range
        guard let opKind = FieldOperation.Kind.named(name) else { throw unknownOperation(name, at: nameRange) }
        skip()
        var argument: Term?
        if kind == .comma {
            skip()
            argument = try parseOperationArgument(opKind)
        } else if opKind != .delete {
            throw fail(expected: "',' and the argument {\(opKind.argumentName ?? ""): ...} of op('\(opKind.rawValue)')")
        }
        guard kind == .rightParen else { throw fail(expected: "')' to close op(") }
        skip()
        return FieldOperation(opKind, argument: argument, range: range(from: begin))
    }

    @inline(never)
    func unknownOperation(_ name: String, at r: SourceRange) -> any Error {
        let all = FieldOperation.Kind.allCases.map(\.rawValue)
        if let match = all.first(where: { $0.lowercased() == name.lowercased() }) {
            return syntax("unknown op '\(CQLToken.clip(name))': op names are case-sensitive, write '\(match)'", at: r)
        }
        return syntax("unknown op '\(CQLToken.clip(name))'; the ops are \(CQLParserState.list(all))", at: r)
    }

    /// `{amount: 1}`, `{'objects': [...]}`, `{value: ?}`: exactly the member
    /// the op takes (none for Delete: `{}`). Returns `nil` for Delete.
    @inline(never)
    func parseOperationArgument(_ opKind: FieldOperation.Kind) throws -> Term? {
        guard kind == .leftBrace else {
            let member = opKind.argumentName.map { "{'\($0)': ...}" } ?? "{}"
            throw fail(expected: "the argument object \(member) of op('\(opKind.rawValue)')")
        }
        let open = start
        try enter()
        skip()
        var argument: (Term, SourceRange)?
        if kind != .rightBrace {
            while true {
                let keyToken = current
                let key = try parseMemberKey(existing: [:])
                guard let expected = opKind.argumentName, key == expected else {
                    let takes = opKind.argumentName.map { "only '\($0)'" } ?? "no argument"
                    throw syntax("op('\(opKind.rawValue)') takes \(takes), found '\(CQLToken.clip(key))'", at: keyToken.range)
                }
                if argument != nil { throw syntax("duplicate key '\(key)' in the argument of op('\(opKind.rawValue)')", at: keyToken.range) }
                argument = try parseTerm(expected: "a value")
                if kind == .comma { skip(); continue }
                guard kind == .rightBrace else { throw unclosed("',' or '}'", "argument object", openedAt: open) }
                break
            }
        }
        skip()
        leave()
        guard let name = opKind.argumentName else { return nil }
        guard let (term, r) = argument else {
            throw syntax("op('\(opKind.rawValue)') needs '\(name)' (\(opKind.argumentDescription))", at: range(from: open))
        }
        switch term {
        case .value(let v): return .value(try WriteChecks.argument(opKind, v, range: r))
        case .placeholder: return term
        case .array where name == "objects": return term
        default:
            throw QueryError(.invalidValue, "op('\(opKind.rawValue)') needs \(opKind.argumentDescription) as '\(name)'", range: r)
        }
    }

    // MARK: delete

    /// `delete from T where objectId = x [and cond]`.
    @inline(never)
    func parseDelete() throws -> DeleteStatement {
        let begin = start
        skip()
        guard isKeyword(.from) else { throw fail(expected: "'from' after 'delete'") }
        skip()
        let className = try parseClassName(after: "'from'")
        let (objectId, idRange, condition) = try parseWriteWhere(verb: "delete")
        return DeleteStatement(className: className, objectId: objectId, condition: condition, range: range(from: begin),
                               objectIdRange: idRange)
    }

    // MARK: where objectId = ...

    /// `where objectId = x [and cond]`: the `objectId =` conjunct may stand
    /// anywhere among the top-level `and`s; the others form the extra condition.
    @inline(never)
    func parseWriteWhere(verb: String) throws -> (Term, SourceRange?, Condition?) {
        guard isKeyword(.where) else {
            throw fail(expected: "'where objectId = ...': \(verb) writes one object, named by its objectId (no bulk writes)")
        }
        skip()
        let condition = try parseCondition()
        return try CQLParserState.splitObjectId(condition, verb: verb)
    }

    /// The `objectId = x` conjunct of a write's condition and the rest.
    static func splitObjectId(_ c: Condition, verb: String) throws -> (Term, SourceRange?, Condition?) {
        var items: [Condition]
        if case .and(let inner) = c.predicate { items = inner } else { items = [c] }
        guard let i = items.firstIndex(where: { item in
            if case .compare(let p, .equal, _) = item.predicate, p.components == ["objectId"] { return true }
            return false
        }), case .compare(_, _, let id) = items[i].predicate else {
            throw QueryError(.syntax, "\(verb) needs an 'objectId = ...' condition joined by 'and' at the top level of 'where': it writes one object (no bulk writes)",
                             range: c.range)
        }
        let idRange = items[i].range
        switch id {
        case .value(let v): try WriteChecks.objectId(v, range: idRange)
        case .placeholder: break
        default: throw QueryError(.invalidValue, "objectId must be a string or '?'", range: idRange)
        }
        items.remove(at: i)
        let rest: Condition? = items.isEmpty ? nil : (items.count == 1 ? items[0] : Condition(.and(items), range: Condition.span(items)))
        return (id, idRange, rest)
    }
}
