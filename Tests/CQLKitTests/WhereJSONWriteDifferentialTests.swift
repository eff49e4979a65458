@testable import CQLKit
import CorpusSupport
import XCTest

/// `WhereJSONEmitter.write` (the direct writer) against
/// `JSONWriter.write(WhereJSONEmitter.emit(...))` (the Value path), byte for
/// byte and error for error, over random queries under every dialect and
/// `objectIdAsMongoId` setting. The corpus cases are compared in
/// ``CQLCorpusTests``; these reach the merges, fallbacks and value edges
/// the corpus does not list one by one.
final class WhereJSONWriteDifferentialTests: XCTestCase {
    /// Queries built for the writer's hard parts (``RandomWhereRequests``).
    func testWriteEqualsEmitOnHardCases() {
        var g = RandomWhereRequests(seed: 12)
        var written = 0
        var direct = 0
        let writer = DirectConditionWriter(emitter: ConditionEmitter(table: WhereJSONDialect.mongo.table))
        for n in 0..<6000 {
            let q = g.query()
            written += compare(q, "hard #\(n)")
            var entries = DirectEntryBuffer(capacity: 8)
            var scratch = JSONByteSink(capacity: 16)
            if let c = q.condition, case .direct? = try? writer.prepare(c, .top, depth: 0, &entries, &scratch) { direct += 1 }
        }
        // Not a test that cannot fail: many queries must be written, and
        // many of their conditions by the direct writer, not its fallback.
        XCTAssertGreaterThan(written, 6000)
        XCTAssertGreaterThan(direct, 1500)
    }

    /// The random queries the evaluator tests use (every construct, typed constants, subqueries, geo).
    func testWriteEqualsEmitOnRandomQueries() {
        for seed in 0..<1500 as Range<UInt64> {
            var g = RandomQueries(seed: seed)
            let data = g.dataset()
            compare(g.query(data), "RandomQueries seed \(seed)")
        }
    }

    /// The where-JSON corpus read back (`Corpus/where`): the reader's forms
    /// (`$and` written out, `$nor`, `$not`, geo, subqueries) in every dialect.
    func testWriteEqualsEmitOnWhereCorpus() throws {
        var read = 0
        for c in try WhereJSONCorpusTests.cases() {
            guard let text = c["query"], let q = try? WhereJSONReader.read(text, className: c["class"] ?? "") else { continue }
            compare(q, "\(c)")
            read += 1
        }
        XCTAssertGreaterThan(read, 50)
    }

    /// Queries parsed from CQL keep their source text: positioned errors match too.
    func testWriteEqualsEmitOnParsedErrors() throws {
        let texts = [
            "select * from T where a = ? and b > 1",
            "select * from T where (a > 1 or b = ?) and c < 2",
            "select * from T where not (a regexp 'x') and a > 1",
            "select * from T where a > 1 limit ?",
            "select * from T where a = 1 order by `a,b`",
        ]
        for text in texts { compare(try CQLParser.parse(text), text) }
    }

    /// The common forms are written directly, not through the Value path's
    /// fallback: comparisons, equality, `in`/`nin`, regex/like/prefix,
    /// exists, size, and/or/not, bounds merged on one key, two `$or`s.
    func testCommonFormsAreWrittenDirectly() throws {
        let conditions = [
            "score > 243 and name = 'alice'",
            "level in (2, 5, 7) and cheatMode = false and x not in ('a')",
            "name regexp '^alice' or (score >= 8 and level < 9)",
            "title like '%dennis%' and priority != 3",
            "a > 1 and a < 5 and (a != 3 and b is exists)",
            "(a = 1 or b = 2) and (c = 3 or d = 4) and not (e = 5 or f = 6)",
            "a = 1 and a > 0 and size(tags) = 2",
            "not (a regexp 'x' or b < 2)",
            "not (a = 1 and b = 2)",
        ]
        for dialect in [WhereJSONDialect.parse, .mongo] {
            let writer = DirectConditionWriter(emitter: ConditionEmitter(table: dialect.table))
            for text in conditions {
                let c = try XCTUnwrap(try CQLParser.parse("select * from T where " + text).condition)
                var entries = DirectEntryBuffer(capacity: 8)
                var scratch = JSONByteSink(capacity: 16)
                guard case .direct = try writer.prepare(c, .top, depth: 0, &entries, &scratch) else {
                    XCTFail("\(text) [\(dialect)]: rendered through the Value path")
                    continue
                }
            }
        }
    }

    /// Large requests: many leaves on long keys, `$or`s nested in `and`s
    /// and in each other, negations. Their keys, operands and objects
    /// outgrow the writer's stack room (entries and scratch bytes move to
    /// the heap mid-request), and nested `$or` branches are written while
    /// the groups that hold them are still being collected.
    func testWriteEqualsEmitOnLargeNestedRequests() throws {
        var rng = SplitMix64(seed: 31)
        func key() -> String { "key_with_a_rather_long_name_\(rng.next() % 6)" }
        func leaf() -> String {
            switch rng.next() % 9 {
            case 0: return "\(key()) = 'value \(rng.next() % 100) with \\\" quotes'"
            case 1: return "\(key()) > \(rng.next() % 1000)"
            case 2: return "\(key()) in (1, 2, 'three', null)"
            case 3: return "\(key()) like 'ab%'"
            case 4: return "\(key()) regexp '^x'"
            case 5: return "not (\(key()) regexp 'y')"
            case 6: return "\(key()) is exists"
            case 7: return "\(key()) != 'z'"
            default: return "\(key()) <= 2.5"
            }
        }
        func condition(_ depth: Int) -> String {
            let n = 2 + Int(rng.next() % 5)
            var items: [String] = []
            for _ in 0..<n {
                switch rng.next() % 6 {
                case 0 where depth < 4: items.append("(\(condition(depth + 1)))")
                case 1 where depth < 4: items.append("not (\(condition(depth + 1)))")
                default: items.append(leaf())
                }
            }
            return items.joined(separator: rng.next() % 2 == 0 ? " and " : " or ")
        }
        var written = 0, large = 0
        for n in 0..<400 {
            let text = "select * from T where " + condition(0)
            let q = try CQLParser.parse(text)
            written += compare(q, "large #\(n)")
            var out: [UInt8] = []
            if (try? WhereJSONEmitter.write(q, dialect: .parse, to: &out)) != nil, out.count > 1024 { large += 1 }
        }
        XCTAssertGreaterThan(written, 1000)
        XCTAssertGreaterThan(large, 50)
    }

    /// Compares both paths for every dialect and setting; the number of
    /// settings where the query was written (not refused).
    @discardableResult
    private func compare(_ q: Query, _ label: String) -> Int {
        var written = 0
        for dialect in WhereJSONDialect.allCases {
            for mongoId in [false, true] {
                let what = "\(label) [\(dialect.rawValue)\(mongoId ? ", _id" : "")]: \(ASTPrinter.describe(q))"
                let prefix: [UInt8] = Array("prefix ".utf8)
                var out = prefix
                let expected: Result<[UInt8], QueryError>
                do {
                    var bytes = prefix
                    JSONWriter.write(try WhereJSONEmitter.emit(q, dialect: dialect, objectIdAsMongoId: mongoId), to: &bytes)
                    expected = .success(bytes)
                } catch {
                    expected = .failure(error)
                }
                do {
                    try WhereJSONEmitter.write(q, dialect: dialect, objectIdAsMongoId: mongoId, to: &out)
                    switch expected {
                    case .success(let bytes):
                        XCTAssertEqual(String(decoding: out, as: UTF8.self), String(decoding: bytes, as: UTF8.self), what)
                        XCTAssertEqual(out, bytes, what)
                        written += 1
                    case .failure(let e):
                        XCTFail("\(what): write succeeded, emit threw \(e.shortDescription)")
                    }
                } catch {
                    XCTAssertEqual(out, prefix, "\(what): write appended bytes before failing")
                    switch expected {
                    case .success(let bytes):
                        XCTFail("\(what): write threw \(error.shortDescription), emit gave \(String(decoding: bytes, as: UTF8.self))")
                    case .failure(let e):
                        XCTAssertEqual(error.kind, e.kind, what)
                        XCTAssertEqual(error.message, e.message, what)
                        XCTAssertEqual(error.range, e.range, what)
                        XCTAssertEqual(error.shortDescription, e.shortDescription, what)
                    }
                }
            }
        }
        return written
    }
}
