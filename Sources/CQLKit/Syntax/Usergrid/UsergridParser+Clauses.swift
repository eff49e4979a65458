/// The clauses around the condition: `select`, `direct`, `order by`, and the
/// error for whatever is left over.
extension UsergridParserState {
    /// `*` | `a, b.c` | `{source:alias, ...}`.
    mutating func parseSelectExpression(after select: UsergridToken) throws(QueryError) -> [SelectedKey] {
        switch current.kind {
        case .star:
            advance()
            if at(.comma) {
                throw error("'*' selects every property and cannot be combined with others", current)
            }
            return []
        case .leftBrace:
            advance()
            var keys: [SelectedKey] = []
            repeat {
                if !keys.isEmpty { advance() }
                let source = try parseProperty(what: "'property:alias' in '{...}'")
                guard at(.colon) else {
                    throw error("expected ':' and an alias after '\(source.dotted)' in '{...}', found \(Self.describe(current))", current)
                }
                advance()
                let alias = current
                guard alias.kind == .identifier else {
                    throw error("expected an alias name after ':', found \(Self.describe(alias))", alias)
                }
                advance()
                keys.append(SelectedKey(source, alias: alias.text))
            } while at(.comma)
            guard at(.rightBrace) else {
                throw error("expected ',' or '}' in '{...}', found \(Self.describe(current))", current)
            }
            advance()
            return keys
        case .identifier where !atOrderBy:
            var keys = [SelectedKey(try parseProperty(what: "a property name"))]
            while at(.comma) {
                advance()
                keys.append(SelectedKey(try parseProperty(what: "a property name after ','")))
            }
            return keys
        default:
            throw error(
                "expected '*', property names or '{source:alias}' after 'select', found \(Self.describe(current))",
                current)
        }
    }

    /// `direct name, uuid, 'quoted name', ...`: the entities to read.
    mutating func parseDirect() throws(QueryError) -> [Value] {
        advance()
        var names: [Value] = []
        repeat {
            if !names.isEmpty { advance() }
            let t = current
            switch t.kind {
            case .identifier where !atOrderBy:
                names.append(.string(t.text))
            case .uuid, .string:
                names.append(t.value ?? .string(t.text))
            default:
                throw error("expected an entity name or UUID after '\(names.isEmpty ? "direct" : ",")', found \(Self.describe(t))", t)
            }
            advance()
        } while at(.comma)
        return names
    }

    /// `order by k [asc|desc], ...`
    mutating func parseOrder() throws(QueryError) -> [OrderKey] {
        advance()
        advance()
        var keys: [OrderKey] = []
        repeat {
            if !keys.isEmpty { advance() }
            let keyToken = current
            let path = try parseProperty(what: "a property name after '\(keys.isEmpty ? "order by" : ",")'")
            orderRanges.append(keyToken.range)
            var descending = false
            if at(.asc) {
                advance()
            } else if at(.desc) {
                advance()
                descending = true
            }
            keys.append(OrderKey(path, descending: descending))
        } while at(.comma)
        return keys
    }

    /// The error for input left after a complete query (Usergrid silently
    /// drops it: UsergridQL.md, defect 1).
    func trailingError(_ query: Query) -> QueryError {
        let t = current
        if Self.isWord(t, "order") {
            return error("expected 'by' after 'order', found \(Self.describe(peek()))", peek())
        }
        if Self.isWord(t, "limit") {
            return error("Usergrid takes 'limit' as a request parameter, not in ql (use the limit option)", t)
        }
        if Self.isWord(t, "from") {
            return error("Usergrid has no 'from' clause; the collection is the request path (the className option)", t)
        }
        if t.kind == .where || (t.kind == .identifier && !query.direct.isEmpty && peek().kind.isOperator) {
            if !query.direct.isEmpty {
                return error("'direct' reads entities by name or UUID and cannot be combined with a condition", t)
            }
            if query.condition != nil { return error("'where' must come before the condition", t) }
        }
        let expected: String
        if !query.order.isEmpty {
            expected = "',' or the end of the query"
        } else if query.condition != nil {
            expected = "'and', 'or', 'order by' or the end of the query"
        } else if !query.direct.isEmpty {
            expected = "',', 'order by' or the end of the query"
        } else {
            expected = "'where', a condition, 'order by' or the end of the query"
        }
        if t.kind == .rightParen {
            return error("unexpected ')' with no '(' to close; expected \(expected)", t)
        }
        return error("expected \(expected), found \(Self.describe(t))", t)
    }
}
