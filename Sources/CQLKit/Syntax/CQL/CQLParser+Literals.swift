/// Values: literals, `?`, arrays, object literals and function calls.
extension CQLParserState {
    /// One value; `what` names it in the error when none is there
    /// (`expected a value after '=', found 'from'`). Returns the term and its range.
    @inline(never)
    func parseTerm(expected what: String) throws -> (Term, SourceRange) {
        switch kind {
        case .string, .integer, .decimal:
            // The usual operand, read here rather than through parseScalar.
            let t = tokens[index]
            let value = list.value(at: index) ?? .null
            skip()
            return (.value(value), SourceRange(t.start, t.end))
        case .leftBracket:
            let begin = start
            let items = try parseTerms(closing: .rightBracket, what: "array")
            return (CQLParserState.arrayTerm(items), range(from: begin))
        case .leftBrace:
            return try parseObjectLiteral()
        case .identifier where kind(at: 1) == .leftParen:
            return try parseCall()
        default:
            return try parseScalar(expected: what)
        }
    }

    /// Strings, numbers (with a separate sign), `?`, `null`, `true`, `false`.
    @inline(never)
    func parseScalar(expected what: String) throws -> (Term, SourceRange) {
        let t = tokens[index]
        let r = SourceRange(t.start, t.end)
        switch t.kind {
        case .string, .integer, .decimal:
            let value = list.value(at: index) ?? .null
            skip()
            return (.value(value), r)
        case .minus, .plus:
            let n = tokens[min(index + 1, tokens.count - 1)]
            guard n.kind == .integer || n.kind == .decimal else { break }
            let numberText = index + 1
            skip()
            skip()
            let r = range(from: t.start)
            if n.kind == .decimal {
                let d = Double(bitPattern: n.payload)
                return (.value(.double(t.kind == .minus ? -d : d)), r)
            }
            let i = Int64(bitPattern: n.payload)
            guard t.kind == .minus else { return (.value(.int(i)), r) }
            let (neg, overflow) = Int64(0).subtractingReportingOverflow(i)
            if overflow { throw QueryError(.invalidValue, "integer -\(list.text(at: numberText)) does not fit in 64 bits", range: r) }
            return (.value(.int(neg)), r)
        case .placeholder:
            skip()
            placeholders += 1
            return (.placeholder(index: placeholders - 1, range: r), r)
        case .keyword:
            switch t.word {
            case .null: skip(); return (.value(.null), r)
            case .true: skip(); return (.value(.bool(true)), r)
            case .false: skip(); return (.value(.bool(false)), r)
            default: break
            }
        case .identifier, .quotedIdentifier:
            throw syntaxHere("expected \(what) after \(previousText), found '\(CQLToken.clip(list.text(at: index)))' (keys cannot be operands; quote strings: '\(CQLToken.clip(list.name(at: index)))')")
        default:
            break
        }
        throw failAfterPrevious(expected: what)
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

    /// `( a, b )` or `[ a, b ]` (empty allowed), starting at the opening
    /// token, with each term's range.
    @inline(never)
    func parseTermList(closing: CQLToken.Kind, what: String) throws -> [(Term, SourceRange)] {
        var items: [(Term, SourceRange)] = []
        try parseTermList(closing: closing, what: what) { items.append($0) }
        return items
    }

    /// The terms of a list, for the lists that keep no ranges (`in`, `all`,
    /// arrays): no array of pairs to make and map.
    @inline(never)
    func parseTerms(closing: CQLToken.Kind, what: String) throws -> [Term] {
        var items: [Term] = []
        items.reserveCapacity(4)
        try parseTermList(closing: closing, what: what) { items.append($0.0) }
        return items
    }

    private func parseTermList(closing: CQLToken.Kind, what: String, _ add: ((Term, SourceRange)) -> Void) throws {
        let open = start
        try enter()
        skip()
        if kind == closing {
            skip()
            leave()
            return
        }
        while true {
            add(try parseTerm(expected: "a value"))
            if kind == .comma { skip(); continue }
            guard kind == closing else { throw unclosed(closing == .rightParen ? "',' or ')'" : "',' or ']'", what, openedAt: open) }
            skip()
            break
        }
        leave()
    }

    /// `{key: value, 'key': value}`: a constant JSON object whose REST typed
    /// values (`{__type: 'Pointer', ...}`) are decoded; decoding errors point
    /// at the member they are about.
    @inline(never)
    func parseObjectLiteral() throws -> (Term, SourceRange) {
        let open = start
        try enter()
        skip()
        var members: [String: Value] = [:]
        var ranges: [String: SourceRange] = [:]
        if kind == .rightBrace {
            skip()
        } else {
            while true {
                let key = try parseMemberKey(existing: members)
                let (term, r) = try parseTerm(expected: "a value")
                guard case .value(let v) = term else { throw nonConstantMember(term, r) }
                members[key] = v
                ranges[key] = r
                if kind == .comma { skip(); continue }
                guard kind == .rightBrace else { throw unclosed("',' or '}'", "object literal", openedAt: open) }
                skip()
                break
            }
        }
        leave()
        let whole = range(from: open)
        return (.value(try CQLParserState.decodeObject(members, ranges: ranges, whole: whole)), whole)
    }

    /// `key:` of an object literal: a word, a backquoted name or a string.
    @inline(never)
    func parseMemberKey(existing: [String: Value]) throws -> String {
        let t = current
        let key: String
        switch t.kind {
        case .identifier, .keyword: key = t.text
        case .quotedIdentifier, .string: key = t.value?.stringValue ?? t.text
        default: throw fail(expected: "a key in the object literal")
        }
        skip()
        if existing[key] != nil { throw syntax("duplicate key '\(CQLToken.clip(key))' in the object literal", at: t.range) }
        guard kind == .colon else { throw fail(expected: "':' after the key '\(CQLToken.clip(key))'") }
        skip()
        return key
    }

    @inline(never)
    func nonConstantMember(_ term: Term, _ r: SourceRange) -> any Error {
        let found = term == .currentTimestamp ? "current_timestamp()" : "a placeholder"
        return syntax("an object literal can only hold constants, found \(found)", at: r)
    }

    /// Decodes REST typed values; the decoder's error path is relative to
    /// this object, so its first step names the member to point at.
    static func decodeObject(_ members: [String: Value], ranges: [String: SourceRange], whole: SourceRange) throws -> Value {
        do {
            return try Value.object(members).decodingTypedValues()
        } catch {
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
    @inline(never)
    func parseCall() throws -> (Term, SourceRange) {
        let begin = start
        let name = current.word
        let function = TypedFunctions.named(name)
        guard function != nil || name == "current_timestamp" else { throw unknownFunction() }
        skip()
        let args = try parseTermList(closing: .rightParen, what: "argument list")
        let callRange = range(from: begin)
        return (try CQLParserState.call(function, args, callRange), callRange)
    }

    @inline(never)
    func unknownFunction() -> any Error {
        syntaxHere("unknown function '\(CQLToken.clip(current.text))'; CQL has \(TypedFunctions.allNames)")
    }

    /// Checks arity and constant arguments; folds a fully constant call.
    static func call(_ function: Term.Function?, _ args: [(Term, SourceRange)], _ callRange: SourceRange) throws -> Term {
        guard let function else {
            guard args.isEmpty else {
                throw QueryError(.syntax, "current_timestamp() takes no arguments, found \(args.count)", range: callRange)
            }
            return .currentTimestamp
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
                throw QueryError(.invalidValue, "the arguments of \(function.rawValue)() must be literals or '?'", range: r)
            }
        }
        if values.count == args.count {
            return .value(try TypedFunctions.evaluate(function, values, argRanges: args.map(\.1), callRange: callRange))
        }
        return .call(function, args.map(\.0), range: callRange)
    }
}
