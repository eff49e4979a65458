import CorpusSupport
import XCTest
@testable import CQLKit

/// Write statements and REST requests from random token soups and mutations
/// (seeded): never a crash, every error positioned, and whatever parses
/// formats, binds, emits and reads back consistently.
final class DMLFuzzTests: XCTestCase {
    static let heads = ["insert into T(", "insert into T(a, b) values (", "update T set", "update T set a =", "delete from T where",
                        "update T set a = op(", "update T set n = op('Increment', {"]
    static let pieces = ["a", "b", "c", "objectId", "createdAt", "=", "(", ")", "[", "]", "{", "}", ",", ":", "values", "set", "where",
                         "and", "or", "not", "op", "'Increment'", "'Decrement'", "'Add'", "'AddUnique'", "'Remove'", "'Delete'",
                         "'AddRelation'", "'BitAnd'", "'Nope'", "amount", "'amount'", "objects", "value", "?", "1", "-2.5", "'x'", "null",
                         "true", "pointer('P', 'p1')", "date('2011-08-20')", "current_timestamp()", "<", ">=", "in", "is", "exists",
                         "limit", ";", "`k`", "9223372036854775808", "'id1'", "__op"]

    static let values = ["1", "-2.5", "'x'", "null", "true", "?", "[1, 'a']", "[?]", "{k: 1}", "pointer('P', 'p1')", "pointer('P', ?)",
                         "date('2011-08-20T02:06:57.931Z')", "current_timestamp()", "geopoint(1, 2)", "1e3"]
    static let ops = ["op('Increment', {'amount': 1})", "op('Decrement', {amount: ?})", "op('Add', {'objects': [1, ?]})",
                      "op('AddUnique', {'objects': ?})", "op('Remove', {'objects': ['x']})", "op('Delete')", "op('Delete', {})",
                      "op('AddRelation', {'objects': [pointer('P', 'p1')]})", "op('RemoveRelation', {'objects': [?]})",
                      "op('BitXor', {'value': ?})", "op('Nope', {})", "op('Increment', {'amount': 'x'})"]
    static let conditions = ["a > 1", "b = ?", "(a = 1 or b = 2)", "c in (1, ?)", "d is exists", "e like 'x%'", "not (f = 1)"]

    /// A write from a small grammar, then (sometimes) a token dropped, repeated or replaced.
    static func randomWrite(_ rng: inout SplitMix64) -> String {
        func pick(_ a: [String]) -> String { a.randomElement(using: &rng)! }
        let keys = ["a", "b", "c", "`k`", "tags", "n"]
        var words: [String]
        switch rng.next() % 3 {
        case 0:
            let columns = Array(keys.shuffled(using: &rng).prefix(Int.random(in: 1...3, using: &rng)))
            let rows = (0..<Int.random(in: 1...3, using: &rng)).map { _ in "(" + columns.map { _ in pick(values) }.joined(separator: ", ") + ")" }
            words = ["insert", "into", "T(" + columns.joined(separator: ", ") + ")", "values", rows.joined(separator: ", ")]
        case 1:
            let set = keys.shuffled(using: &rng).prefix(Int.random(in: 1...3, using: &rng)).map { k in
                k + " = " + (rng.next() % 2 == 0 ? pick(values) : pick(ops))
            }
            words = ["update", "T", "set", set.joined(separator: ", "), "where"] + writeWhere(&rng)
        default:
            words = ["delete", "from", "T", "where"] + writeWhere(&rng)
        }
        if rng.next() % 3 == 0 {
            var tokens = words.joined(separator: " ").split(separator: " ").map(String.init)
            let at = Int.random(in: 0..<tokens.count, using: &rng)
            switch rng.next() % 3 {
            case 0: tokens.remove(at: at)
            case 1: tokens.insert(tokens[at], at: at)
            default: tokens[at] = pick(pieces)
            }
            words = tokens
        }
        return words.joined(separator: " ")
    }

    static func writeWhere(_ rng: inout SplitMix64) -> [String] {
        var parts = (0..<Int.random(in: 0...2, using: &rng)).map { _ in conditions.randomElement(using: &rng)! }
        parts.insert(rng.next() % 2 == 0 ? "objectId = 'id1'" : "objectId = ?", at: Int.random(in: 0...parts.count, using: &rng))
        return [parts.joined(separator: " and ")]
    }

    func testRandomWritesNeverCrashAndRoundTrip() {
        var rng = SplitMix64(seed: 0xD31)
        var parsed = 0, emitted = 0
        for _ in 0..<8_000 {
            var text = Self.randomWrite(&rng)
            if rng.next() % 8 == 0 {
                // A soup: a head and random tokens.
                var words = [Self.heads.randomElement(using: &rng)!]
                for _ in 0..<Int.random(in: 0..<22, using: &rng) { words.append(Self.pieces.randomElement(using: &rng)!) }
                text = words.joined(separator: " ")
            }
            let statement: Statement
            do {
                statement = try CQLParser.parseStatement(text)
            } catch {
                XCTAssertNotNil(error.range, text)
                XCTAssertEqual(error.source, text)
                continue
            }
            parsed += 1
            do {
                let again = try CQLParser.parseStatement(try CQLFormatter.format(statement))
                XCTAssertEqual(again, statement, text)
            } catch {
                XCTFail("\(text): does not format and parse back: \(error.rendered())")
            }
            let params: [Value] = (0..<statement.placeholderCount).map { i in i % 2 == 0 ? .int(Int64(i)) : .string("id\(i)") }
            guard let bound = try? Binder.bind(statement, parameters: params, now: DateValue(millisecondsSince1970: 0)),
                  let request = try? RESTEmitter.emit(bound)
            else { continue }
            emitted += 1
            let json = JSONWriter.string(request)
            do {
                let back = try RESTReader.read(json)
                let again = JSONWriter.string(try RESTEmitter.emit(back))
                XCTAssertEqual(again, json, text)
            } catch {
                XCTFail("\(text): its request \(json) does not read back: \(error.rendered())")
            }
        }
        print("random writes: \(parsed) of 8000 parsed, \(emitted) emitted and read back")
        XCTAssertGreaterThan(parsed, 2_000)
        XCTAssertGreaterThan(emitted, 1_000)
    }

    func testMutatedRESTRequestsNeverCrash() throws {
        let seeds = try Corpus.cases(in: "dml").compactMap { $0["rest"] }.filter { !$0.hasPrefix("error") }
        XCTAssertGreaterThan(seeds.count, 40)
        var rng = SplitMix64(seed: 0x7E57)
        let alphabet = Array("{}[]:,\"0123456789-.eE truefalsnl__op__typeamountobjects/%".utf8)
        var errors = 0
        for n in 0..<5_000 {
            var bytes = Array(seeds[n % seeds.count].utf8)
            for _ in 0..<Int.random(in: 1...4, using: &rng) {
                let at = Int.random(in: 0..<max(1, bytes.count), using: &rng)
                switch rng.next() % 3 {
                case 0: if !bytes.isEmpty { bytes.remove(at: min(at, bytes.count - 1)) }
                case 1: bytes.insert(alphabet.randomElement(using: &rng)!, at: min(at, bytes.count))
                default: if !bytes.isEmpty { bytes[min(at, bytes.count - 1)] = alphabet.randomElement(using: &rng)! }
                }
            }
            let text = String(decoding: bytes, as: UTF8.self)
            do {
                let s = try RESTReader.read(text)
                _ = try? CQLFormatter.format(s)
            } catch {
                errors += 1
                XCTAssertNotNil(error.range, text)
            }
        }
        XCTAssertGreaterThan(errors, 2_500)
    }

    /// The examples in the doc comments of the write API, asserted.
    func testDocCommentExamples() throws {
        let update = try CQLParser.parseStatement("update Account set balance = op('Decrement', {'amount': 50}) where objectId = 'a1' and balance >= 100")
        guard case .update(let u) = update else { return XCTFail("not an update") }
        XCTAssertEqual(u.assignments[0].change, .operation(FieldOperation(.decrement, argument: .value(.int(50)))))
        XCTAssertEqual(u.condition?.predicate, .compare("balance", .greaterThanOrEqual, .value(.int(100))))

        XCTAssertThrowsError(try CQLParser.parseStatement("delete from T where name = 'x'")) { e in
            XCTAssertTrue((e as? QueryError)?.shortDescription.hasPrefix("1:21: delete needs an 'objectId = ...' condition") ?? false, "\(e)")
        }
        let inc = try CQLParser.parseStatement("update T set n = op('Increment', {'amount': ?}) where objectId = ?")
        XCTAssertEqual(try CQLFormatter.format(try Binder.bind(inc, parameters: [5, "a1"])),
                       "update T set n = op('Increment', {'amount': 5}) where objectId = 'a1'")
        XCTAssertThrowsError(try Binder.bind(inc, parameters: ["5", "a1"])) { e in
            XCTAssertEqual((e as? QueryError)?.shortDescription, "1:45: op('Increment') needs a number as 'amount', found '5'")
        }
        XCTAssertEqual(try CQLParser.parseStatement("insert into T(a, b) values (?, ?), (?, 1)").placeholderCount, 3)
        XCTAssertEqual(try CQLFormatter.format(try CQLParser.parseStatement(
            "UPDATE Account SET account=op('Decrement',{amount:50}) WHERE amount>=100 AND objectId='5'")),
            "update Account set account = op('Decrement', {'amount': 50}) where objectId = '5' and amount >= 100")
        let put = #"{"method":"PUT","path":"/1.1/classes/Account/a1","body":{"n":{"__op":"Increment","amount":1}},"where":{"n":{"$lt":10}}}"#
        XCTAssertEqual(try CQLFormatter.format(try RESTReader.read(put)),
                       "update Account set n = op('Increment', {'amount': 1}) where objectId = 'a1' and n < 10")
        XCTAssertEqual(ASTPrinter.describe(try CQLParser.parseStatement(
            "update T set n = op('Increment', {'amount': 1}), s = ? where objectId = 'a1' and n < 10")), """
            update T
              set n: op Increment amount 1
              set s: ?1
              objectId: "a1"
              where: compare n < 10
            """)
        XCTAssertEqual(ASTPrinter.describe(try CQLParser.parseStatement("insert into T(a, b) values (1, ?), (null, 'x')")), """
            insert T
              columns: a, b
              row: 1, ?1
              row: null, "x"
            """)
        XCTAssertEqual(RESTEmitter.percentEncoded("a/b c"), "a%2Fb%20c")
        XCTAssertEqual(RESTEmitter.percentDecoded("a%2Fb%20c"), "a/b c")
        XCTAssertNil(RESTEmitter.percentDecoded("%zz"))
        XCTAssertNil(RESTEmitter.percentDecoded("%FF"))
    }
}
