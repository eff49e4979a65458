// Benchmarks, kept apart from the tests (tests never assert timings).
// Run through scripts/bench (Benchmarks/bench.py), which builds in release mode and also times the
// `cql` command itself. Each figure is printed beside its reference, in one run.
import CQLEval
import CQLKit
import Foundation

func seconds(_ body: () throws -> Void) rethrows -> Double {
    let start = DispatchTime.now().uptimeNanoseconds
    try body()
    return Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
}

func fmt(_ x: Double) -> String { String(format: "%.3g", x) }

/// How many times each figure is measured; the median is reported.
nonisolated(unsafe) var runs = 5

/// The median time of `runs` runs of `body`.
func median(_ body: () throws -> Void) rethrows -> Double {
    var times: [Double] = []
    for _ in 0..<runs { times.append(try seconds(body)) }
    times.sort()
    return times[times.count / 2]
}

// MARK: Front end: lex / parse / bind / emit over the CQL corpus queries.

func corpusQueries(root: String) throws -> [String] {
    let dir = root + "/Corpus/cql"
    var queries: [String] = []
    for name in try FileManager.default.contentsOfDirectory(atPath: dir).sorted() where name.hasSuffix(".cases") {
        let text = try String(contentsOfFile: dir + "/" + name, encoding: .utf8)
        // Single-line queries of cases without an expected error.
        for block in text.components(separatedBy: "\n\n") {
            let lines = block.split(separator: "\n")
            guard !lines.contains(where: { $0.hasPrefix("error:") || $0.hasPrefix("params:") || $0.hasPrefix("|") }) else { continue }
            if let q = lines.first(where: { $0.hasPrefix("query: ") }) { queries.append(String(q.dropFirst(7))) }
        }
    }
    return queries.filter { (try? CQLParser.parse($0)) != nil }
}

@discardableResult
func benchFrontEnd(root: String) throws -> [String: Double] {
    let queries = try corpusQueries(root: root)
    let bytes = queries.reduce(0) { $0 + $1.utf8.count }
    let rounds = 200
    var sink = 0
    let lex = try seconds {
        for _ in 0..<rounds { for q in queries { sink &+= try CQLLexer.tokenize(q).count } }
    }
    let parse = try seconds {
        for _ in 0..<rounds { for q in queries { sink &+= try CQLParser.parse(q).order.count } }
    }
    let full = try seconds {
        for _ in 0..<rounds {
            for q in queries {
                let bound = try Binder.bind(try CQLParser.parse(q), parameters: [], now: DateValue(millisecondsSince1970: 0))
                if let out = try? WhereJSONEmitter.emit(bound, dialect: .parse) { sink &+= JSONWriter.string(out).utf8.count }
            }
        }
    }
    let n = Double(queries.count * rounds)
    let mb = Double(bytes * rounds) / 1e6
    print("front end over \(queries.count) corpus queries x \(rounds) (\(bytes) bytes per round):")
    print("  lex                  \(fmt(n / lex)) queries/s  \(fmt(mb / lex)) MB/s")
    print("  lex+parse            \(fmt(n / parse)) queries/s  \(fmt(mb / parse)) MB/s")
    print("  parse+bind+emit JSON \(fmt(n / full)) queries/s  \(fmt(mb / full)) MB/s")
    if sink == 42 { print("") }
    return ["front_parse_bind_emit_queries_per_s": n / full]
}

// MARK: Evaluator: a 3-predicate filter over 1M in-memory objects vs a hand-written closure.

func makeObjects(_ n: Int) -> [[String: Value]] {
    var rng = SystemRandomNumberGenerator()
    var out: [[String: Value]] = []
    out.reserveCapacity(n)
    for i in 0..<n {
        out.append([
            "objectId": .string("o\(i)"),
            "score": .int(Int64.random(in: 0..<1000, using: &rng)),
            "cheatMode": .bool(Bool.random(using: &rng)),
            "level": .int(Int64.random(in: 0..<10, using: &rng)),
            "name": .string(["alice", "bob", "carol", "dave"][i % 4]),
        ])
    }
    return out
}

/// The GameScore objects of `makeObjects` as the typed struct an app
/// would filter with Foundation's `#Predicate`.
struct GameScoreRow {
    var score: Int64
    var cheatMode: Bool
    var level: Int64
    var name: String
}

/// Plans a CQL query with no parameters.
func planQuery(_ text: String) throws -> QueryPlan {
    try QueryPlan(try Binder.bind(try CQLParser.parse(text), parameters: []))
}

// The timed bodies, out of line so that a profile (callgrind) shows each
// side apart. Both sides do the same work: the plan's `run(over:)` returns
// the array of matching objects, so the closure builds it too (`filter`);
// with `count(*)` alone the plan keeps no objects, and the closure only counts.

/// The matches of a plan, as an app would take them; one function per
/// filter, so that each has its own line in a profile.
@inline(never)
func threePredicatesFilteredByPlan(_ plan: QueryPlan, _ objects: [[String: Value]]) throws -> Int {
    try plan.run(over: objects).objects.count
}

/// A `count(*)` plan's count.
@inline(never)
func threePredicatesCountedByPlan(_ plan: QueryPlan, _ objects: [[String: Value]]) throws -> Int {
    try plan.run(over: objects).count ?? -1
}

@inline(never)
func regexRangeFilteredByPlan(_ plan: QueryPlan, _ objects: [[String: Value]]) throws -> Int {
    try plan.run(over: objects).objects.count
}

@inline(never)
func inListsFilteredByPlan(_ plan: QueryPlan, _ objects: [[String: Value]]) throws -> Int {
    try plan.run(over: objects).objects.count
}

/// What a programmer would write by hand for `score > 500 and cheatMode = false and level < 5`.
@inline(__always)
func threePredicatesByHand(_ o: [String: Value]) -> Bool {
    guard case .int(let s)? = o["score"], s > 500 else { return false }
    guard case .bool(false)? = o["cheatMode"] else { return false }
    guard case .int(let l)? = o["level"], l < 5 else { return false }
    return true
}

@inline(never)
func threePredicatesFilteredByHand(_ objects: [[String: Value]]) -> Int {
    objects.filter(threePredicatesByHand).count
}

@inline(never)
func threePredicatesCountedByHand(_ objects: [[String: Value]]) -> Int {
    objects.reduce(0) { $0 + (threePredicatesByHand($1) ? 1 : 0) }
}

/// `name regexp '^(al|ca)' and score >= 100` by hand.
@inline(never)
func regexRangeFilteredByHand(_ objects: [[String: Value]]) -> Int {
    objects.filter { o in
        guard case .string(let s)? = o["name"], s.hasPrefix("al") || s.hasPrefix("ca"),
            case .int(let sc)? = o["score"], sc >= 100 else { return false }
        return true
    }.count
}

/// `name in ('alice', 'carol', 'erin') and level in (1, 3, 5, 7.0)` by hand.
@inline(never)
func inListsFilteredByHand(_ objects: [[String: Value]], _ names: Set<String>, _ levels: Set<Int64>) -> Int {
    objects.filter { o in
        guard case .string(let s)? = o["name"], names.contains(s), case .int(let l)? = o["level"], levels.contains(l)
        else { return false }
        return true
    }.count
}

/// Foundation's `#Predicate` over typed structs, filtering as the closure does.
@inline(never)
func threePredicatesFilteredByFoundation(_ rows: [GameScoreRow], _ predicate: Foundation.Predicate<GameScoreRow>) throws -> Int {
    try rows.filter { try predicate.evaluate($0) }.count
}

func benchEvaluator(objects n: Int) throws -> [String: Double] {
    let objects = makeObjects(n)
    // Foundation's #Predicate over typed structs (the rows converted once, untimed; timed last).
    let rows = objects.map { o -> GameScoreRow in
        guard case .int(let s)? = o["score"], case .bool(let c)? = o["cheatMode"], case .int(let l)? = o["level"],
            case .string(let name)? = o["name"] else { fatalError("makeObjects makes every key") }
        return GameScoreRow(score: s, cheatMode: c, level: l, name: name)
    }
    let condition = "score > 500 and cheatMode = false and level < 5"
    let threePredicates = try planQuery("select * from GameScore where " + condition)
    var planned = 0, reference = 0
    let tHand = median { reference = threePredicatesFilteredByHand(objects) }
    let tPlan = try median { planned = try threePredicatesFilteredByPlan(threePredicates, objects) }
    precondition(planned == reference, "plan and closure disagree: \(planned) vs \(reference)")
    let countPlan = try planQuery("select count(*) from GameScore where " + condition)
    var counted = 0, countedByHand = 0
    let tCountHand = median { countedByHand = threePredicatesCountedByHand(objects) }
    let tCountPlan = try median { counted = try threePredicatesCountedByPlan(countPlan, objects) }
    precondition(counted == reference && countedByHand == reference, "count(*) and closure disagree")
    print("evaluator, 3-predicate filter over \(n) in-memory objects (\(planned) match), median of \(runs):")
    print("  QueryPlan.run          \(fmt(Double(n) / tPlan)) objects/s")
    print("  closure (filter)       \(fmt(Double(n) / tHand)) objects/s")
    print("  ratio plan/closure     \(fmt(tPlan / tHand))x the closure's time")
    print("  count(*) plan/closure  \(fmt(tCountPlan / tCountHand))x (\(fmt(Double(n) / tCountPlan)) objects/s)")

    let regexPlan = try planQuery("select * from GameScore where name regexp '^(al|ca)' and score >= 100")
    var rCount = 0, rHand = 0
    let tRegexHand = median { rHand = regexRangeFilteredByHand(objects) }
    let tRegex = try median { rCount = try regexRangeFilteredByPlan(regexPlan, objects) }
    precondition(rCount == rHand, "regex plan and closure disagree")
    let inPlan = try planQuery("select * from GameScore where name in ('alice', 'carol', 'erin') and level in (1, 3, 5, 7.0)")
    let names: Set<String> = ["alice", "carol", "erin"], levels: Set<Int64> = [1, 3, 5, 7]
    var iCount = 0, iHand = 0
    let tInHand = median { iHand = inListsFilteredByHand(objects, names, levels) }
    let tIn = try median { iCount = try inListsFilteredByPlan(inPlan, objects) }
    precondition(iCount == iHand, "in-list plan and closure disagree")
    print("  regex + range (PCRE2 JIT) \(fmt(Double(n) / tRegex)) objects/s; closure with hasPrefix \(fmt(Double(n) / tRegexHand)) objects/s (\(fmt(tRegex / tRegexHand))x)")
    print("  two in-lists           \(fmt(Double(n) / tIn)) objects/s; closure with Sets \(fmt(Double(n) / tInHand)) objects/s (\(fmt(tIn / tInHand))x)")
    let foundation = #Predicate<GameScoreRow> { $0.score > 500 && $0.cheatMode == false && $0.level < 5 }
    var viaFoundation = 0
    let tFoundation = try median { viaFoundation = try threePredicatesFilteredByFoundation(rows, foundation) }
    precondition(viaFoundation == reference, "#Predicate and closure disagree")
    print("  Foundation #Predicate  \(fmt(Double(n) / tFoundation)) objects/s (typed structs)")
    return [
        "memory_objects": Double(n), "memory_matches": Double(planned),
        "memory_plan_s": tPlan, "memory_closure_s": tHand, "memory_foundation_predicate_s": tFoundation,
        "memory_count_plan_s": tCountPlan, "memory_count_closure_s": tCountHand,
        "memory_regex_plan_s": tRegex, "memory_regex_closure_s": tRegexHand,
        "memory_in_plan_s": tIn, "memory_in_closure_s": tInHand,
    ]
}

// MARK: Sorting: order keys over 1M in-memory objects (sort keys computed once per object).

func benchSort(objects n: Int) throws {
    var objects = makeObjects(n)
    // A tenth of the objects hold arrays, so the multikey path is exercised too.
    for i in stride(from: 0, to: n, by: 10) { objects[i]["tags"] = .array([.int(Int64(i % 7)), .int(Int64(i % 3))]) }
    let runs = 3
    print("sorting \(n) in-memory objects, best of \(runs):")
    for text in [
        "select * from GameScore order by score",
        "select * from GameScore order by -score limit 10",
        "select * from GameScore order by level, -score",
        "select * from GameScore order by tags, score",
    ] {
        let plan = try QueryPlan(try Binder.bind(try CQLParser.parse(text), parameters: []))
        var best = Double.infinity
        var count = 0
        for _ in 0..<runs { best = min(best, try seconds { count = try plan.run(over: objects).objects.count }) }
        print("  \(text.dropFirst("select * from GameScore ".count)): \(fmt(Double(n) / best)) objects/s (\(count) results)")
    }
}

// Usage: cql-bench [ROOT] [--only front|eval|sort|optimizer|anchors] [--objects N] [--runs N]
// (--only and a smaller --objects make profiling runs short: perf, callgrind.)
// The last line is `RESULTS {json}`: the figures scripts/bench puts in its table.
var root = FileManager.default.currentDirectoryPath
var only: String?
var objectCount = 1_000_000
var args = CommandLine.arguments.dropFirst()
while let a = args.popFirst() {
    switch a {
    case "--only": only = args.popFirst()
    case "--objects": objectCount = args.popFirst().flatMap { Int($0) } ?? objectCount
    case "--runs": runs = args.popFirst().flatMap { Int($0) } ?? runs
    default: root = a
    }
}
var results: [String: Double] = ["runs": Double(runs)]
if only == nil || only == "front" { results.merge(try benchFrontEnd(root: root)) { $1 } }
if only == nil || only == "eval" { results.merge(try benchEvaluator(objects: objectCount)) { $1 } }
if only == nil || only == "sort" { try benchSort(objects: objectCount) }
if only == nil || only == "optimizer" { try benchOptimizer(objects: objectCount, root: root) }
if only == nil || only == "anchors" {
    results.merge(try benchRegexEngines(strings: objectCount)) { $1 }
    results.merge(try benchNear(points: objectCount)) { $1 }
}
let json = try JSONSerialization.data(withJSONObject: results, options: [.sortedKeys])
print("RESULTS " + String(decoding: json, as: UTF8.self))
