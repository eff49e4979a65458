/// An emitted condition before it becomes a JSON object: ordered entries that
/// remember whether a key holds an equality or operators, so that AND can
/// merge them (a Mongo `{"$date":...}` equality must not pass for operators).
struct WhereDoc {
    enum FieldValue {
        /// `{"k": v}`
        case equals(Value)
        /// `{"k": {"$op": v, ...}}`, operators in emission order.
        case operators([(String, Value)])
    }

    enum Entry {
        /// A key path (never starts with `$`).
        case field(String, FieldValue)
        /// A top-level operator: `$or`, `$and`, `$nor`, `$relatedTo`.
        case top(String, Value)
    }

    var entries: [Entry] = []

    init(_ entries: [Entry] = []) { self.entries = entries }
    static func field(_ key: String, _ value: FieldValue) -> WhereDoc { WhereDoc([.field(key, value)]) }
    static func op(_ key: String, _ op: String, _ value: Value) -> WhereDoc { .field(key, .operators([(op, value)])) }

    /// Matches nothing in every dialect (`$in: []` matches no value, not even
    /// a missing one); `$or: []` would be rejected by MongoDB.
    static let matchesNothing = WhereDoc.op("objectId", "$in", .array([]))
}

/// AND of emitted conditions, merged the idiomatic way (TEAM.md): distinct
/// keys share one object, operators on one key share one operator object,
/// and only fragments that would collide go to `$and`. Nested `$and`s are
/// concatenated, and so are `$nor`s (`nor(a) ∧ nor(b)` is `nor(a, b)`).
enum ConditionMerger {
    private enum Group {
        case field(WhereDoc.FieldValue)
        case top(Value)
    }

    /// Keys whose arrays concatenate under AND.
    private static let concatenated: Set<String> = ["$and", "$nor"]

    static func and(_ docs: [WhereDoc], table: WhereJSONDialectTable) -> WhereDoc {
        // Keys in first-seen order with their groups side by side, found by
        // a linear search while there are few (a dictionary costs an
        // allocation and hashing; the former [String: [Group]] took four or
        // five lookups per entry and copied the group list on every change),
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
                case .field(let k, let v): add(k, .field(v))
                case .top(let k, let v): add(k, .top(v))
                }
            }
        }
        var result = WhereDoc()
        var andItems: [Value] = []
        for (key, list) in zip(order, lists) {
            if key == "$and" {
                for g in list { if case .top(.array(let items)) = g { andItems += items } }
                continue
            }
            if list.count == 1, let g = list.first {
                switch g {
                case .field(let v): result.entries.append(.field(key, v))
                case .top(let v): result.entries.append(.top(key, v))
                }
            } else {
                for g in list { andItems.append(.object([key: render(g)])) }
            }
        }
        if !andItems.isEmpty { result.entries.append(.top("$and", .array(andItems))) }
        return result
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
            let names = Set(x.map(\.0))
            guard !y.contains(where: { names.contains($0.0) }) else { return nil }
            return .operators(x + y)
        case (.equals(let v), .operators(let y)) where eq && !y.contains(where: { $0.0 == "$eq" }):
            return .operators([("$eq", v)] + y)
        case (.operators(let x), .equals(let v)) where eq && !x.contains(where: { $0.0 == "$eq" }):
            return .operators(x + [("$eq", v)])
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

    /// The JSON object of `doc` (merged first, so keys are unique).
    static func object(_ doc: WhereDoc, table: WhereJSONDialectTable) -> Value {
        let entries = and([doc], table: table).entries
        var o = [String: Value](minimumCapacity: entries.count)
        for entry in entries {
            switch entry {
            case .field(let k, let v): o[k] = render(v)
            case .top(let k, let v): o[k] = v
            }
        }
        return .object(o)
    }
}
