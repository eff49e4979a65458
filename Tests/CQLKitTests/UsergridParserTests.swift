import CorpusSupport
import XCTest

@testable import CQLKit

final class UsergridParserTests: XCTestCase {
    func parse(_ text: String, _ options: UsergridOptions = .init()) throws -> Query {
        try UsergridParser.parse(text, options: options)
    }

    func condition(_ text: String, _ options: UsergridOptions = .init()) throws -> CQLKit.Predicate? {
        try parse(text, options).condition?.predicate
    }

    func errorOf(_ text: String, _ options: UsergridOptions = .init()) -> QueryError? {
        do {
            _ = try UsergridParser.parse(text, options: options)
            return nil
        } catch {
            return error
        }
    }

    func cmp(_ k: FieldPath, _ op: ComparisonOperator, _ v: Value) -> Condition {
        Condition(.compare(k, op, .value(v)))
    }

    // MARK: Lexer

    func testTokens() throws {
        let tokens = try UsergridLexer.tokenize("select {a:b} where x-y.z lte -.5e1 || t contains 'w\\'s' && u = C6EE8A1C-3EF4-11E2-8861-02E81ADCF3D0")
        XCTAssertEqual(
            tokens.map(\.kind),
            [
                .select, .leftBrace, .identifier, .colon, .identifier, .rightBrace, .where, .identifier, .lessEqual, .number,
                .or, .identifier, .contains, .string, .and, .identifier, .equal, .uuid, .end,
            ])
        XCTAssertEqual(tokens[9].value, .double(-5))
        XCTAssertEqual(tokens[13].value, .string("w's"))
        XCTAssertEqual(tokens[13].text, "'w\\'s'")
        XCTAssertEqual(tokens[17].value, .string("C6EE8A1C-3EF4-11E2-8861-02E81ADCF3D0"))
        XCTAssertEqual(tokens[7].range, SourceRange(19, 24))
        XCTAssertEqual(tokens.last?.range, SourceRange(99, 99))
    }

    func testUUIDNeedsAWordBoundary() throws {
        // A UUID followed by more identifier characters is an identifier.
        let t = try UsergridLexer.tokenize("c6ee8a1c-3ef4-11e2-8861-02e81adcf3d0x")
        XCTAssertEqual(t.map(\.kind), [.identifier, .end])
    }

    // MARK: Mapping

    func testStringEqualityIsCaseInsensitiveUnlessLiteral() throws {
        XCTAssertEqual(try condition("name = 'Fido'"), .text("name", .equalsIgnoringCase, "Fido"))
        XCTAssertEqual(try condition("name eq 'Fi*'"), .text("name", .wildcard, "Fi*"))
        XCTAssertEqual(try condition("name = 'Fi*'", .init(literal: true)), .compare("name", .equal, .value(.string("Fi*"))))
        // String ranges ignore case too (UsergridQL.md, "Meaning"); literal makes them exact.
        XCTAssertEqual(try condition("name < 'Fi'"), .text("name", .lessThanIgnoringCase, "Fi"))
        XCTAssertEqual(try condition("name gte 'Fi'"), .text("name", .greaterThanOrEqualIgnoringCase, "Fi"))
        XCTAssertEqual(try condition("name < 'Fi'", .init(literal: true)), .compare("name", .lessThan, .value(.string("Fi"))))
        // Strings are trimmed (Java's String.trim: code points up to U+0020).
        XCTAssertEqual(try condition("name = ' \tMorgan* \n'"), .text("name", .wildcard, "Morgan*"))
        XCTAssertEqual(try condition("name = ' Fi '", .init(literal: true)), .compare("name", .equal, .value(.string("Fi"))))
        XCTAssertEqual(try condition("t contains ' bl* '"), .text("t", .wordPrefix, "bl"))
        XCTAssertEqual(
            try condition("id = 0b8f8d2e-0a8e-11e5-a6c0-1697f925ec7b"),
            .compare("id", .equal, .value(.string("0b8f8d2e-0a8e-11e5-a6c0-1697f925ec7b"))))
    }

    func testContains() throws {
        XCTAssertEqual(try condition("t contains 'blue'"), .text("t", .word, "blue"))
        XCTAssertEqual(try condition("t contains 'bl*'"), .text("t", .wordPrefix, "bl"))
        XCTAssertEqual(try condition("t contains 'Blue'", .init(literal: true)), .text("t", .word, "Blue"))
    }

    func testWithin() throws {
        XCTAssertEqual(
            try condition("loc within 5000 of 40.5, -105"),
            .near(
                "loc", point: .value(.geoPoint(GeoPoint(latitude: 40.5, longitude: -105))), min: nil,
                max: Distance(.value(.int(5000)), .meters)))
        XCTAssertEqual(
            try condition("loc within 2.5 of 0, 0"),
            .near("loc", point: .value(.geoPoint(GeoPoint(latitude: 0, longitude: 0))), min: nil, max: Distance(.value(.double(2.5)), .meters)))
    }

    func testPrecedence() throws {
        let a = cmp("a", .equal, .int(1)), b = cmp("b", .equal, .int(2)), c = cmp("c", .equal, .int(3))
        XCTAssertEqual(try condition("a = 1 or b = 2 and c = 3"), .or([a, Condition(.and([b, c]))]))
        XCTAssertEqual(try condition("(a = 1 or b = 2) and c = 3"), .and([Condition(.or([a, b])), c]))
        XCTAssertEqual(try condition("not a = 1 and b = 2"), .and([Condition(.not(a)), b]))
        XCTAssertEqual(try condition("not (a = 1 and b = 2)"), .not(Condition(.and([a, b]))))
        XCTAssertEqual(try condition("a = 1 and b = 2 and c = 3"), .and([a, b, c]))
        XCTAssertEqual(try condition("a = 1 || b = 2 || c = 3"), .or([a, b, c]))
        XCTAssertEqual(try condition("not not a = 1"), .not(Condition(.not(a))))
    }

    func testClauses() throws {
        let q = try parse("SELECT {name:n, a.b:x} WHERE a = 1 ORDER\n\tBY name DESC, age", .init(className: "dogs"))
        XCTAssertEqual(q.className, "dogs")
        XCTAssertEqual(q.keys, [SelectedKey("name", alias: "n"), SelectedKey("a.b", alias: "x")])
        XCTAssertEqual(q.order, [OrderKey("name", descending: true), OrderKey("age")])
        XCTAssertEqual(q.range, SourceRange(0, 59))
        XCTAssertEqual(q.source, "SELECT {name:n, a.b:x} WHERE a = 1 ORDER\n\tBY name DESC, age")
        let d = try parse("select a, b direct fido, 'Rex Jr', 0b8f8d2e-0a8e-11e5-a6c0-1697f925ec7b")
        XCTAssertEqual(d.keys, [SelectedKey("a"), SelectedKey("b")])
        XCTAssertEqual(d.direct, [.string("fido"), .string("Rex Jr"), .string("0b8f8d2e-0a8e-11e5-a6c0-1697f925ec7b")])
        XCTAssertNil(d.condition)
        // Nothing written: Usergrid's page of 10, newest first.
        XCTAssertEqual(try parse(""), Query(className: "", order: [OrderKey("created", descending: true)], limit: .value(.int(10))))
        XCTAssertEqual(try parse("select *").keys, [])
    }

    func testConditionRangesPointIntoTheText() throws {
        let c = try XCTUnwrap(parse("x = 1 and (name contains 'ab')").condition)
        guard case .and(let items) = c.predicate else { return XCTFail("not an and") }
        XCTAssertEqual(items[0].range, SourceRange(0, 5))
        XCTAssertEqual(items[1].range, SourceRange(10, 30))
        XCTAssertEqual(c.range, SourceRange(0, 30))
    }

    // MARK: Options

    func testLimitAndCursor() throws {
        XCTAssertEqual(UsergridOptions.cursor(offset: 10), "b2Zmc2V0OjEw")
        let q = try parse("a = 1", .init(limit: 5, cursor: UsergridOptions.cursor(offset: 40)))
        XCTAssertEqual(q.limit, .value(.int(5)))
        XCTAssertEqual(q.skip, .value(.int(40)))
        XCTAssertEqual(try parse("", .init(limit: 1_000_000)).limit, .value(.int(1000)))
        XCTAssertEqual(try parse("").limit, .value(.int(10)))
        for offset: Int64 in [0, 1, 7, 255, 65_536, Int64.max] {
            XCTAssertEqual(try UsergridOptions.offset(ofCursor: UsergridOptions.cursor(offset: offset)), offset)
        }
        for bad in ["", "!!!!", "b2Zmc2V0OjEx=x", "b2Zmc2V0Oj", "b2Zmc2V0OjEwx", String(repeating: "A", count: 5000)] {
            XCTAssertEqual(errorOf("", .init(cursor: bad))?.kind, .invalidValue, bad)
        }
        XCTAssertEqual(errorOf("", .init(limit: -3))?.message, "limit must be at least 1, found -3")
    }

    // MARK: Errors and robustness

    func testErrorsArePositionedWithSource() throws {
        let e = try XCTUnwrap(errorOf("a = 1\n  and b != 2"))
        XCTAssertEqual(e.kind, .syntax)
        XCTAssertEqual(e.shortDescription, "2:9: Usergrid has no '!='; write `not k = v`")
        XCTAssertEqual(e.rendered(), "<input>:2:9: Usergrid has no '!='; write `not k = v`\n  and b != 2\n        ^~")
        XCTAssertEqual(errorOf("a = 99999999999999999999")?.kind, .invalidValue)
        XCTAssertEqual(errorOf("l within 1 of 95, 0")?.kind, .invalidValue)
    }

    func testDeepNestingIsALimitError() throws {
        let deep = String(repeating: "(", count: 100_000) + "a = 1" + String(repeating: ")", count: 100_000)
        let e = try XCTUnwrap(errorOf(deep))
        XCTAssertEqual(e.kind, .limit)
        XCTAssertEqual(e.range, SourceRange(128, 129))
        XCTAssertEqual(errorOf(String(repeating: "not ", count: 100_000) + "a = 1")?.kind, .limit)
        let ok = String(repeating: "(", count: 100) + "a = 1" + String(repeating: ")", count: 100)
        XCTAssertEqual(try condition(ok), .compare("a", .equal, .value(.int(1))))
        // Long flat chains are loops, not recursion.
        let flat = Array(repeating: "a = 1", count: 50_000).joined(separator: " and ")
        guard case .and(let items)? = try condition(flat) else { return XCTFail("not an and") }
        XCTAssertEqual(items.count, 50_000)
    }

    func testRandomBytesNeverCrash() {
        var rng = SplitMix64(seed: 0x5EED)
        let alphabet = Array("aZ_.-09 '\\\"(){}[],*:=<>!&|%?;\nuUe+xé😀".unicodeScalars)
        for _ in 0..<3000 {
            var s = ""
            for _ in 0..<Int(rng.next() % 40) {
                if rng.next() % 5 == 0 {
                    s.unicodeScalars.append(Unicode.Scalar(UInt8(truncatingIfNeeded: rng.next() % 128)))
                } else {
                    s.unicodeScalars.append(alphabet[Int(rng.next() % UInt64(alphabet.count))])
                }
            }
            checkNoCrash(s)
        }
        // Mutations of good queries reach deeper into the parser.
        let seeds = [
            "select {a:b} where x within 5 of 1.5, -2 and not (y = 'q\\u0041' or z contains 'w*') order by x desc",
            "direct a, 'b', c6ee8a1c-3ef4-11e2-8861-02e81adcf3d0 order by n",
        ]
        for seed in seeds {
            let bytes = Array(seed.utf8)
            for _ in 0..<2000 {
                var m = bytes
                let cut = Int(rng.next() % UInt64(m.count))
                switch rng.next() % 3 {
                case 0: m.remove(at: cut)
                case 1: m.insert(bytes[Int(rng.next() % UInt64(bytes.count))], at: cut)
                default: m = Array(m[..<cut])
                }
                checkNoCrash(String(decoding: m, as: UTF8.self))
            }
        }
    }

    func checkNoCrash(_ s: String) {
        do {
            let q = try UsergridParser.parse(s)
            if let text = try? UsergridFormatter.format(q) {
                XCTAssertEqual(try? UsergridParser.parse(text), q, "round trip of \(s) via \(text)")
            }
        } catch {
            XCTAssertNotNil(error.range, "unpositioned error for \(s): \(error.message)")
            XCTAssertEqual(error.source, s)
            if let r = error.range { XCTAssertLessThanOrEqual(r.end, s.utf8.count) }
        }
    }
}
