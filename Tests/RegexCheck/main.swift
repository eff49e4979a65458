import CQLEval
import CQLKit
import CorpusSupport
import EvalCorpusSupport
import Foundation

// `cql-regex-check`: what CI runs against the build without trait `PCRE2`
// (`swift build --disable-default-traits --product cql-regex-check`), where
// the test bundle, which needs the servers' dependencies, is not built. It
// runs every eval corpus case (read and optimized) on the build's standard
// regex engine, and checks that a catastrophic pattern ends with "regex too
// expensive" and a backreference with the engine's named refusal. Exits 1 on
// any failure.

var failures = 0
@MainActor func fail(_ message: String) {
    failures += 1
    print("FAIL: \(message)")
}

let engine: String
#if PCRE2
engine = "PCRE2"
#else
engine = "Swift"
if RegexEngineKind.standard != .swift { fail("the standard engine is not the Swift engine") }
#endif

guard let root = EvalCorpusFixture.corpusRoot else {
    print("FAIL: Corpus/eval not found")
    exit(1)
}
let fixture = EvalCorpusFixture()
let cases = try EvalCorpusFixture.allCases(root: root)
var passed = 0
for c in cases {
    let problems = [false, true].compactMap { fixture.failure(of: c, root: root, optimized: $0) }
    if problems.isEmpty { passed += 1 } else { fail("\(c) [\(c["row"] ?? "?")]: " + problems.joined(separator: "\n")) }
}
let refused = engine == "Swift" ? cases.filter { $0["refused-without-pcre2"] != nil }.count : 0
print("eval corpus on the \(engine) regex engine: \(passed)/\(cases.count) cases passed (\(refused) of them by the expected refusal)")

/// The error of planning and running `query` over one object `{"s": subject}`.
func error(of query: String, subject: String) -> QueryError? {
    do throws(QueryError) {
        let store = DocumentStore(["T": [["objectId": "a", "s": .string(subject)]]])
        _ = try QueryPlan(try CQLParser.parse(query), store: store).run()
        return nil
    } catch {
        return error
    }
}

// The budget: a catastrophic pattern ends, with PCRE2's message.
let start = ContinuousClock.now
let expensive = error(of: "select * from T where s regexp '(a+)+$'", subject: String(repeating: "a", count: 40) + "b")
if expensive?.message != "regex too expensive: '(a+)+$' exceeded its match limit" {
    fail("catastrophic pattern: \(expensive.map(\.message) ?? "no error")")
}
if ContinuousClock.now - start > .seconds(30) { fail("catastrophic pattern took \(ContinuousClock.now - start)") }

// A construct the Swift engine cannot run with PCRE2's meaning: refused by
// name, positioned; PCRE2 runs it.
let backreference = error(of: #"select * from T where s regexp '(a)\1'"#, subject: "aa")
#if PCRE2
if let backreference { fail("PCRE2 refused a backreference: \(backreference.message)") }
#else
if backreference?.kind != .unsupported || !(backreference?.message.contains("a backreference (\\1) in '(a)\\1' at offset 3") ?? false)
    || backreference?.range == nil
{
    fail("backreference: \(backreference.map(\.message) ?? "no error")")
}
#endif

print(failures == 0 ? "cql-regex-check: passed" : "cql-regex-check: \(failures) failed")
exit(failures == 0 ? 0 : 1)
