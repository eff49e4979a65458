import CQLKit

/// What an `op(...)` does to the value of one key (CQL.md, "Writes: insert, update, delete"). Relation
/// ops edit join rows and are applied by ``StatementExecutor``; here they only
/// check and set the key's `Relation` value.
enum FieldOperations {
    /// The key's new value (`nil`: the key is removed) from its current one
    /// (`nil`: missing). Errors are `.invalidValue` at `range`, naming the key.
    static func apply(_ op: FieldOperation, key: String, to current: Value?, range: SourceRange?) throws(QueryError) -> Value? {
        func conflict(_ needs: String) -> QueryError {
            QueryError(.invalidValue, "op('\(op.kind.rawValue)') on '\(key)' needs \(needs), but the object holds \(current.map(describe) ?? "nothing")",
                       range: range)
        }
        let argument = op.argument?.value
        switch op.kind {
        case .delete:
            return nil
        case .increment, .decrement:
            // A missing key counts as 0; null or any other type is an error (as MongoDB's $inc).
            guard let amount = argument, amount.numberValue != nil else { throw conflict("a numeric amount") }
            let base = current ?? .int(0)
            guard base.numberValue != nil else { throw conflict("a number (or no value)") }
            return try add(base, amount, negate: op.kind == .decrement, key: key, range: range)
        case .add, .addUnique, .remove:
            guard case .array(let objects)? = argument else { throw conflict("an array of objects") }
            let items: [Value]
            switch current {
            case nil:
                // Remove from a missing key leaves it missing (MongoDB's $pullAll).
                if op.kind == .remove { return nil }
                items = []
            case .array(let a)?:
                items = a
            default:
                throw conflict("an array (or no value)")
            }
            switch op.kind {
            case .add:
                return .array(items + objects)
            case .addUnique:
                // Keep order; skip what is already there by semantic equality
                // (1 == 1.0, Pointers by class and id), including repeats in `objects`.
                var seen = Set(items.map(SemanticKey.init))
                var out = items
                for o in objects where seen.insert(SemanticKey(o)).inserted { out.append(o) }
                return .array(out)
            default:
                // Every element equal to any of the objects goes.
                let gone = Set(objects.map(SemanticKey.init))
                return .array(items.filter { !gone.contains(SemanticKey($0)) })
            }
        case .addRelation, .removeRelation:
            guard case .array(let objects)? = argument else { throw conflict("an array of Pointers") }
            guard case .pointer(let first)? = objects.first else { return current }
            switch current {
            case nil:
                return op.kind == .addRelation ? .relation(className: first.className) : nil
            // Class names compare by bytes, as strings do (EvaluationSemantics.md).
            case .relation(let c)? where c.utf8.elementsEqual(first.className.utf8):
                return current
            case .relation(let c)?:
                throw QueryError(.invalidValue, "op('\(op.kind.rawValue)') on '\(key)' needs Pointers to '\(c)' (the class of its Relation), found a Pointer to '\(first.className)'",
                                 range: range)
            default:
                throw conflict("a Relation (or no value)")
            }
        case .bitAnd, .bitOr, .bitXor:
            guard case .int(let v)? = argument else { throw conflict("an integer value") }
            let base: Int64
            switch current {
            case nil: base = 0
            case .int(let i)?: base = i
            default: throw conflict("an integer (or no value)")
            }
            switch op.kind {
            case .bitAnd: return .int(base & v)
            case .bitOr: return .int(base | v)
            default: return .int(base ^ v)
            }
        }
    }

    /// `a + b` (or `a - b`): integers stay exact (overflow is an error), a
    /// double on either side makes a double.
    static func add(_ a: Value, _ b: Value, negate: Bool, key: String, range: SourceRange?) throws(QueryError) -> Value {
        if case .int(let x) = a, case .int(let y) = b {
            let (r, overflow) = negate ? x.subtractingReportingOverflow(y) : x.addingReportingOverflow(y)
            guard !overflow else {
                throw QueryError(.invalidValue, "op('\(negate ? "Decrement" : "Increment")') on '\(key)' overflows 64-bit integers (\(x) \(negate ? "-" : "+") \(y))", range: range)
            }
            return .int(r)
        }
        let x = a.numberValue ?? 0, y = b.numberValue ?? 0
        let r = negate ? x - y : x + y
        // JSON has no infinity: refuse, as for integers (MongoDB would store Infinity).
        guard r.isFinite else {
            throw QueryError(.invalidValue, "op('\(negate ? "Decrement" : "Increment")') on '\(key)' overflows doubles (\(JSONWriter.string(a)) \(negate ? "-" : "+") \(JSONWriter.string(b)))", range: range)
        }
        return .double(r)
    }

    static func describe(_ v: Value) -> String {
        switch v {
        case .null: return "null"
        case .int(let i): return "the integer \(i)"
        case .double: return "the number \(JSONWriter.string(v))"
        default: return v.typeDescription
        }
    }
}
