import CorpusSupport
import XCTest
@testable import CQLKit

/// Every limit of ``QueryLimits`` and the parsers' nesting limits, each hit
/// and its message checked. Nesting goes to 1,000,000 levels: an error, never
/// a stack overflow.
final class QueryLimitsTests: XCTestCase {
    private func failure(_ body: () throws(QueryError) -> Any) -> QueryError? {
        do { _ = try body(); return nil } catch { return error }
    }

    private func limits(_ change: (inout QueryLimits) -> Void) -> QueryLimits {
        var l = QueryLimits()
        change(&l)
        return l
    }

    func testQueryTextLength() {
        let small = limits { $0.maxQueryLength = 40 }
        let texts: [(QueryLanguage, String)] = [
            (.cql, "select * from T where name = '" + String(repeating: "x", count: 40) + "'"),
            (.usergrid, "name = '" + String(repeating: "x", count: 40) + "'"),
            (.whereJSON, #"{"name":""# + String(repeating: "x", count: 40) + #""}"#),
        ]
        for (language, text) in texts {
            let e = failure { () throws(QueryError) in try language.parse(text, className: "T", limits: small) }
            XCTAssertEqual(e?.kind, .limit, "\(language)")
            XCTAssertEqual(e?.message, "the query is \(text.utf8.count) bytes long; the limit is 40 bytes")
            XCTAssertEqual(e?.range, SourceRange(40, 41))
            let short = language == .whereJSON ? "{}" : language == .cql ? "select * from T" : "a = 1"
            XCTAssertNoThrow(try language.parse(short, className: "T", limits: small))
        }
        // The default: 1 MiB.
        let big = "select * from T where s = '" + String(repeating: "x", count: 1 << 20) + "'"
        XCTAssertEqual(failure { () throws(QueryError) in try QueryLanguage.cql.parse(big) }?.message,
                       "the query is \(big.utf8.count) bytes long; the limit is 1048576 bytes")
    }

    /// A million levels of parentheses, brackets and `not`s in every front
    /// end: the parsers' nesting limits answer, in well under the time a
    /// stack overflow or a quadratic walk would take.
    func testMillionFoldNestingIsALimitErrorInEveryParser() {
        let n = 1_000_000
        var unbounded = CQLParser.Options()
        unbounded.maxLength = .max
        let cql = [
            "select * from T where " + String(repeating: "(", count: n) + "a = 1" + String(repeating: ")", count: n),
            "select * from T where a = " + String(repeating: "[", count: n) + String(repeating: "]", count: n),
            "select * from T where " + String(repeating: "not ", count: n) + "a = 1",
        ]
        for text in cql {
            let e = failure { () throws(QueryError) in try CQLParser.parse(text, options: unbounded) }
            XCTAssertEqual(e?.message, "nesting deeper than 200 levels (parentheses, subqueries, literals and 'not's)")
        }
        for text in [String(repeating: "(", count: n) + "a = 1" + String(repeating: ")", count: n),
                     String(repeating: "not ", count: n) + "a = 1"] {
            let e = failure { () throws(QueryError) in try UsergridParser.parse(text) }
            XCTAssertEqual(e?.message, "conditions nest deeper than 128 levels")
        }
        for text in [String(repeating: "[", count: n) + String(repeating: "]", count: n),
                     String(repeating: #"{"a":"#, count: n) + "1" + String(repeating: "}", count: n)] {
            let e = failure { () throws(QueryError) in try JSONReader.parse(text) }
            XCTAssertEqual(e?.message, "JSON nesting deeper than 512 levels")
            XCTAssertEqual(failure { () throws(QueryError) in try WhereJSONReader.read(text) }?.message,
                           "JSON nesting deeper than 512 levels")
        }
        // Within the JSON limit but past where-JSON's own: nested `$or`s.
        let ors = String(repeating: #"{"$or":["#, count: 300) + #"{"a":1}"# + String(repeating: "]}", count: 300)
        XCTAssertEqual(failure { () throws(QueryError) in try WhereJSONReader.read(ors) }?.kind, .limit)
    }

    func testConditionNestingAcrossSubqueries() {
        // The tree's depth, whatever the language (here 6 nested `not`s).
        let shallow = limits { $0.maxNestingDepth = 5 }
        let text = "select * from T where not (not (not (not (not (not a = 1)))))"
        let e = failure { () throws(QueryError) in try QueryLanguage.cql.parse(text, limits: shallow) }
        XCTAssertEqual(e?.message, "conditions are nested more than 5 levels deep")
        XCTAssertNoThrow(try QueryLanguage.cql.parse("select * from T where not (not (not (not a = 1)))", limits: shallow))
    }

    func testInListLength() {
        let list = (0...10_000).map(String.init).joined(separator: ", ")
        let e = failure { () throws(QueryError) in try QueryLanguage.cql.parse("select * from T where a in (\(list))") }
        XCTAssertEqual(e?.kind, .limit)
        XCTAssertEqual(e?.message, "the 'in' list has 10001 values; the limit is 10000")
        XCTAssertEqual(e?.range?.start, 22)
        let two = limits { $0.maxListLength = 2 }
        for (language, text) in [(QueryLanguage.cql, "select * from T where a not in (1, 2, 3)"),
                                 (.whereJSON, #"{"a":{"$nin":[1,2,3]}}"#)] {
            XCTAssertEqual(failure { () throws(QueryError) in try language.parse(text, className: "T", limits: two) }?.kind,
                           .limit, text)
        }
        XCTAssertEqual(failure { () throws(QueryError) in try QueryLanguage.cql.parse("select * from T where a all (1, 2, 3)", limits: two) }?.message,
                       "the 'all' list has 3 values; the limit is 2")
        XCTAssertNoThrow(try QueryLanguage.cql.parse("select * from T where a in (1, 2)", limits: two))
        // Lists are checked again once bound (`all (?)` takes an array).
        let q = try! CQLParser.parse("select * from T where a all (?)")
        XCTAssertEqual(failure { () throws(QueryError) in try Binder.bind(q, parameters: [[1, 2, 3]], limits: two) }?.message,
                       "the 'all' list has 3 values; the limit is 2")
    }

    func testConditionCount() {
        let many = (0...10_000).map { "a = \($0)" }.joined(separator: " or ")
        var loose = CQLParser.Options()
        loose.maxLength = .max
        XCTAssertNoThrow(try CQLParser.parse("select * from T where " + many, options: loose))
        let e = failure { () throws(QueryError) in try QueryLanguage.cql.parse("select * from T where " + many) }
        XCTAssertEqual(e?.message, "the query has more than 10000 conditions")
        let three = limits { $0.maxConditions = 3 }
        XCTAssertNoThrow(try QueryLanguage.cql.parse("select * from T where a = 1 and b = 2", limits: three))
        XCTAssertEqual(failure { () throws(QueryError) in
            try QueryLanguage.cql.parse("select * from T where a = 1 and b in (select b from U where c = 1 and d = 2)", limits: three)
        }?.message, "the query has more than 3 conditions")
    }

    func testPatternLength() {
        let long = String(repeating: "a", count: 8_193)
        let e = failure { () throws(QueryError) in try QueryLanguage.cql.parse("select * from T where s regexp '\(long)'") }
        XCTAssertEqual(e?.message, "the regular expression is 8193 bytes long; the limit is 8192 bytes")
        XCTAssertEqual(failure { () throws(QueryError) in try QueryLanguage.cql.parse("select * from T where s like '\(long)'") }?.message,
                       "the 'like' pattern is 8193 bytes long; the limit is 8192 bytes")
        XCTAssertEqual(failure { () throws(QueryError) in try QueryLanguage.whereJSON.parse(#"{"s":{"$regex":"\#(long)"}}"#) }?.kind, .limit)
        XCTAssertNoThrow(try QueryLanguage.cql.parse("select * from T where s regexp '\(long.dropLast())'"))
        // A pattern bound to a placeholder is checked once bound.
        let q = try! CQLParser.parse("select * from T where s regexp ?")
        XCTAssertEqual(failure { () throws(QueryError) in try Binder.bind(q, parameters: [.string(long)]) }?.kind, .limit)
    }

    func testSubqueryDepth() {
        let n = 33
        let text = "select * from T where " + String(repeating: "a in (select a from T where ", count: n) + "a = 1"
            + String(repeating: ")", count: n)
        let e = failure { () throws(QueryError) in try QueryLanguage.cql.parse(text) }
        XCTAssertEqual(e?.message, "subqueries are nested more than 32 levels deep")
        let two = limits { $0.maxSubqueryDepth = 2 }
        let where3 = #"{"a":{"$inQuery":{"className":"U","where":{"b":{"$inQuery":{"className":"V","where":{"c":{"$select":{"query":{"className":"W"},"key":"k"}}}}}}}}}"#
        XCTAssertEqual(failure { () throws(QueryError) in try QueryLanguage.whereJSON.parse(where3, className: "T", limits: two) }?.message,
                       "subqueries are nested more than 2 levels deep")
        XCTAssertNoThrow(try QueryLanguage.cql.parse("select * from T where a in (select a from U where b in (select b from V))", limits: two))
    }
    /// `admitsEveryCQLStatement(ofLength:)` lets short CQL skip the limit
    /// walk: for every CQL corpus statement and many small limits, a length
    /// it admits is one whose statement passes the walk; and the shortest
    /// statements that break each limit are longer than the bound.
    func testShortCQLSkipsTheLimitWalkOnlyWhenNoLimitCanBeBroken() throws {
        var texts = try Corpus.cases(in: "cql").compactMap { $0["query"] }
        texts += ["select * from T where not not not not a=1", "select * from T where a=1 or b=2 or c=3 and d=4",
                  "select * from T where a in (1,2,3,4,5,6)", "select * from T where a like 'xxxxxxxx'",
                  "select * from T where a in (select a from T where a in (select a from T))"]
        var checked = 0
        for text in texts {
            guard let statement = try? CQLParser.parseStatement(text) else { continue }
            let n = text.utf8.count
            for k in 0...n + 1 {
                for change in [{ (l: inout QueryLimits) in l.maxNestingDepth = k }, { $0.maxConditions = k },
                               { $0.maxListLength = k }, { $0.maxPatternLength = k }, { $0.maxSubqueryDepth = k / 6 }] {
                    let l = limits(change)
                    guard l.admitsEveryCQLStatement(ofLength: n) else { continue }
                    checked += 1
                    XCTAssertNoThrow(try QueryLanguage.cql.parseStatement(text, limits: l), "\(text) \(l)")
                    var q: Query
                    switch statement {
                    case .select(let s): q = s
                    case .update(let u): q = Query(className: u.className, condition: u.condition)
                    case .delete(let d): q = Query(className: d.className, condition: d.condition)
                    case .insert: continue
                    }
                    XCTAssertNoThrow(try l.check(q), "\(text) \(l)")
                }
            }
        }
        XCTAssertGreaterThan(checked, 1000)
        // The tightest cases: one more condition, level, value, byte or subquery is a limit error.
        let tight: [(String, QueryLimits)] = [
            ("select * from T where a=1", limits { $0.maxConditions = 0 }),
            ("select * from T where a=1", limits { $0.maxNestingDepth = 0 }),
            ("select * from T where a in (1,2)", limits { $0.maxListLength = 1 }),
            ("select * from T where a like 'ab'", limits { $0.maxPatternLength = 1 }),
            ("select * from T where a in (select a from T)", limits { $0.maxSubqueryDepth = 0 }),
        ]
        for (text, l) in tight {
            XCTAssertFalse(l.admitsEveryCQLStatement(ofLength: text.utf8.count), text)
            XCTAssertEqual(failure { () throws(QueryError) in try QueryLanguage.cql.parseStatement(text, limits: l) }?.kind, .limit, text)
        }
    }
}
