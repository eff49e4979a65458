/// Values: literals, `?`, arrays, object literals and function calls.
extension CQLParserState {
    /// One value; `what` names it in the error when none is there
    /// (`expected a value after '=', found 'from'`). Returns the term and its range.
    mutating func parseTerm(expected what: String) throws(QueryError) -> (Term, SourceRange) {
        let t = current
        switch t.kind {
        case .string, .integer, .decimal:
            advance()
            return (.value(t.value ?? .null), t.range)
        case .minus, .plus:
            let n = peek(1)
            guard n.kind == .integer || n.kind == .decimal, let v = n.value else { break }
            advance()
            advance()
            let r = range(from: t.range.start)
            guard t.kind == .minus else { return (.value(v), r) }
            switch v {
            case .int(let i):
                let (neg, overflow) = Int64(0).subtractingReportingOverflow(i)
                if overflow { throw QueryError(.invalidValue, "integer -\(n.text) does not fit in 64 bits", range: r) }
                return (.value(.int(neg)), r)
            case .double(let d): return (.value(.double(-d)), r)
            default: break
            }
        case .placeholder:
            advance()
            placeholders += 1
            return (.placeholder(index: placeholders - 1, range: t.range), t.range)
        case .keyword:
            switch t.word {
            case "null": advance(); return (.value(.null), t.range)
            case "true": advance(); return (.value(.bool(true)), t.range)
            case "false": advance(); return (.value(.bool(false)), t.range)
            default: break
            }
        case .leftBracket:
            let items = try parseTermList(closing: .rightBracket, what: "array")
            return (CQLParserState.arrayTerm(items.map(\.0)), range(from: t.range.start))
        case .leftBrace:
            return try parseObjectLiteral()
        case .identifier where peek(1).kind == .leftParen:
            return try parseCall()
        case .identifier, .quotedIdentifier:
            throw QueryError(.syntax, "expected \(what) after \(previousText), found '\(CQLToken.clip(t.text))' (keys cannot be operands; quote strings: '\(CQLToken.clip(t.name))')",
                             range: t.range)
        default:
            break
        }
        throw fail(expected: "\(what) after \(previousText)")
    }

    /// `[a, b]` is a constant array when every element is a value.
    static func arrayTerm(_ items: [Term]) -> Term {
        var values: [Value] = []
        values.reserveCapacity(items.count)
        for item in items {
            guard case .value(let v) = item else { return .array(items) }
            values.append(v)
        }
        return .value(.array(values))
    }

    /// `( a, b )` or `[ a, b ]` (empty allowed), starting at the opening token.
    mutating func parseTermList(closing: CQLToken.Kind, what: String) throws(QueryError) -> [(Term, SourceRange)] {
        let open = advance()
        try enter(open)
        let close = closing == .rightParen ? "')'" : "']'"
        var items: [(Term, SourceRange)] = []
        if current.kind == closing {
            advance()
            leave()
            return items
        }
        while true {
            items.append(try parseTerm(expected: "a value"))
            if current.kind == .comma { advance(); continue }
            guard current.kind == closing else {
                if current.kind == .end {
                    throw fail(expected: "',' or \(close) to close the \(what) opened at \(position(of: open.range.start))")
                }
                throw fail(expected: "',' or \(close) in the \(what)")
            }
            advance()
            break
        }
        leave()
        return items
    }

    /// `{key: value, 'key': value}`: a constant JSON object whose REST typed
    /// values (`{__type: 'Pointer', ...}`) are decoded; decoding errors point
    /// at the member they are about.
    mutating func parseObjectLiteral() throws(QueryError) -> (Term, SourceRange) {
        let open = advance()
        try enter(open)
        var members: [String: Value] = [:]
        var ranges: [String: SourceRange] = [:]
        if current.kind == .rightBrace {
            advance()
        } else {
            while true {
                let keyToken = current
                let key: String
                switch keyToken.kind {
                case .identifier, .keyword: key = keyToken.text
                case .quotedIdentifier, .string: key = keyToken.value?.stringValue ?? keyToken.text
                default: throw fail(expected: "a key in the object literal")
                }
                advance()
                if members[key] != nil {
                    throw QueryError(.syntax, "duplicate key '\(CQLToken.clip(key))' in the object literal", range: keyToken.range)
                }
                guard current.kind == .colon else { throw fail(expected: "':' after the key '\(CQLToken.clip(key))'") }
                advance()
                let (term, r) = try parseTerm(expected: "a value")
                guard case .value(let v) = term else {
                    let found = term == .currentTimestamp ? "current_timestamp()" : "a placeholder"
                    throw QueryError(.syntax, "an object literal can only hold constants, found \(found)", range: r)
                }
                members[key] = v
                ranges[key] = r
                if current.kind == .comma { advance(); continue }
                guard current.kind == .rightBrace else {
                    if current.kind == .end {
                        throw fail(expected: "',' or '}' to close the object opened at \(position(of: open.range.start))")
                    }
                    throw fail(expected: "',' or '}' in the object literal")
                }
                advance()
                break
            }
        }
        leave()
        let whole = range(from: open.range.start)
        do {
            return (.value(try Value.object(members).decodingTypedValues()), whole)
        } catch {
            // The decoder's path is relative to this object: its first step names the member.
            var r = whole
            if let path = error.path {
                let first = path.prefix { $0 != "." && $0 != "[" }
                r = ranges[String(first)] ?? whole
            }
            throw QueryError(error.kind, error.message, range: r)
        }
    }

    /// `name(args)`: a typed-value function. Constant arguments are folded
    /// into a value now; otherwise a `.call` for the binder.
    mutating func parseCall() throws(QueryError) -> (Term, SourceRange) {
        let nameToken = advance()
        let function = TypedFunctions.named(nameToken.word)
        guard function != nil || nameToken.word == "current_timestamp" else {
            throw QueryError(.syntax, "unknown function '\(CQLToken.clip(nameToken.text))'; CQL has \(TypedFunctions.allNames)",
                             range: nameToken.range)
        }
        let args = try parseTermList(closing: .rightParen, what: "argument list")
        let callRange = range(from: nameToken.range.start)
        guard let function else {
            guard args.isEmpty else {
                throw QueryError(.syntax, "current_timestamp() takes no arguments, found \(args.count)", range: callRange)
            }
            return (.currentTimestamp, callRange)
        }
        guard args.count == TypedFunctions.parameters(of: function).count else {
            throw QueryError(.syntax, TypedFunctions.arityMessage(function, found: args.count), range: callRange)
        }
        var values: [Value] = []
        for (i, (term, r)) in args.enumerated() {
            switch term {
            case .value(let v): values.append(try TypedFunctions.checkArgument(function, i, v, range: r))
            case .placeholder: break
            default:
                throw QueryError(.invalidValue, "the arguments of \(function.rawValue)() must be literals or '?', found \(sourceText(r))", range: r)
            }
        }
        if values.count == args.count {
            let v = try TypedFunctions.evaluate(function, values, argRanges: args.map(\.1), callRange: callRange)
            return (.value(v), callRange)
        }
        return (.call(function, args.map(\.0), range: callRange), callRange)
    }
}
