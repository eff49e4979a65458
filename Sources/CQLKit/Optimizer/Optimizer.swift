/// The optimizer: rewrites a bound query into a smaller one with the same
/// meaning under EvaluationSemantics.md, by running a list of rules to a fixed point.
///
/// Every rule is a pure function `Query → Query` (``OptimizerRule``), one
/// per file, each with its soundness argument. Before the rules run,
/// ``CompileTimeChecks`` rejects what can never be evaluated (a GeoPoint out
/// of range, an impossible box or distance range) with a positioned error.
///
/// ```swift
/// let q = try CQLParser.parse("select * from T where (a = 1 or a = 2) and not (b = 3) and a != 5")
/// let result = try Optimizer().optimize(q)
/// try CQLFormatter.format(result.query)
/// // select * from T where a in (1, 2) and b != 3 and a != 5
/// result.steps.map(\.rule)   // ["PushNegation", "EqualitiesToIn"]
/// ```
public struct Optimizer: Sendable {
    /// The rules, in the order each round runs them.
    public var rules: [any OptimizerRule] {
        didSet {
            triggers = rules.map(\.triggers)
            onlyOnChange = rules.map(\.rewritesOnlyOnChange)
            anyTrigger = Optimizer.union(triggers)
        }
    }
    /// Rounds at most; a round that changes nothing ends the run earlier.
    public var maxIterations: Int

    /// Each rule's ``OptimizerRule/triggers``, read once per rule list
    /// rather than through the existential on every round of every query.
    private var triggers: [ConditionFeatures?]

    /// Each rule's ``OptimizerRule/rewritesOnlyOnChange``, read once per
    /// rule list rather than through the existential on every rewrite.
    private var onlyOnChange: [Bool]

    /// The union of all rules' triggers, `nil` when some rule has none (it
    /// may fire on any query): a query with none of them is already
    /// optimal, answered without visiting the rules one by one.
    private var anyTrigger: ConditionFeatures?

    /// Whether rules whose ``OptimizerRule/triggers`` the query lacks are
    /// skipped (the default). Off only in the tests that check that skipping
    /// changes no result.
    var skipsUntriggeredRules = true

    /// The default rules (``defaultRules``) or the caller's own list.
    public init(rules: [any OptimizerRule] = Optimizer.defaultRules, maxIterations: Int = 16) {
        self.rules = rules
        self.maxIterations = maxIterations
        triggers = rules.map(\.triggers)
        onlyOnChange = rules.map(\.rewritesOnlyOnChange)
        anyTrigger = Optimizer.union(triggers)
    }

    private static func union(_ triggers: [ConditionFeatures?]) -> ConditionFeatures? {
        var all: ConditionFeatures = []
        for t in triggers {
            guard let t else { return nil }
            all.formUnion(t)
        }
        return all
    }

    /// Every rule of the project, in the order they run: structure first
    /// (flatten, fold, negation), then the merges, then the pruning rules.
    public static let defaultRules: [any OptimizerRule] = [
        FlattenLogic(), FoldConstants(), PushNegation(), RemoveDuplicates(), Contradictions(), HoistCommonConjunct(),
        MergeBounds(), EqualitiesToIn(), InequalitiesToNotIn(), SingletonIn(), CanonicalPrefix(), DropOrderForCount(),
    ]

    /// One rule that changed the query: its name and the query before and after.
    public struct Step: Sendable {
        public var rule: String
        public var before: Query
        public var after: Query
    }

    /// The optimized query and the steps that led to it.
    public struct Result: Sendable {
        public var query: Query
        public var steps: [Step]
    }

    /// Checks the query (``CompileTimeChecks``), then applies the rules round
    /// after round until a round changes nothing or `maxIterations` rounds ran.
    public func optimize(_ query: Query) throws(QueryError) -> Result {
        var steps: [Step] = []
        let optimized = try run(query, recordingSteps: true, into: &steps)
        return Result(query: optimized, steps: steps)
    }

    /// The optimized query with the default rules (no steps recorded by the caller).
    /// The query is consumed: most queries are already optimal and come
    /// back as they are, moved rather than copied (a copy retained each of
    /// the query's members).
    public static func optimize(_ query: consuming Query) throws(QueryError) -> Query {
        var none: [Step] = []
        return try standard.run(query, recordingSteps: false, into: &none)
    }

    /// The default optimizer, built once (its rules' triggers read once).
    private static let standard = Optimizer()

    /// The optimized query; each change appended to `steps` when `recordingSteps`.
    private func run(_ query: consuming Query, recordingSteps: Bool, into steps: inout [Step]) throws(QueryError) -> Query {
        // What the query contains: a rule none of whose triggers occur
        // cannot change it, and is skipped without walking the tree.
        // Recomputed after each change (rare), so it is always exact. The
        // same walk tells whether there is a geo operand to check at all.
        var features = ConditionFeatures(query)
        if features.contains(.geoOperand) { try CompileTimeChecks.check(query) }
        // Most queries are already optimal: the first round looks for a
        // change on the caller's query itself, and only a change is copied.
        var first: Query?
        guard maxIterations > 0, let index = firstRewrite(of: query, features: features, into: &first) else { return query }
        var current = first.take()!
        if recordingSteps { steps.append(Step(rule: rules[index].name, before: copy query, after: current)) }
        features = ConditionFeatures(current)
        // The rest of the first round, then whole rounds until one changes nothing.
        var start = index + 1, changed = true, round = 1
        while true {
            // No rule can change the query any more (the usual state after
            // one rewrite): the rounds left would change nothing.
            if skipsUntriggeredRules, let anyTrigger, features.isDisjoint(with: anyTrigger) { break }
            for i in start..<rules.count {
                if skipsUntriggeredRules, let t = triggers[i], features.isDisjoint(with: t) { continue }
                let rule = rules[i]
                // Most rules leave most queries alone: `rewritten` says so
                // without rebuilding the query, and only a rewrite is compared.
                if let next = rule.rewritten(current), onlyOnChange[i] || next != current {
                    if recordingSteps { steps.append(Step(rule: rule.name, before: current, after: next)) }
                    current = next
                    features = ConditionFeatures(current)
                    changed = true
                }
            }
            if !changed || round >= maxIterations { break }
            start = 0
            changed = false
            round += 1
        }
        current.source = query.source
        current.range = query.range
        return current
    }

    /// The index of the first rule (in order) that changes `query`, with
    /// its result stored in `result` (an `inout` rather than a returned
    /// tuple, which Swift copies out of its optional).
    private func firstRewrite(of query: Query, features: ConditionFeatures, into result: inout Query?) -> Int? {
        if skipsUntriggeredRules, let anyTrigger, features.isDisjoint(with: anyTrigger) { return nil }
        for i in rules.indices {
            if skipsUntriggeredRules, let t = triggers[i], features.isDisjoint(with: t) { continue }
            if let next = rules[i].rewritten(query), onlyOnChange[i] || next != query {
                result = next
                return i
            }
        }
        return nil
    }
}

/// One rewrite of the optimizer: a pure function from a query to an
/// equivalent query (EvaluationSemantics.md). It must return its input unchanged when
/// it does not apply, so the pipeline can tell when a fixed point is reached.
public protocol OptimizerRule: Sendable {
    /// The rule's name, as `cql explain` shows it.
    var name: String { get }
    func apply(_ query: Query) -> Query
    /// ``apply(_:)``'s result, or `nil` when the rule certainly leaves the
    /// query unchanged (a non-`nil` result may still equal the input). The
    /// default applies the rule; condition rules answer without rebuilding
    /// an unchanged tree.
    func rewritten(_ query: Query) -> Query?
    /// The features of which a query needs at least one for this rule to
    /// change it (``ConditionFeatures``); `nil` (the default): any query.
    /// The optimizer skips the rule on queries with none of them, so the
    /// set must be complete: a rule that may fire on a query whose
    /// features miss all of its triggers must not declare them.
    var triggers: ConditionFeatures? { get }
    /// Whether a non-`nil` ``rewritten(_:)`` always differs from its input
    /// (`false`, the default: it may equal it). The optimizer takes such a
    /// rule's rewrite without comparing it to the query (some 600
    /// instructions a rewrite).
    var rewritesOnlyOnChange: Bool { get }
}

extension OptimizerRule {
    public func rewritten(_ query: Query) -> Query? { apply(query) }
    public var triggers: ConditionFeatures? { nil }
    public var rewritesOnlyOnChange: Bool { false }
}

/// A rule that rewrites single condition nodes. Its `apply(_:)` visits the
/// condition tree bottom-up (children first) and the conditions of
/// subqueries, but not the inside of `$elemMatch`, whose paths are relative
/// to an array element and whose meaning differs (no fan-out).
///
/// Every condition rule is an equivalence (the node matches exactly the
/// objects its rewrite matches), so it is sound in every context: at the top
/// level, under `not`, inside `or` and in a subquery alike.
///
/// One exception is kept out: a `near` orders the results (nearest first)
/// when the query has no explicit order, and which `near` does so is the
/// first one left after constant folding (EvaluationSemantics.md; the evaluator's
/// `QueryPlan.firstNear`). Dropping, reordering or folding operands next to a
/// `near` can change that first one without changing which objects match, so
/// the condition of such a query (no `order`, results asked for, a `near`
/// outside `$elemMatch`) is left as written.
public protocol ConditionRule: OptimizerRule {
    /// The rewrite of one node, or `nil` when the rule does not apply there.
    func rewrite(_ condition: Condition) -> Condition?
}

extension ConditionRule {
    public var name: String { String(describing: type(of: self)) }

    public func apply(_ query: Query) -> Query { rewritten(query) ?? query }

    public func rewritten(_ query: Query) -> Query? {
        guard let condition = query.condition else { return nil }
        // The walk also tells whether the tree has a `near` (the nodes it
        // visits are those ``Condition/mentionsNear`` looks at): no second
        // walk for ``NearOrder/fixesOrder(_:)``.
        var nears = false
        guard let new = walk(condition, nears: &nears) else { return nil }
        if nears && query.order.isEmpty && query.count != .only { return nil }
        var q = query
        q.condition = new
        return q
    }

    /// The node after the rule ran bottom-up, or `nil` when no child and not
    /// the node itself was rewritten.
    func walk(_ c: Condition) -> Condition? {
        var nears = false
        return walk(c, nears: &nears)
    }

    /// ``walk(_:)``, setting `nears` when a `near` is among the nodes it
    /// visits: the object's own tests (``ConditionDescent/ownTests``); each
    /// sub-query is rewritten as a query of its own (its own `near` rule).
    private func walk(_ c: Condition, nears: inout Bool) -> Condition? {
        c.transformed(entering: .ownTests) { node in
            if case .near = node.predicate { nears = true }
            let withSubquery = node.mappingSubquery { rewritten($0) }
            return rewrite(withSubquery ?? node) ?? withSubquery
        }
    }
}

/// Whether a query's result order comes from a `near` in its condition.
enum NearOrder {
    static func fixesOrder(_ query: Query) -> Bool {
        guard query.order.isEmpty, query.count != .only, let c = query.condition else { return false }
        return c.mentionsNear
    }
}
