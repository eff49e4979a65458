/// `select` statements: field list, class, clauses, `limit`, `order by`.
extension CQLParserState {
    /// `select <fields> from <Class> [where ...] [limit ...] [order by ...]`
    /// (limit and order in either order). Stops at the first token that
    /// cannot continue the statement; the caller checks what follows, with
    /// the state in `result` saying what could have come next. (The query is
    /// built in place in `result`, not copied from frame to frame.)
    @inline(never)
    func parseSelect(into query: inout Query, _ state: inout SelectState) throws {
        let selectStart = start
        try parseSelectHead(into: &query, &state)
        while true {
            if isKeyword(.where) && !state.hasWhere && !state.hasLimit && !state.hasOrder {
                skip()
                query.condition = try parseCondition()
                state.hasWhere = true
                state.last = .condition
            } else if isKeyword(.limit) && !state.hasLimit {
                try parseLimit(into: &query, &state)
            } else if isKeyword(.order) && !state.hasOrder {
                try parseOrder(into: &query, &state)
            } else {
                break
            }
        }
        query.range = SourceRange(selectStart, prevEnd)
    }

    /// `select <fields> from <Class>`; the query's range starts at `select`.
    @inline(never)
    func parseSelectHead(into query: inout Query, _ state: inout SelectState) throws {
        let selectStart = start
        skip()
        try parseFieldList(into: &query, &state)
        guard isKeyword(.from) else { throw fail(expected: "'from' after the field list") }
        skip()
        guard isName() else { throw failName(expected: "a class name after 'from'") }
        query.className = advanceName()
        query.range = SourceRange(selectStart, prevEnd)
    }

    /// The error for a token that cannot follow a `select` (at `closing`:
    /// `end of input`, or `')'` in a subquery).
    @inline(never)
    func clauseEndError(_ state: SelectState, closing: String) -> any Error {
        if isKeyword(.where) {
            return syntaxHere(state.hasWhere ? "'where' given twice" : "'where' must come before 'limit' and 'order by'")
        }
        if isKeyword(.limit) && state.hasLimit { return syntaxHere("'limit' given twice") }
        if isKeyword(.order) && state.hasOrder { return syntaxHere("'order by' given twice") }
        var options: [String]
        let context: String
        switch state.last {
        case .className:
            options = ["'where'", "'limit'", "'order by'"]
            context = "the class name"
        case .condition:
            options = ["'and'", "'or'"]
            if !state.hasLimit { options.append("'limit'") }
            if !state.hasOrder { options.append("'order by'") }
            context = "the condition"
        case .limit:
            options = state.hasOrder ? [] : ["'order by'"]
            context = "the limit"
        case .orderKeys:
            options = ["','", "'asc'", "'desc'"]
            if !state.hasLimit { options.append("'limit'") }
            context = "the order keys"
        case .orderDirection:
            let d = list.token(at: max(0, index - 1))
            if kind == .comma {
                return syntax("'\(d.word)' must follow the last order key: it applies to every key without '+' or '-' (write '-key' to sort one key descending)",
                              at: d.range)
            }
            options = state.hasLimit ? [] : ["'limit'"]
            context = "'\(d.word)'"
        }
        options.append(closing)
        return fail(expected: CQLParserState.list(options) + " after " + context)
    }

    /// `a`, `a or b`, `a, b or c`.
    static func list(_ items: [String]) -> String {
        guard items.count > 1 else { return items.first ?? "" }
        return items.dropLast().joined(separator: ", ") + " or " + items[items.count - 1]
    }

    // MARK: Field list

    /// `*`, keys, `count(*)` / `count(objectId)` and `include k`, comma-separated.
    func parseFieldList(into query: inout Query, _ state: inout SelectState) throws {
        var keys: [SelectedKey] = []
        var includes: [FieldPath] = []
        var star = false
        var counted = false
        var first = true
        while true {
            if kind == .star {
                skip()
                star = true
            } else if isWord(.count) && kind(at: 1) == .leftParen {
                guard !counted else { throw syntaxHere("count(...) given twice") }
                skip()
                skip()
                guard kind == .star || (kind == .identifier && current.text == "objectId") else {
                    throw fail(expected: "'*' or 'objectId' in count(...)")
                }
                skip()
                guard kind == .rightParen else { throw fail(expected: "')' to close count(") }
                skip()
                counted = true
            } else if isKeyword(.include) {
                skip()
                includes.append(try parsePath(expected: "a key to include after 'include'"))
            } else if isName() {
                // Room for a few keys at once, instead of growing 1, 2, 4.
                if keys.isEmpty { keys.reserveCapacity(4) }
                keys.append(SelectedKey(try parsePath(expected: "a key")))
            } else if first {
                throw failName(expected: "a field list after 'select' ('*', keys, count(*) or include k)")
            } else {
                throw failName(expected: "a key, '*', count(*) or include k after ','")
            }
            first = false
            guard kind == .comma else { break }
            skip()
        }
        // Only what is there is written: the query starts with no keys, no
        // includes and no count (`select *` writes nothing).
        if !star && !keys.isEmpty { query.keys = keys }
        if !includes.isEmpty { query.includes = includes }
        if counted { query.count = (star || !keys.isEmpty) ? .withResults : .only }
    }

    /// A dotted key: `name`, `` `order` ``, `post.author.name`, `tags.0`.
    /// After a `.`, reserved words and non-negative integers are components too.
    /// `afterPrevious` appends `after <previous token>` to `what` in the error.
    func parsePath(expected what: String, afterPrevious: Bool = false) throws -> FieldPath {
        guard isName() else { throw failName(expected: afterPrevious ? "\(what) after \(previousText)" : what) }
        let first = advanceName()
        // A plain key (the usual path) allocates no array.
        guard kind == .dot else { return FieldPath(single: first) }
        var components = [first]
        while kind == .dot {
            skip()
            let k = kind
            if k == .identifier || k == .quotedIdentifier {
                components.append(advanceName())
            } else if k == .keyword || (k == .integer && bytes[start] != UInt8(ascii: "-")) {
                components.append(advanceText())
            } else {
                throw fail(expected: "a key after '.'")
            }
        }
        return FieldPath(components)
    }

    // MARK: limit and order by

    /// `limit n` or `limit skip, n`: non-negative integers or `?`.
    @inline(never)
    func parseLimit(into query: inout Query, _ state: inout SelectState) throws {
        skip()
        let (a, ra) = try parseTerm(expected: "a number or '?'")
        if kind == .comma {
            skip()
            let (b, rb) = try parseTerm(expected: "a number or '?'")
            query.skip = try checkCount(a, range: ra, what: "skip")
            query.limit = try checkCount(b, range: rb, what: "limit")
        } else {
            query.limit = try checkCount(a, range: ra, what: "limit")
        }
        state.hasLimit = true
        state.last = .limit
    }

    func checkCount(_ t: Term, range: SourceRange, what: String) throws -> Term {
        switch t {
        case .placeholder: return t
        case .value(.int(let n)) where n >= 0: return t
        default: throw badCount(range, what)
        }
    }

    @inline(never)
    func badCount(_ range: SourceRange, _ what: String) -> any Error {
        QueryError(.invalidValue, "\(what) must be a non-negative integer or '?', found \(sourceText(range))", range: range)
    }

    /// `order by [+|-]key, ... [asc|desc]`: `+`/`-` force a key's direction;
    /// the trailing `asc`/`desc` (default asc) applies to every unsigned key
    /// (CQL.md: `score,+name desc` == `-score,name`).
    @inline(never)
    func parseOrder(into query: inout Query, _ state: inout SelectState) throws {
        skip()
        guard isWord(.by) else { throw fail(expected: "'by' after 'order'") }
        skip()
        // The keys are built as they come (a `-key` descending, any other
        // ascending); a trailing `desc` then turns the unsigned ones, noted
        // in a bit set (an array only past 64 keys).
        var keys: [OrderKey] = []
        keys.reserveCapacity(4)
        var unsigned: UInt64 = 0
        var unsignedPast64: [Int] = []
        while true {
            var forced: Bool?
            if kind == .minus { skip(); forced = true } else if kind == .plus { skip(); forced = false }
            let path = try parsePath(expected: keys.isEmpty ? "a key to order by" : "a key", afterPrevious: true)
            if forced == nil {
                if keys.count < 64 { unsigned |= 1 << UInt64(keys.count) } else { unsignedPast64.append(keys.count) }
            }
            keys.append(OrderKey(path, descending: forced ?? false))
            guard kind == .comma else { break }
            skip()
        }
        var hasDirection = false
        if isWord(.asc) || isWord(.desc) {
            if isWord(.desc) {
                for i in 0..<min(keys.count, 64) where unsigned & (1 << UInt64(i)) != 0 { keys[i].descending = true }
                for i in unsignedPast64 { keys[i].descending = true }
            }
            skip()
            hasDirection = true
        }
        query.order = keys
        state.hasOrder = true
        state.last = hasDirection ? .orderDirection : .orderKeys
    }
}
