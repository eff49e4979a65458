/// Operands: key paths, literals, aggregates, placeholders, variables, CAST.
extension NSPredicateParserState {
    /// Seconds from 1970 to 2001-01-01T00:00:00Z, the reference date of
    /// `CAST(n, 'NSDate')` (how Foundation prints dates in `predicateFormat`).
    static let referenceDateMilliseconds: Int64 = 978_307_200_000

    mutating func parseOperand() throws(QueryError) -> NSPredicateOperand {
        let t = current
        switch t.kind {
        case .identifier:
            return try parseKeyPath(first: [advance().text], start: t.range)
        case .string, .integer, .number:
            advance()
            return .constant(t.value!, t.range)
        case .true, .false:
            advance()
            return .constant(.bool(t.kind == .true), t.range)
        case .null:
            advance()
            return .constant(.null, t.range)
        case .self:
            advance()
            if at(.dot) { throw error("SELF.key is not supported; write the key path alone", current) }
            return .self(t.range)
        case .placeholder:
            advance()
            if t.text == "%K" {
                let path = try arguments.keyPath(for: t)
                return try parseKeyPath(first: path, start: t.range)
            }
            if t.text == "%@" { return try arguments.value(for: t) }
            return try arguments.number(for: t, integer: NSPredicateLexer.numericConversion(t.text) ?? false)
        case .variable:
            advance()
            return try arguments.variable(t)
        case .leftBrace:
            return try parseAggregate()
        case .cast:
            return try parseCast()
        case .collectionOperator:
            throw error("a collection operator must follow a key path: k.\(t.text)", t)
        case .reserved:
            throw reservedError(t)
        case .arithmetic:
            throw error("arithmetic ('\(t.text)') is not supported in a query; compute the value first and pass it with %@", t)
        case .leftBracket:
            throw error("'[' here starts nothing; options such as [c] follow an operator (name ==[c] 'x')", t)
        case .end:
            throw error("expected a key path or a value, found the end of the predicate", t)
        default:
            if let first = t.text.utf8.first, NSPredicateLexer.isLetter(first) {
                throw error("'\(t.text)' is a reserved word; escape a key of that name as #\(t.text)", t)
            }
            throw error("expected a key path or a value, found \(describe(t))", t)
        }
    }

    func reservedError(_ t: NSPredicateToken) -> QueryError {
        let word = t.text.uppercased()
        switch word {
        case "SUBQUERY":
            return error("SUBQUERY is not supported; pass a sub-query as a %@ argument: k IN %@ with {\"__type\":\"Query\",...}", t)
        case "FUNCTION":
            return error("FUNCTION is not supported: a query cannot call methods", t)
        case "FETCH":
            return error("FETCH is not supported; pass a sub-query as a %@ argument", t)
        case "FIRST", "LAST", "SIZE":
            return error("'\(t.text)' is a reserved word (index expressions such as k[\(word)] are not supported); "
                         + "escape a key of that name as #\(t.text), and write an array's length as k.@count == n", t)
        default:
            return error("'\(t.text)' is a reserved word; escape a key of that name as #\(t.text)", t)
        }
    }

    /// `a.b.@count`: steps after the first; `@count` only last.
    mutating func parseKeyPath(first: [String], start: SourceRange) throws(QueryError) -> NSPredicateOperand {
        var components = first
        var range = start
        var count = false
        while at(.dot) {
            let dot = advance()
            if count { throw error("@count must be the last step of a key path", dot) }
            switch current.kind {
            case .identifier:
                components.append(current.text)
            case .collectionOperator:
                guard UsergridKeywords.asciiLowercased(current.text) == "@count" else {
                    throw error("the collection operator \(current.text) is not supported; only k.@count == n (an array's length) is", current)
                }
                count = true
            default:
                throw error("expected a key after '.', found \(describe(current))", current)
            }
            range = range.union(advance().range)
        }
        if at(.leftBracket) {
            throw error("index expressions (k[0]) are not supported; write the index as a key step (pass 'k.0' with %K)", current)
        }
        if at(.leftParen) {
            throw error("function calls are not supported; a query compares a key path with a value", current)
        }
        return .keyPath(FieldPath(components), count: count, range)
    }

    /// `{a, b, c}`: constants, or constants and key paths (which only
    /// `c BETWEEN {lo, hi}` takes: ``NSPredicateOperand/keyedAggregate(_:_:)``).
    mutating func parseAggregate() throws(QueryError) -> NSPredicateOperand {
        let open = advance()
        try enter(open)
        var items: [NSPredicateOperand] = []
        if !at(.rightBrace) {
            while true {
                let item = try parseOperand()
                switch item {
                case .constant, .keyPath: items.append(item)
                default:
                    throw QueryError(.syntax, "an aggregate holds constants or key paths, not \(item.description)", range: item.range)
                }
                if at(.comma) { advance(); continue }
                guard at(.rightBrace) else { throw error("expected ',' or '}' in the aggregate, found \(describe(current))", current) }
                break
            }
        }
        let close = advance()
        depth -= 1
        let range = open.range.union(close.range)
        var values: [Value] = []
        for item in items {
            guard case .constant(let v, _) = item else { return .keyedAggregate(items, range) }
            values.append(v)
        }
        return .aggregate(values, range)
    }

    /// `CAST(n, 'NSDate')`: the Date n seconds after 2001-01-01T00:00:00Z.
    mutating func parseCast() throws(QueryError) -> NSPredicateOperand {
        let cast = advance()
        guard at(.leftParen) else { throw error("expected '(' after CAST", current) }
        try enter(advance())
        let operand = try parseOperand()
        depth -= 1
        guard case .constant(let v, _) = operand, let seconds = v.numberValue else {
            throw QueryError(.syntax, "CAST takes a number of seconds since 2001-01-01 (CAST(0, 'NSDate')), found \(operand.description)",
                             range: operand.range)
        }
        guard at(.comma) else { throw error("expected ',' after CAST's number, found \(describe(current))", current) }
        advance()
        let type = current
        guard type.kind == .string, type.value == .string("NSDate") else {
            throw error("only CAST(n, 'NSDate') is supported, found \(describe(type))", type)
        }
        advance()
        guard at(.rightParen) else { throw error("expected ')' to close CAST, found \(describe(current))", current) }
        let close = advance()
        let ms = (seconds * 1000).rounded()
        // Years 0000-9999: what ISO 8601 text (date(), where-JSON) can write.
        guard ms.isFinite, abs(ms) < 8.64e15,
            ISODate.representable.contains(Int64(ms) + Self.referenceDateMilliseconds)
        else {
            throw QueryError(.invalidValue, "CAST(\(seconds), 'NSDate') is outside the range of dates (years 0000 to 9999)", range: cast.range.union(close.range))
        }
        let date = DateValue(millisecondsSince1970: Int64(ms) + Self.referenceDateMilliseconds)
        return .constant(.date(date), cast.range.union(close.range))
    }
}
