import CQLKit
import CorpusSupport
import XCTest

@testable import CQLEval

/// Small builders so tests read like the semantics table.
enum T {
    static func c(_ p: CQLKit.Predicate) -> Condition { Condition(p) }
    static func cmp(_ path: FieldPath, _ op: ComparisonOperator, _ v: Value) -> Condition {
        Condition(.compare(path, op, .value(v)))
    }
    static func eq(_ path: FieldPath, _ v: Value) -> Condition { cmp(path, .equal, v) }
    static func isIn(_ path: FieldPath, _ vs: [Value], negated: Bool = false) -> Condition {
        Condition(.in(path, vs.map(Term.value), negated: negated))
    }
    static func query(_ condition: Condition?, className: String = "T", order: [OrderKey] = [], skip: Int64? = nil,
                      limit: Int64? = nil, count: CountMode = .none, keys: [SelectedKey] = [], includes: [FieldPath] = []) -> Query {
        Query(className: className, keys: keys, includes: includes, count: count, condition: condition, order: order,
              skip: skip.map { .value(.int($0)) }, limit: limit.map { .value(.int($0)) })
    }
    static func geo(_ lat: Double, _ lng: Double) -> Value { .geoPoint(GeoPoint(latitude: lat, longitude: lng)) }
    static func date(_ iso: String) -> Value { .date(ISODate.parse(iso)!) }
}

/// Evaluation helpers shared by the test cases.
extension XCTestCase {
    /// Object ids (`objectId`) of the objects among `docs` matching `condition`, in input order.
    func ids(_ condition: Condition, _ docs: [[String: Value]], file: StaticString = #filePath, line: UInt = #line) -> [String] {
        do {
            let plan = try QueryPlan(T.query(condition))
            return try docs.filter { try plan.matches($0) }.map { $0["objectId"]?.stringValue ?? "?" }
        } catch {
            XCTFail("unexpected error: \(error)", file: file, line: line)
            return []
        }
    }

    func planError(_ condition: Condition, file: StaticString = #filePath, line: UInt = #line) -> QueryError? {
        do {
            _ = try QueryPlan(T.query(condition))
            XCTFail("expected a plan error", file: file, line: line)
            return nil
        } catch {
            return error
        }
    }

    /// Documents from compact NDJSON-ish literals: one JSON object per element.
    func docs(_ lines: String...) -> [[String: Value]] {
        lines.map { line in
            guard case .object(let o) = try! JSONReader.parse(line).decodingTypedValues() else { fatalError("not an object: \(line)") }
            return o
        }
    }
}

/// Every regex engine of this build: PCRE2 with and without JIT (trait
/// `PCRE2`) and the pure-Swift engine.
enum RegexTestEngines {
    static var all: [RegexEngineKind] {
        #if PCRE2
        return [.pcre2(useJIT: true), .pcre2(useJIT: false), .swift]
        #else
        return [.swift]
        #endif
    }
}

/// Every string the corpus data holds (`Corpus/data`), nested ones too:
/// subjects for the regex tests.
func corpusDataStrings() throws -> Set<String> {
    var strings: Set<String> = []
    let store = try DocumentStore.load(path: try XCTUnwrap(Corpus.root).appendingPathComponent("data").path)
    func collect(_ v: Value) {
        switch v {
        case .string(let s): strings.insert(s)
        case .array(let items): items.forEach(collect)
        case .object(let o), .typedObject(_, let o): o.values.forEach(collect)
        default: break
        }
    }
    for name in store.classNames { store.objects(in: name).forEach { collect(.object($0)) } }
    return strings
}
