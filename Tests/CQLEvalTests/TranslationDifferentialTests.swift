import CQLKit
import CorpusSupport
import EvalCorpusSupport
import XCTest

@testable import CQLEval

/// Translation must not change meaning: for every eval corpus case that runs,
/// the query is carried through each other form the library writes — canonical
/// CQL, where-JSON in each dialect read back by the where-JSON reader, and
/// NSPredicate text read back by the NSPredicate parser — and
/// evaluated again over the same data. Results (ids in order, count) must be
/// identical. A form that cannot express the query (a named `unsupported`
/// error) is skipped and counted; any other failure is a test failure.
final class TranslationDifferentialTests: XCTestCase {
    func testEveryTranslationEvaluatesLikeTheOriginal() throws {
        let fixture = EvalCorpusFixture()
        let root = try XCTUnwrap(EvalCorpusFixture.corpusRoot)
        let cases = try EvalCorpusFixture.allCases(root: root)
        var compared = 0, unsupported = 0
        for c in cases where c["error"] == nil {
            guard let text = c["query"] else { continue }
            do throws(QueryError) {
                let parameters = try c["params"].map(fixture.parseParams) ?? []
                let now = DateValue(millisecondsSince1970: 1_700_000_000_000)
                let bound = try Binder.bind(try fixture.parse(c), parameters: parameters, now: now)
                let store = try fixture.store(for: c, className: bound.className, root: root)
                let expected = try QueryPlan(bound, store: store).run()
                for (name, translate) in translations {
                    let translated: Query
                    do throws(QueryError) {
                        translated = try translate(bound)
                    } catch where error.kind == .unsupported {
                        unsupported += 1
                        continue
                    }
                    let got = try QueryPlan(translated, store: store).run()
                    compared += 1
                    XCTAssertEqual(ids(got), ids(expected), "\(c) via \(name): ids differ for \(text)")
                    XCTAssertEqual(got.count, expected.count, "\(c) via \(name): count differs for \(text)")
                }
            } catch {
                XCTFail("\(c): \(error.rendered())")
            }
        }
        print("translation differential: \(compared) translated runs agreed; \(unsupported) translations unsupported")
        XCTAssertGreaterThan(compared, cases.count * 2)
    }

    private var translations: [(String, (Query) throws(QueryError) -> Query)] {
        var list: [(String, (Query) throws(QueryError) -> Query)] = [
            ("canonical CQL", { q throws(QueryError) in try CQLParser.parse(try CQLFormatter.format(q)) })
        ]
        for dialect in WhereJSONDialect.allCases {
            list.append(("where-JSON (\(dialect.rawValue))", { q throws(QueryError) in
                let json = JSONWriter.string(try WhereJSONEmitter.emit(q, dialect: dialect))
                return try WhereJSONReader.read(json)
            }))
        }
        list.append(("NSPredicate", { q throws(QueryError) in
            try NSPredicateParser.parse(format: try NSPredicateFormatter.format(q), className: q.className)
        }))
        return list
    }

    private func ids(_ r: QueryResult) -> [String] {
        r.objects.map { $0["objectId"]?.stringValue ?? JSONWriter.string(.object($0)) }
    }
}
