extension Binder {
    /// A statement with every placeholder replaced and every call evaluated:
    /// a query as `bind(_:parameters:now:)` binds it; a write's values, op
    /// arguments, objectId and condition likewise, with the checks the parser
    /// applies to constants (an op's argument, no `__op` objects as values,
    /// a string objectId).
    ///
    /// ```swift
    /// let s = try CQLParser.parseStatement("update T set n = op('Increment', {'amount': ?}) where objectId = ?")
    /// try Binder.bind(s, parameters: [5, "a1"])
    /// // update T set n = op('Increment', {'amount': 5}) where objectId = 'a1'
    /// try Binder.bind(s, parameters: ["5", "a1"])
    /// // 1:50: op('Increment') needs a number as 'amount', found '5'
    /// ```
    public static func bind(_ statement: Statement, parameters: [Value], now: DateValue? = nil) throws(QueryError) -> Statement {
        if case .select(let q) = statement { return .select(try bind(q, parameters: parameters, now: now)) }
        do throws(QueryError) {
            var ranges: [Int: SourceRange] = [:]
            PlaceholderScan.visit(statement) { i, r in if ranges[i] == nil, let r { ranges[i] = r } }
            try checkCount(parameters.count, placeholders: statement.placeholderCount, ranges: ranges, whole: statement.range, noun: "statement")
            var decoded: [Value] = []
            for (i, p) in parameters.enumerated() {
                do {
                    decoded.append(try p.decodingTypedValues())
                } catch {
                    let at = error.path.map { " at \($0)" } ?? ""
                    throw QueryError(.invalidValue, "invalid value for the \(TypedFunctions.ordinal(i + 1)) '?'\(at): \(error.message)",
                                     range: ranges[i] ?? statement.range)
                }
            }
            let context = BindingContext(parameters: decoded, now: now)
            do {
                return try context.bind(statement)
            } catch let error as QueryError {
                throw error
            } catch {
                throw QueryError(.binding, "internal error: \(error)", range: statement.range)
            }
        } catch {
            throw statement.source.map { error.withSource($0) } ?? error
        }
    }
}

extension BindingContext {
    func bind(_ statement: Statement) throws -> Statement {
        switch statement {
        case .select(let q):
            return .select(try bind(q))
        case .insert(var s):
            for i in s.rows.indices {
                for j in s.rows[i].indices {
                    let t = s.rows[i][j]
                    s.rows[i][j] = try bindStored(t, fallback: s.range)
                }
            }
            return .insert(s)
        case .update(var s):
            for i in s.assignments.indices {
                let a = s.assignments[i]
                switch a.change {
                case .set(let t):
                    s.assignments[i].change = .set(try bindStored(t, fallback: a.range))
                case .operation(var op):
                    if let arg = op.argument {
                        let b = try bind(arg, fallback: op.range)
                        if case .value(let v) = b {
                            op.argument = .value(try WriteChecks.argument(op.kind, v, range: BindingContext.range(of: arg, fallback: op.range)))
                        } else {
                            op.argument = b
                        }
                    }
                    s.assignments[i].change = .operation(op)
                }
            }
            s.objectId = try bindObjectId(s.objectId, fallback: s.objectIdRange)
            if let c = s.condition { s.condition = try bind(c) }
            return .update(s)
        case .delete(var s):
            s.objectId = try bindObjectId(s.objectId, fallback: s.objectIdRange)
            if let c = s.condition { s.condition = try bind(c) }
            return .delete(s)
        }
    }

    /// A value a write stores.
    func bindStored(_ t: Term, fallback: SourceRange?) throws -> Term {
        let b = try bind(t, fallback: fallback)
        if case .value(let v) = b { try WriteChecks.settable(v, range: BindingContext.range(of: t, fallback: fallback)) }
        return b
    }

    func bindObjectId(_ t: Term, fallback: SourceRange?) throws -> Term {
        let b = try bind(t, fallback: fallback)
        if case .value(let v) = b { try WriteChecks.objectId(v, range: BindingContext.range(of: t, fallback: fallback)) }
        return b
    }
}

extension Statement {
    /// How many values the binder needs for this statement.
    ///
    /// ```swift
    /// try CQLParser.parseStatement("insert into T(a, b) values (?, ?), (?, 1)").placeholderCount   // 3
    /// ```
    public var placeholderCount: Int {
        var highest = -1
        PlaceholderScan.visit(self) { index, _ in highest = max(highest, index) }
        return highest + 1
    }
}

extension PlaceholderScan {
    static func visit(_ s: Statement, _ f: Visitor) {
        switch s {
        case .select(let q):
            visit(q, f)
        case .insert(let s):
            for row in s.rows { for t in row { visit(t, f) } }
        case .update(let s):
            for a in s.assignments {
                switch a.change {
                case .set(let t): visit(t, f)
                case .operation(let op): if let t = op.argument { visit(t, f) }
                }
            }
            visit(s.objectId, f)
            if let c = s.condition { visit(c, f) }
        case .delete(let s):
            visit(s.objectId, f)
            if let c = s.condition { visit(c, f) }
        }
    }
}
