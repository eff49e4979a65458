/// Checks of what a write stores, shared by the parser (constants), the
/// binder (values of placeholders) and the REST reader, so a bad value gets
/// the same message whichever way it came.
enum WriteChecks {
    /// The argument of an op: `amount` a finite number, `objects` an array
    /// (of Pointers of one class for the relation ops), `value` an integer.
    /// A whole double (`6.0`, as JSON parameters carry numbers) is that
    /// integer for the bit ops.
    static func argument(_ kind: FieldOperation.Kind, _ v: Value, range: SourceRange?) throws(QueryError) -> Value {
        func wrong(_ detail: String = "") -> QueryError {
            QueryError(.invalidValue, "op('\(kind.rawValue)') needs \(kind.argumentDescription) as '\(kind.argumentName ?? "")'\(detail), found \(OperandChecks.describe(v))",
                       range: range)
        }
        switch kind {
        case .delete:
            return v
        case .increment, .decrement:
            guard let d = v.numberValue else { throw wrong() }
            guard d.isFinite else { throw wrong(" (finite)") }
            return v
        case .add, .addUnique, .remove:
            guard case .array = v else { throw wrong() }
            return v
        case .addRelation, .removeRelation:
            guard case .array(let items) = v else { throw wrong() }
            var className: String?
            for item in items {
                guard case .pointer(let p) = item else {
                    throw QueryError(.invalidValue, "op('\(kind.rawValue)') needs Pointers in 'objects', found \(OperandChecks.describe(item))", range: range)
                }
                if let c = className, c != p.className {
                    throw QueryError(.invalidValue, "op('\(kind.rawValue)') needs Pointers of one class in 'objects', found '\(c)' and '\(p.className)'", range: range)
                }
                className = p.className
            }
            return v
        case .bitAnd, .bitOr, .bitXor:
            switch OperandChecks.wholeCount(v) {
            case .int(let i): return .int(i)
            default: throw wrong()
            }
        }
    }

    /// A value a write stores as is: not an object with an `__op` key, which
    /// a REST body would read as an operation (write `op(...)` for that).
    static func settable(_ v: Value, range: SourceRange?) throws(QueryError) {
        if case .object(let o) = v, o["__op"] != nil {
            throw QueryError(.invalidValue, "a stored value cannot be an object with an '__op' key (the REST API would read it as an operation); write op(...) instead",
                             range: range)
        }
    }

    /// The objectId of an update or delete: a non-empty string.
    static func objectId(_ v: Value, range: SourceRange?) throws(QueryError) {
        guard case .string(let s) = v, !s.isEmpty else {
            throw QueryError(.invalidValue, "objectId must be a non-empty string, found \(OperandChecks.describe(v))", range: range)
        }
    }

    /// A key a write may set: a plain key, not one the store assigns.
    static func writableKey(_ name: String, range: SourceRange?) throws(QueryError) {
        if BuiltInKeys.all.contains(name) {
            throw QueryError(.invalidValue, "'\(name)' cannot be set: the store assigns objectId, createdAt and updatedAt", range: range)
        }
        if name.isEmpty || name.hasPrefix("__") || name.contains(".") || name.hasPrefix("$") {
            throw QueryError(.invalidValue, "'\(CQLToken.clip(name))' cannot be set: a key to write is a plain name (no '.', no leading '$' or '__')", range: range)
        }
    }
}
