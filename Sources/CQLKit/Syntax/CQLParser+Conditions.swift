/// `where` conditions: `or` < `and` < `not` < predicate, parentheses.
extension CQLParserState {
    mutating func parseCondition() throws(QueryError) -> Condition {
        var items = [try parseAnd()]
        while current.isKeyword("or") {
            advance()
            items.append(try parseAnd())
        }
        return Condition.or(items)
    }

    mutating func parseAnd() throws(QueryError) -> Condition {
        var items = [try parseNot()]
        while current.isKeyword("and") {
            advance()
            items.append(try parseNot())
        }
        return Condition.and(items)
    }

    /// `not` binds tighter than `and`: `not a = 1 and b = 2` is `(not a = 1) and b = 2`.
    /// A run of `not`s is read in a loop (each counts as a nesting level).
    mutating func parseNot() throws(QueryError) -> Condition {
        var nots: [CQLToken] = []
        while current.isKeyword("not") {
            try enter(current)
            nots.append(advance())
        }
        var c = try parsePrimary()
        for t in nots.reversed() {
            c = Condition.not(c, range: SourceRange(t.range.start, c.range?.end ?? t.range.end))
            leave()
        }
        return c
    }

    mutating func parsePrimary() throws(QueryError) -> Condition {
        guard current.kind == .leftParen else { return try parsePredicate() }
        let open = advance()
        try enter(open)
        var c = try parseCondition()
        guard current.kind == .rightParen else {
            if current.kind == .end {
                throw fail(expected: "')' to close the '(' at \(position(of: open.range.start))")
            }
            throw fail(expected: "'and', 'or' or ')' after the condition")
        }
        advance()
        leave()
        c.range = range(from: open.range.start)
        return c
    }

    // MARK: Predicates

    mutating func parsePredicate() throws(QueryError) -> Condition {
        let start = current
        if start.isWord("related") && peek(1).isName && peek(2).isWord("to") { return try parseRelated() }
        if start.isWord("size") && peek(1).kind == .leftParen { return try parseSize() }
        let path = try parsePath(expected: "a condition after \(previousText)")
        let op = current
        let predicate: Predicate
        switch op.kind {
        case .equal, .notEqual, .less, .lessOrEqual, .greater, .greaterOrEqual:
            advance()
            if (op.kind == .equal || op.kind == .notEqual) && current.kind == .leftParen && peek(1).isKeyword("select") {
                predicate = try parseSubquery(path, negated: op.kind == .notEqual)
            } else {
                let (term, _) = try parseTerm(expected: "a value")
                predicate = .compare(path, CQLParserState.comparison(op.kind), term)
            }
        case .keyword where op.word == "in":
            advance()
            predicate = try parseIn(path, negated: false)
        case .keyword where op.word == "not":
            advance()
            if current.isKeyword("in") {
                advance()
                predicate = try parseIn(path, negated: true)
            } else if current.isKeyword("like") || current.isKeyword("regexp") {
                predicate = .not(Condition(try parseMatch(path), range: range(from: op.range.start)))
            } else {
                throw fail(expected: "'in', 'like' or 'regexp' after 'not'")
            }
        case .keyword where op.word == "like" || op.word == "regexp":
            predicate = try parseMatch(path)
        case .keyword where op.word == "is":
            advance()
            let negated = current.isKeyword("not")
            if negated { advance() }
            guard current.isWord("exists") else {
                throw fail(expected: negated ? "'exists' after 'is not'" : "'exists' or 'not exists' after 'is'")
            }
            advance()
            predicate = .exists(path, !negated)
        case .identifier where op.word == "all":
            advance()
            guard current.kind == .leftParen else { throw fail(expected: "'(' after 'all'") }
            predicate = .all(path, try parseTermList(closing: .rightParen, what: "list").map(\.0))
        case .identifier where op.word == "near":
            predicate = try parseNear(path)
        case .identifier where op.word == "within":
            advance()
            let (sw, swRange) = try parseGeoOperand(what: "'within'")
            guard current.isKeyword("and") else { throw fail(expected: "'and' between the two corners of 'within'") }
            advance()
            let (ne, neRange) = try parseGeoOperand(what: "'within'")
            if case .value(.geoPoint(let a)) = sw, case .value(.geoPoint(let b)) = ne {
                try OperandChecks.box(southwest: a, northeast: b, range: swRange.union(neRange))
            }
            predicate = .withinBox(path, southwest: sw, northeast: ne)
        default:
            throw fail(expected: "an operator (=, !=, <, <=, >, >=, in, like, regexp, is, all, near or within) after '\(CQLToken.clip(path.dotted))'")
        }
        return Condition(predicate, range: range(from: start.range.start))
    }

    static func comparison(_ kind: CQLToken.Kind) -> ComparisonOperator {
        switch kind {
        case .notEqual: return .notEqual
        case .less: return .lessThan
        case .lessOrEqual: return .lessThanOrEqual
        case .greater: return .greaterThan
        case .greaterOrEqual: return .greaterThanOrEqual
        default: return .equal
        }
    }

    /// `like 'p'` / `regexp 'p'` (current token is the operator). A regexp's
    /// leading `(?imsx)` group becomes its options.
    mutating func parseMatch(_ path: FieldPath) throws(QueryError) -> Predicate {
        let op = advance()
        let (term, r) = try parseTerm(expected: "a string pattern")
        var pattern = term
        var options = ""
        switch term {
        case .placeholder: break
        case .value(let v):
            let s = try OperandChecks.pattern(v, what: "'\(op.word)'", range: r)
            if op.word == "regexp" {
                let lifted = OperandChecks.liftRegexOptions(s)
                pattern = .value(.string(lifted.pattern))
                options = lifted.options
            }
        default:
            throw QueryError(.invalidValue, "the pattern of '\(op.word)' must be a string or '?', found \(sourceText(r))", range: r)
        }
        return op.word == "like" ? .like(path, pattern: pattern) : .regex(path, pattern: pattern, options: options)
    }

    /// After `in` / `not in`: `(v, ...)`, `()` or `(select ...)`.
    mutating func parseIn(_ path: FieldPath, negated: Bool) throws(QueryError) -> Predicate {
        guard current.kind == .leftParen else { throw fail(expected: "'(' after \(previousText)") }
        if peek(1).isKeyword("select") { return try parseSubquery(path, negated: negated) }
        return .in(path, try parseTermList(closing: .rightParen, what: "list").map(\.0), negated: negated)
    }

    /// `(select * from C ...)` → `inQuery`; `(select f from C ...)` → `select`.
    mutating func parseSubquery(_ path: FieldPath, negated: Bool) throws(QueryError) -> Predicate {
        let open = advance()
        try enter(open)
        let selectToken = current
        let (q, state) = try parseSelect()
        guard current.kind == .rightParen else { throw clauseEndError(state, closing: "')'") }
        advance()
        leave()
        var query = q
        if query.count != .none {
            throw QueryError(.syntax, "a subquery cannot use count(...)", range: selectToken.range)
        }
        if !query.includes.isEmpty {
            throw QueryError(.syntax, "a subquery cannot use include", range: selectToken.range)
        }
        switch query.keys.count {
        case 0:
            return .inQuery(path, query: query, negated: negated)
        case 1:
            let key = query.keys[0].path
            query.keys = []
            return .select(path, key: key, query: query, negated: negated)
        default:
            throw QueryError(.syntax, "a subquery must select '*' (matching objects) or exactly one key (its values), found \(query.keys.count) keys",
                             range: selectToken.range)
        }
    }

    /// `size(k) = n` (only `=`).
    mutating func parseSize() throws(QueryError) -> Condition {
        let start = advance()
        let open = advance()
        try enter(open)
        let path = try parsePath(expected: "a key in size(...)")
        guard current.kind == .rightParen else { throw fail(expected: "')' after the key in size(...)") }
        advance()
        leave()
        switch current.kind {
        case .equal: advance()
        case .notEqual, .less, .lessOrEqual, .greater, .greaterOrEqual:
            throw QueryError(.syntax, "size(k) only supports '=', found '\(current.text)'", range: current.range)
        default:
            throw fail(expected: "'=' after size(\(CQLToken.clip(path.dotted)))")
        }
        let (term, r) = try parseTerm(expected: "a non-negative integer")
        if case .value(let v) = term {
            try OperandChecks.count(v, what: "the n of size(k) = n", range: r)
        } else if case .placeholder = term {
        } else {
            throw QueryError(.invalidValue, "the n of size(k) = n must be a non-negative integer or '?', found \(sourceText(r))", range: r)
        }
        return Condition(.size(path, term), range: range(from: start.range.start))
    }

    /// `related key to pointer('C', 'id')`.
    mutating func parseRelated() throws(QueryError) -> Condition {
        let start = advance()
        let key = advance().name
        advance()
        let (term, r) = try parseTerm(expected: "a Pointer")
        switch term {
        case .value(let v): try OperandChecks.pointer(v, range: r)
        case .placeholder, .call(.pointer, _, _): break
        default:
            throw QueryError(.invalidValue, "'related ... to' needs a Pointer (pointer('Class', 'objectId')), found \(sourceText(r))", range: r)
        }
        return Condition(.relatedTo(object: term, key: key), range: range(from: start.range.start))
    }

    /// `near <point> [min d [unit]] [max d [unit]]`.
    mutating func parseNear(_ path: FieldPath) throws(QueryError) -> Predicate {
        advance()
        let (point, _) = try parseGeoOperand(what: "'near'")
        var minimum: Distance?
        var maximum: Distance?
        while true {
            let t = current
            if t.isWord("min") {
                if maximum != nil { throw QueryError(.syntax, "'min' must come before 'max'", range: t.range) }
                if minimum != nil { throw QueryError(.syntax, "'min' given twice", range: t.range) }
                advance()
                minimum = try parseDistance()
            } else if t.isWord("max") {
                if maximum != nil { throw QueryError(.syntax, "'max' given twice", range: t.range) }
                advance()
                maximum = try parseDistance()
            } else {
                break
            }
        }
        return .near(path, point: point, min: minimum, max: maximum)
    }

    /// A distance and its optional unit (`km`, `miles`, `radians`; default radians).
    mutating func parseDistance() throws(QueryError) -> Distance {
        let (term, r) = try parseTerm(expected: "a distance")
        switch term {
        case .value(let v): try OperandChecks.distance(v, range: r)
        case .placeholder: break
        default:
            throw QueryError(.invalidValue, "a distance must be a non-negative number or '?', found \(sourceText(r))", range: r)
        }
        var unit = DistanceUnit.radians
        if current.kind == .identifier && !current.isWord("min") && !current.isWord("max") {
            switch current.word {
            case "km": unit = .kilometers
            case "miles": unit = .miles
            case "radians": unit = .radians
            default: throw fail(expected: "a distance unit ('km', 'miles' or 'radians')")
            }
            advance()
        }
        return Distance(term, unit)
    }

    /// A GeoPoint operand: `geopoint(lng, lat)`, `[lng, lat]`, `?` or a typed literal.
    mutating func parseGeoOperand(what: String) throws(QueryError) -> (Term, SourceRange) {
        let (term, r) = try parseTerm(expected: "a GeoPoint (geopoint(lng, lat) or [lng, lat])")
        return (try OperandChecks.geoTerm(term, what: what, range: r), r)
    }
}
