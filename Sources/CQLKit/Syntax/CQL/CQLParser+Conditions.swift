/// `where` conditions: `or` < `and` < `not` < predicate, parentheses.
///
/// Every function on a recursive path is `@inline(never)` and small, so that
/// one nesting level costs little stack (see ``CQLParserState``).
extension CQLParserState {
    /// A lone operand is returned as it is (what `Condition.or([x])` gives),
    /// without making a one-element array.
    @inline(never)
    func parseCondition() throws -> Condition {
        let first = try parseAnd()
        guard isKeyword(.or) else { return first }
        // Room for a few operands at once, instead of growing 1, 2, 4.
        var items: [Condition] = []
        items.reserveCapacity(4)
        items.append(first)
        while isKeyword(.or) {
            skip()
            items.append(try parseAnd())
        }
        return Condition.or(items)
    }

    @inline(never)
    func parseAnd() throws -> Condition {
        let first = try parseNot()
        guard isKeyword(.and) else { return first }
        var items: [Condition] = []
        items.reserveCapacity(4)
        items.append(first)
        while isKeyword(.and) {
            skip()
            items.append(try parseNot())
        }
        return Condition.and(items)
    }

    /// `not` binds tighter than `and`: `not a = 1 and b = 2` is `(not a = 1) and b = 2`.
    /// A run of `not`s is read in a loop (each counts as a nesting level).
    @inline(never)
    func parseNot() throws -> Condition {
        guard isKeyword(.not) else { return try parsePrimary() }
        var starts: [Int] = []
        while isKeyword(.not) {
            try enter()
            starts.append(start)
            skip()
        }
        var c = try parsePrimary()
        for s in starts.reversed() {
            c = Condition.not(c, range: SourceRange(s, prevEnd))
            leave()
        }
        return c
    }

    @inline(never)
    func parsePrimary() throws -> Condition {
        guard kind == .leftParen else { return try parsePredicate() }
        let open = start
        try enter()
        skip()
        var c = try parseCondition()
        guard kind == .rightParen else { throw unclosedParenthesis(open) }
        skip()
        leave()
        c.range = range(from: open)
        return c
    }

    @inline(never)
    func unclosedParenthesis(_ open: Int) -> any Error {
        if kind == .end { return fail(expected: "')' to close the '(' at \(position(of: open))") }
        return fail(expected: "'and', 'or' or ')' after the condition")
    }

    // MARK: Predicates

    @inline(never)
    func parsePredicate() throws -> Condition {
        let begin = start
        if isWord(.related) && isName(at: 1) && isWord(.to, at: 2) { return try parseRelated() }
        if isWord(.size) && kind(at: 1) == .leftParen { return try parseSize() }
        let path = try parsePath(expected: "a condition", afterPrevious: true)
        let predicate: Predicate
        switch kind {
        case .equal, .notEqual, .less, .lessOrEqual, .greater, .greaterOrEqual:
            predicate = try parseComparison(path)
        case .keyword:
            switch word {
            case .in:
                skip()
                predicate = try parseIn(path, negated: false)
            case .not:
                predicate = try parseNegatedOperator(path)
            case .like, .regexp:
                predicate = try parseMatch(path)
            case .is:
                predicate = try parseExists(path)
            default:
                throw missingOperator(path)
            }
        case .identifier:
            switch word {
            case .all:
                skip()
                guard kind == .leftParen else { throw fail(expected: "'(' after 'all'") }
                predicate = .all(path, try parseTerms(closing: .rightParen, what: "list"))
            case .near: predicate = try parseNear(path)
            case .within: predicate = try parseWithin(path)
            default: throw missingOperator(path)
            }
        default:
            throw missingOperator(path)
        }
        return Condition(predicate, range: range(from: begin))
    }

    @inline(never)
    func missingOperator(_ path: FieldPath) -> any Error {
        fail(expected: "an operator (=, !=, <, <=, >, >=, in, like, regexp, is, all, near or within) after '\(CQLToken.clip(path.dotted))'")
    }

    /// `= v`, `!= v`, `< v` ...; `= (select ...)` and `!= (select ...)` are subqueries.
    @inline(never)
    func parseComparison(_ path: FieldPath) throws -> Predicate {
        let op = CQLParserState.comparison(kind)
        skip()
        if (op == .equal || op == .notEqual) && kind == .leftParen && isKeyword(.select, at: 1) {
            return try parseSubquery(path, negated: op == .notEqual)
        }
        return .compare(path, op, try parseTerm(expected: "a value").0)
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

    /// `not in`, `not like`, `not regexp` (current token is `not`).
    @inline(never)
    func parseNegatedOperator(_ path: FieldPath) throws -> Predicate {
        let notStart = start
        skip()
        if isKeyword(.in) {
            skip()
            return try parseIn(path, negated: true)
        }
        guard isKeyword(.like) || isKeyword(.regexp) else { throw fail(expected: "'in', 'like' or 'regexp' after 'not'") }
        return .not(Condition(try parseMatch(path), range: range(from: notStart)))
    }

    /// `is exists` / `is not exists`.
    @inline(never)
    func parseExists(_ path: FieldPath) throws -> Predicate {
        skip()
        let negated = isKeyword(.not)
        if negated { skip() }
        guard isWord(.exists) else {
            throw fail(expected: negated ? "'exists' after 'is not'" : "'exists' or 'not exists' after 'is'")
        }
        skip()
        return .exists(path, !negated)
    }

    /// `like 'p'` / `regexp 'p'` (current token is the operator). A regexp's
    /// leading `(?imsx)` group becomes its options.
    @inline(never)
    func parseMatch(_ path: FieldPath) throws -> Predicate {
        let isLike = isKeyword(.like)
        let what = isLike ? "'like'" : "'regexp'"
        skip()
        let (term, r) = try parseTerm(expected: "a string pattern")
        var pattern = term
        var options = ""
        switch term {
        case .placeholder: break
        case .value(let v):
            let s = try OperandChecks.pattern(v, what: what, range: r)
            if !isLike {
                let lifted = OperandChecks.liftRegexOptions(s)
                // A pattern changes only when a group was lifted (its options
                // are then not empty): the usual pattern keeps its term.
                if !lifted.options.isEmpty {
                    pattern = .value(.string(lifted.pattern))
                    options = lifted.options
                }
            }
        default:
            throw QueryError(.invalidValue, "the pattern of \(what) must be a string or '?', found \(sourceText(r))", range: r)
        }
        return isLike ? .like(path, pattern: pattern) : .regex(path, pattern: pattern, options: options)
    }

    /// After `in` / `not in`: `(v, ...)`, `()` or `(select ...)`.
    @inline(never)
    func parseIn(_ path: FieldPath, negated: Bool) throws -> Predicate {
        guard kind == .leftParen else { throw failAfterPrevious(expected: "'('") }
        if isKeyword(.select, at: 1) { return try parseSubquery(path, negated: negated) }
        return .in(path, try parseTerms(closing: .rightParen, what: "list"), negated: negated)
    }

    /// `(select * from C ...)` → `inQuery`; `(select f from C ...)` → `select`.
    @inline(never)
    func parseSubquery(_ path: FieldPath, negated: Bool) throws -> Predicate {
        try enter()
        skip()
        var query = Query.empty
        var state = SelectState()
        try parseSelect(into: &query, &state)
        guard kind == .rightParen else { throw clauseEndError(state, closing: "')'") }
        skip()
        leave()
        return try CQLParserState.subqueryPredicate(path, query, negated: negated)
    }

    /// `select` of a subquery: its keyword's range is where errors about the field list point.
    @inline(never)
    static func subqueryPredicate(_ path: FieldPath, _ query: consuming Query, negated: Bool) throws -> Predicate {
        let selectStart = query.range?.start ?? 0
        let selectRange = SourceRange(selectStart, selectStart + 6)
        if query.count != .none {
            throw QueryError(.syntax, "a subquery cannot use count(...)", range: selectRange)
        }
        if !query.includes.isEmpty {
            throw QueryError(.syntax, "a subquery cannot use include", range: selectRange)
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
                             range: selectRange)
        }
    }

    /// `size(k) = n` (only `=`).
    @inline(never)
    func parseSize() throws -> Condition {
        let begin = start
        skip()
        try enter()
        skip()
        let path = try parsePath(expected: "a key in size(...)")
        guard kind == .rightParen else { throw fail(expected: "')' after the key in size(...)") }
        skip()
        leave()
        switch kind {
        case .equal: skip()
        case .notEqual, .less, .lessOrEqual, .greater, .greaterOrEqual:
            throw syntaxHere("size(k) only supports '=', found '\(current.text)'")
        default:
            throw fail(expected: "'=' after size(\(CQLToken.clip(path.dotted)))")
        }
        let (term, r) = try parseTerm(expected: "a non-negative integer")
        switch term {
        case .value(let v): try OperandChecks.count(v, what: "the n of size(k) = n", range: r)
        case .placeholder: break
        default:
            throw QueryError(.invalidValue, "the n of size(k) = n must be a non-negative integer or '?', found \(sourceText(r))", range: r)
        }
        return Condition(.size(path, term), range: range(from: begin))
    }

    /// `related key to pointer('C', 'id')`.
    @inline(never)
    func parseRelated() throws -> Condition {
        let begin = start
        skip()
        let key = advanceName()
        skip()
        let (term, r) = try parseTerm(expected: "a Pointer")
        switch term {
        case .value(let v): try OperandChecks.pointer(v, range: r)
        case .placeholder, .call(.pointer, _, _): break
        default:
            throw QueryError(.invalidValue, "'related ... to' needs a Pointer (pointer('Class', 'objectId')), found \(sourceText(r))", range: r)
        }
        return Condition(.relatedTo(object: term, key: key), range: range(from: begin))
    }

    /// `near <point> [min d [unit]] [max d [unit]]`.
    @inline(never)
    func parseNear(_ path: FieldPath) throws -> Predicate {
        skip()
        let (point, _) = try parseGeoOperand(what: "'near'")
        var minimum: Distance?
        var maximum: Distance?
        while true {
            if isWord(.min) {
                if maximum != nil { throw syntaxHere("'min' must come before 'max'") }
                if minimum != nil { throw syntaxHere("'min' given twice") }
                skip()
                minimum = try parseDistance()
            } else if isWord(.max) {
                if maximum != nil { throw syntaxHere("'max' given twice") }
                skip()
                maximum = try parseDistance()
            } else {
                break
            }
        }
        return .near(path, point: point, min: minimum, max: maximum)
    }

    /// A distance and its optional unit (`km`, `miles`, `radians`; default radians).
    @inline(never)
    func parseDistance() throws -> Distance {
        let (term, r) = try parseTerm(expected: "a distance")
        switch term {
        case .value(let v): try OperandChecks.distance(v, range: r)
        case .placeholder: break
        default:
            throw QueryError(.invalidValue, "a distance must be a non-negative number or '?', found \(sourceText(r))", range: r)
        }
        var unit = DistanceUnit.radians
        if kind == .identifier && !isWord(.min) && !isWord(.max) {
            switch word {
            case .km: unit = .kilometers
            case .miles: unit = .miles
            case .radians: unit = .radians
            default: throw fail(expected: "a distance unit ('km', 'miles' or 'radians')")
            }
            skip()
        }
        return Distance(term, unit)
    }

    /// `within <southwest> and <northeast>`.
    @inline(never)
    func parseWithin(_ path: FieldPath) throws -> Predicate {
        skip()
        let (sw, _) = try parseGeoOperand(what: "'within'")
        guard isKeyword(.and) else { throw fail(expected: "'and' between the two corners of 'within'") }
        skip()
        let (ne, _) = try parseGeoOperand(what: "'within'")
        if case .value(.geoPoint(let a)) = sw, case .value(.geoPoint(let b)) = ne {
            // Corners the wrong way round are normalized, as MongoDB's `$box` does.
            let corners = OperandChecks.box(a, b)
            return .withinBox(path, southwest: .value(.geoPoint(corners.southwest)), northeast: .value(.geoPoint(corners.northeast)))
        }
        return .withinBox(path, southwest: sw, northeast: ne)
    }

    /// A GeoPoint operand: `geopoint(lng, lat)`, `[lng, lat]`, `?` or a typed literal.
    @inline(never)
    func parseGeoOperand(what: String) throws -> (Term, SourceRange) {
        let (term, r) = try parseTerm(expected: "a GeoPoint (geopoint(lng, lat) or [lng, lat])")
        return (try OperandChecks.geoTerm(term, what: what, range: r), r)
    }
}
