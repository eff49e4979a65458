/// AND of emitted conditions, merged the idiomatic way (WhereJSON.md,
/// "Condition objects"): distinct keys share one object, operators on one
/// key share one operator object, and only fragments that would collide go
/// to `$and`. `$nor`s concatenate (`nor(a) ∧ nor(b)` is `nor(a, b)`).
///
/// Colliding fragments stay separate entries of one key in a merged
/// ``WhereDoc`` and become `$and` only when the JSON object is made
/// (``object(_:table:)``), so an enclosing AND can still merge into them:
/// the result does not depend on how the ANDs nested, and reads back to
/// the same text.
enum ConditionMerger {
    private enum Group {
        case field(WhereDoc.FieldValue)
        case top(Value)
    }

    /// Keys whose arrays concatenate under AND.
    private static let concatenated: Set<String> = ["$and", "$nor"]

    static func and(_ docs: [WhereDoc], table: WhereJSONDialectTable) -> WhereDoc {
        if let distinct = distinctKeys(docs) { return distinct }
        // Keys in first-seen order with their groups side by side, found by
        // a linear search while there are few (a dictionary costs an
        // allocation and hashing; a [String: [Group]] took four or five
        // lookups per entry and copied the group list on every change),
        // through an index beyond that.
        var order: [String] = []
        var lists: [[Group]] = []
        var slot: [String: Int] = [:]
        func find(_ key: String) -> Int? {
            if order.count <= 8 { return order.firstIndex(of: key) }
            if slot.isEmpty { for (i, k) in order.enumerated() { slot[k] = i } }
            return slot[key]
        }
        func add(_ key: String, _ g: Group) {
            guard let i = find(key) else {
                if !slot.isEmpty { slot[key] = order.count }
                order.append(key)
                lists.append([g])
                return
            }
            for j in lists[i].indices {
                if let merged = merge(key, lists[i][j], g, table: table) {
                    lists[i][j] = merged
                    return
                }
            }
            lists[i].append(g)
        }
        for doc in docs {
            for entry in doc.entries {
                switch entry {
                case .field(let k, .operators(let ops)):
                    // Operator by operator (with its companions), so fragments
                    // merged in an inner AND regroup like a flat AND's: the
                    // k-th `$nin` of a key lands in its k-th object.
                    for unit in units(ops) { add(k, .field(.operators(unit))) }
                case .field(let k, let v): add(k, .field(v))
                case .top(let k, let v): add(k, .top(v))
                }
            }
        }
        var result = WhereDoc()
        for (key, list) in zip(order, lists) {
            for g in list {
                switch g {
                case .field(let v): result.entries.append(.field(key, v))
                case .top(let v): result.entries.append(.top(key, v))
                }
            }
        }
        return result
    }

    /// The AND of `docs` when no two entries share a key (the usual case):
    /// then nothing merges, and the general path below would only regroup
    /// each operator list into its ``units(_:)``, which this does too. `nil`
    /// when a key repeats, an operator list repeats an operator name (its
    /// second unit would start a fragment of its own), or holds `$elemMatch`
    /// or `$all` (merged by their bodies), or there are too many entries to
    /// compare pairwise cheaply.
    private static func distinctKeys(_ docs: [WhereDoc]) -> WhereDoc? {
        var result = docs.count == 1 ? docs[0] : WhereDoc(docs.flatMap(\.entries))
        guard isMergedForm(result) else { return nil }
        // Each operator list regrouped into its units, as the general path
        // leaves it: a change only when a companion (`$options`, a distance
        // bound) may have to move next to its lead.
        for i in result.entries.indices {
            guard case .field(let k, .operators(let ops)) = result.entries[i], ops.count > 2,
                  ops.contains(where: { $0.0 == "$options" || $0.0.hasPrefix("$maxDistance") || $0.0.hasPrefix("$minDistance") })
            else { continue }
            result.entries[i] = .field(k, .operators(units(ops).flatMap { $0 }))
        }
        return result
    }

    /// Whether ``and(_:table:)`` of `doc` alone has its entries, up to the
    /// order of operators within a list: at most 8 entries, no key twice, no
    /// operator list that repeats a name or holds `$elemMatch` or `$all`.
    static func isMergedForm(_ doc: WhereDoc) -> Bool {
        let entries = doc.entries
        guard entries.count <= 8 else { return false }
        for (i, entry) in entries.enumerated() {
            let key = entry.key
            for j in 0..<i where entries[j].key == key { return false }
            guard case .field(_, .operators(let ops)) = entry else { continue }
            for m in ops.indices {
                let name = ops[m].0
                if name == "$elemMatch" || name == "$all" { return false }
                for n in 0..<m where ops[n].0 == name { return false }
            }
        }
        return true
    }

    /// The operators of one object split into the units that must stay
    /// together: `$regex` with its `$options`, `$nearSphere` with its
    /// distance bounds; every other operator alone.
    private static func units(_ ops: [(String, Value)]) -> [[(String, Value)]] {
        var out: [[(String, Value)]] = []
        for op in ops {
            let lead: String? = op.0 == "$options" ? "$regex"
                : (op.0.hasPrefix("$maxDistance") || op.0.hasPrefix("$minDistance")) ? "$nearSphere" : nil
            if let lead, let i = out.lastIndex(where: { $0.first?.0 == lead }) {
                out[i].append(op)
            } else {
                out.append([op])
            }
        }
        return out
    }

    private static func merge(_ key: String, _ a: Group, _ b: Group, table: WhereJSONDialectTable) -> Group? {
        switch (a, b) {
        case (.top(.array(let x)), .top(.array(let y))) where concatenated.contains(key):
            return .top(.array(x + y))
        case (.field(let x), .field(let y)):
            return mergeField(x, y, eq: table.supports(.eq)).map { .field($0) }
        default:
            return nil
        }
    }

    private static func mergeField(_ a: WhereDoc.FieldValue, _ b: WhereDoc.FieldValue, eq: Bool) -> WhereDoc.FieldValue? {
        switch (a, b) {
        case (.operators(let x), .operators(let y)):
            return mergeOperators(x, y)
        case (.equals(let v), .operators(let y)) where eq && !y.contains(where: { $0.0 == "$eq" }):
            return .operators([("$eq", v)] + y)
        case (.operators(let x), .equals(let v)) where eq && !x.contains(where: { $0.0 == "$eq" }):
            return .operators(x + [("$eq", v)])
        default:
            return nil
        }
    }

    /// Two operator objects of one key as one, when no operator repeats;
    /// several `$elemMatch`es become MongoDB's `{"$all": [{"$elemMatch":
    /// ...}, ...]}` (each must match, EvaluationSemantics.md), so an AND of them stays
    /// on its key, and an `$all` written that way merges with more of them.
    private static func mergeOperators(_ x: [(String, Value)], _ y: [(String, Value)]) -> WhereDoc.FieldValue? {
        var bodies: [Value] = []
        var rest: [(String, Value)] = []
        var position: Int?
        for op in x + y {
            if let b = elementMatchBodies(op) {
                if position == nil { position = rest.count }
                bodies += b
            } else {
                rest.append(op)
            }
        }
        let names = rest.map(\.0)
        guard Set(names).count == names.count else { return nil }
        guard let position else { return .operators(rest) }
        if bodies.count == 1 {
            rest.insert(("$elemMatch", bodies[0]), at: position)
        } else {
            guard !names.contains("$all") else { return nil }
            rest.insert(("$all", .array(bodies.map { .object(["$elemMatch": $0]) })), at: position)
        }
        return .operators(rest)
    }

    /// The `$elemMatch` bodies an operator stands for: its own, or the items
    /// of an `$all` made only of `{"$elemMatch": ...}` objects; `nil` for any
    /// other operator (a list of values never holds such objects: the
    /// emitter refuses `$`-keyed constants there).
    private static func elementMatchBodies(_ op: (String, Value)) -> [Value]? {
        switch op.0 {
        case "$elemMatch":
            return [op.1]
        case "$all":
            guard case .array(let items) = op.1, !items.isEmpty else { return nil }
            var bodies: [Value] = []
            for item in items {
                guard case .object(let o) = item, o.count == 1, let body = o["$elemMatch"] else { return nil }
                bodies.append(body)
            }
            return bodies
        default:
            return nil
        }
    }

    private static func render(_ g: Group) -> Value {
        switch g {
        case .field(let v): return render(v)
        case .top(let v): return v
        }
    }

    static func render(_ v: WhereDoc.FieldValue) -> Value {
        switch v {
        case .equals(let x): return x
        case .operators(let ops):
            var o = [String: Value](minimumCapacity: ops.count)
            for (k, x) in ops { o[k] = x }
            return .object(o)
        }
    }

    /// The JSON object of `doc`: merged first; a key that still holds
    /// several fragments puts each in `$and` (`{"$and":[{"a":1},{"a":{"$gt":0}}]}`).
    static func object(_ doc: WhereDoc, table: WhereJSONDialectTable) -> Value {
        // A doc already in merged form (the usual case: `render` merges
        // first) is not merged again; the order of operators within a list,
        // the only thing that could differ, is lost in the object anyway.
        let merged = isMergedForm(doc) ? doc : and([doc], table: table)
        let entries = merged.entries.map { entry -> (String, Value) in
            switch entry {
            case .field(let k, let v): return (k, render(v))
            case .top(let k, let v): return (k, v)
            }
        }
        // Whether a key repeats: by linear search among few entries.
        var counts: [String: Int] = [:]
        if entries.count > 8 { for (k, _) in entries { counts[k, default: 0] += 1 } }
        func repeats(_ k: String) -> Bool {
            if entries.count > 8 { return counts[k, default: 0] > 1 }
            var seen = 0
            for (other, _) in entries where other == k { seen += 1 }
            return seen > 1
        }
        var o: [String: Value] = [:]
        var andItems: [Value] = []
        for (k, v) in entries {
            if k == "$and", case .array(let items) = v {
                andItems += items
            } else if repeats(k) {
                andItems.append(.object([k: v]))
            } else {
                o[k] = v
            }
        }
        if !andItems.isEmpty { o["$and"] = .array(andItems) }
        return .object(o)
    }
}
