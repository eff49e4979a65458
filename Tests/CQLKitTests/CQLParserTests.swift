import CorpusSupport
import XCTest
@testable import CQLKit

/// AST assertions for the CQL parser: every example of CQL.md, every
/// construct, precedence, order-by rules, clause orders, and robustness.
final class CQLParserTests: XCTestCase {
    // MARK: Helpers

    func parse(_ text: String, file: StaticString = #filePath, line: UInt = #line) throws -> Query {
        do { return try CQLParser.parse(text) } catch {
            XCTFail("\(text)\n\(error.rendered())", file: file, line: line)
            throw error
        }
    }

    func condition(_ text: String, file: StaticString = #filePath, line: UInt = #line) throws -> CQLKit.Predicate? {
        try parse("select * from T where " + text, file: file, line: line).condition?.predicate
    }

    func error(_ text: String) -> QueryError? {
        do { _ = try CQLParser.parse(text); return nil } catch { return error }
    }

    func c(_ p: CQLKit.Predicate) -> Condition { Condition(p) }
    func cmp(_ k: FieldPath, _ op: ComparisonOperator, _ v: Value) -> Condition { Condition(.compare(k, op, .value(v))) }
    func ph(_ i: Int) -> Term { .placeholder(index: i, range: nil) }

    // MARK: The examples of CQL.md

    func testGuideExamples() throws {
        var q = try parse("select name,score from GameScore")
        XCTAssertEqual(q, Query(className: "GameScore", keys: [SelectedKey("name"), SelectedKey("score")]))

        q = try parse("select * from GameScore where name is exists and score > 80 and score <= 100")
        XCTAssertEqual(q.condition, .and([c(.exists("name", true)), cmp("score", .greaterThan, 80), cmp("score", .lessThanOrEqual, 100)]))

        q = try parse("select * from GameScore limit 100,10")
        XCTAssertEqual(q.skip, .value(100))
        XCTAssertEqual(q.limit, .value(10))

        q = try parse("select * from GameScore order by score,+name desc")
        XCTAssertEqual(q.order, [OrderKey("score", descending: true), OrderKey("name")])

        q = try parse("select * from GameScore where createdAt < date('2011-08-20T02:06:57.931Z')")
        XCTAssertEqual(q.condition, cmp("createdAt", .lessThan, .date(DateValue(millisecondsSince1970: 1_313_806_017_931))))

        XCTAssertEqual(try condition("name like 'dennis%'"), .like("name", pattern: .value("dennis%")))
        XCTAssertEqual(try condition("name regexp 'dennis.*'"), .regex("name", pattern: .value("dennis.*"), options: ""))
        XCTAssertEqual(try condition("scores=100"), .compare("scores", .equal, .value(100)))
        XCTAssertEqual(try condition("scores all (100,100)"), .all("scores", [.value(100), .value(100)]))
        XCTAssertEqual(try condition("size(scores) = 2"), .size("scores", .value(2)))
        XCTAssertEqual(try condition("name in ('dennis','catty','green')"),
                       .in("name", [.value("dennis"), .value("catty"), .value("green")], negated: false))

        let sub = Query(className: "GameScore", condition: cmp("score", .greaterThan, 80))
        q = try parse("select * from Player where name in (select name from GameScore where score>80)")
        XCTAssertEqual(q.condition?.predicate, .select("name", key: "name", query: sub, negated: false))
        q = try parse("select * from Player where name =(select name from GameScore where score>80)")
        XCTAssertEqual(q.condition?.predicate, .select("name", key: "name", query: sub, negated: false))

        q = try parse("select * from Player where location near geopoint(116.4, 39.9) min 0.5 km max 1 km")
        XCTAssertEqual(q.condition?.predicate, .near("location", point: .value(.geoPoint(GeoPoint(latitude: 39.9, longitude: 116.4))),
                                                     min: Distance(.value(0.5), .kilometers), max: Distance(.value(1), .kilometers)))

        q = try parse("select * from Player where location within [116.33, 39.97] and [116.37, 39.99]")
        XCTAssertEqual(q.condition?.predicate, .withinBox("location",
                                                          southwest: .value(.geoPoint(GeoPoint(latitude: 39.97, longitude: 116.33))),
                                                          northeast: .value(.geoPoint(GeoPoint(latitude: 39.99, longitude: 116.37)))))

        q = try parse("select count(*) from GameScore where score>60 and score<=80")
        XCTAssertEqual(q.count, .only)
        XCTAssertEqual(q.condition, .and([cmp("score", .greaterThan, 60), cmp("score", .lessThanOrEqual, 80)]))

        q = try parse("select count(*),* from GameScore")
        XCTAssertEqual(q.count, .withResults)
        XCTAssertEqual(q.keys, [])

        let post = Value.pointer(Pointer(className: "Post", objectId: "51e3a359e4b015ead4d95ddc"))
        q = try parse("select * from Comment where post=pointer('Post','51e3a359e4b015ead4d95ddc')")
        XCTAssertEqual(q.condition, cmp("post", .equal, post))

        q = try parse("select * from Comment where post in (select * from Post where image is exists)")
        XCTAssertEqual(q.condition?.predicate,
                       .inQuery("post", query: Query(className: "Post", condition: c(.exists("image", true))), negated: false))

        q = try parse("select * from _User where related likes to pointer('Post', '51e3a359e4b015ead4d95ddc')")
        XCTAssertEqual(q.className, "_User")
        XCTAssertEqual(q.condition?.predicate, .relatedTo(object: .value(post), key: "likes"))

        q = try parse("select include post.category,* from Comment")
        XCTAssertEqual(q.includes, ["post.category"])
        XCTAssertEqual(q.keys, [])

        q = try parse("select * from GameScore where (score>80 and score<=100) or score=0")
        XCTAssertEqual(q.condition, .or([.and([cmp("score", .greaterThan, 80), cmp("score", .lessThanOrEqual, 100)]),
                                         cmp("score", .equal, 0)]))

        q = try parse("select * from GameScore where name=? and score>? limit ?,?")
        XCTAssertEqual(q.condition, .and([c(.compare("name", .equal, ph(0))), c(.compare("score", .greaterThan, ph(1)))]))
        XCTAssertEqual(q.skip, ph(2))
        XCTAssertEqual(q.limit, ph(3))
        XCTAssertEqual(q.placeholderCount, 4)

        q = try parse("select * from Comment where post=  {className:'Post', objectId:'51e3a334e4b0b3eb44adbe1a',__type:'Pointer'}")
        XCTAssertEqual(q.condition, cmp("post", .equal, .pointer(Pointer(className: "Post", objectId: "51e3a334e4b0b3eb44adbe1a"))))

        // The guide's writes are statements: `parse` (queries only) says so, `parseStatement` reads them.
        let update = "update Account set account=op('Decrement', {'amount': 50}) where objectId='558e20cbe4b060308e3eb36c' and amount>=100"
        let e = error(update)
        XCTAssertEqual(e?.kind, .unsupported)
        XCTAssertEqual(e?.range, SourceRange(0, 6))
        XCTAssertTrue(e?.message.contains("write statement") ?? false, "\(String(describing: e))")
        guard case .update(let u) = try CQLParser.parseStatement(update) else { return XCTFail("not an update") }
        XCTAssertEqual(u.assignments, [Assignment(NamedKey("account"), .operation(FieldOperation(.decrement, argument: .value(.int(50)))))])
        XCTAssertEqual(u.objectId, .value(.string("558e20cbe4b060308e3eb36c")))
        XCTAssertEqual(u.condition, cmp("amount", .greaterThanOrEqual, .int(100)))
        guard case .insert(let i) = try CQLParser.parseStatement("insert into GameScore(name, score) values (?, ?)") else { return XCTFail("not an insert") }
        XCTAssertEqual(i.columns.map(\.name), ["name", "score"])
        XCTAssertEqual(i.rows, [[ph(0), ph(1)]])
    }

    // MARK: Field lists

    func testFieldLists() throws {
        XCTAssertEqual(try parse("select count(objectId) from T").count, .only)
        XCTAssertEqual(try parse("select *, count(objectId) from T limit 10").count, .withResults)
        var q = try parse("select count(*), name from T")
        XCTAssertEqual(q.count, .withResults)
        XCTAssertEqual(q.keys, [SelectedKey("name")])
        q = try parse("select include post, * from Comment")
        XCTAssertEqual(q.includes, ["post"])
        q = try parse("select include post,include author from Comment")
        XCTAssertEqual(q.includes, ["post", "author"])
        XCTAssertEqual(q.keys, [])
        q = try parse("select name, include author.profile, score from T")
        XCTAssertEqual(q.keys, [SelectedKey("name"), SelectedKey("score")])
        XCTAssertEqual(q.includes, ["author.profile"])
        // `*` means every key: named keys next to it are dropped.
        XCTAssertEqual(try parse("select name, * from T").keys, [])
        // Contextual words stay usable as keys.
        XCTAssertEqual(try parse("select count, size, near, desc from T").keys.map(\.path.dotted), ["count", "size", "near", "desc"])
        XCTAssertEqual(try parse("select `order`, `from`.x from T").keys.map(\.path), [FieldPath(["order"]), FieldPath(["from", "x"])])
    }

    // MARK: Conditions

    func testOperators() throws {
        XCTAssertEqual(try condition("a != 1"), .compare("a", .notEqual, .value(1)))
        XCTAssertEqual(try condition("a <> 1"), .compare("a", .notEqual, .value(1)))
        XCTAssertEqual(try condition("a < -1.5e2"), .compare("a", .lessThan, .value(-150.0)))
        XCTAssertEqual(try condition("a >= 'x'"), .compare("a", .greaterThanOrEqual, .value("x")))
        XCTAssertEqual(try condition("a != null"), .compare("a", .notEqual, .value(.null)))
        XCTAssertEqual(try condition("a = true or b = false"), .or([cmp("a", .equal, true), cmp("b", .equal, false)]))
        XCTAssertEqual(try condition("a not in (1, ?)"), .in("a", [.value(1), ph(0)], negated: true))
        XCTAssertEqual(try condition("a in ()"), .in("a", [], negated: false))
        XCTAssertEqual(try condition("a is not exists"), .exists("a", false))
        XCTAssertEqual(try condition("a not like 'x%'"), .not(Condition(.like("a", pattern: .value("x%")))))
        XCTAssertEqual(try condition("a not regexp 'x'"), .not(Condition(.regex("a", pattern: .value("x"), options: ""))))
        XCTAssertEqual(try condition("a all ()"), .all("a", []))
        XCTAssertEqual(try condition("a like ?"), .like("a", pattern: ph(0)))
        XCTAssertEqual(try condition("post.author.name = 'x'"), .compare(FieldPath(["post", "author", "name"]), .equal, .value("x")))
        XCTAssertEqual(try condition("tags.0 = 'x'"), .compare(FieldPath(["tags", "0"]), .equal, .value("x")))
        XCTAssertEqual(try condition("`where` = 1"), .compare("where", .equal, .value(1)))
        XCTAssertEqual(try condition("size(tags) = ?"), .size("tags", ph(0)))
        // Keywords as path components after a dot.
        XCTAssertEqual(try condition("a.order = 1"), .compare(FieldPath(["a", "order"]), .equal, .value(1)))
    }

    func testRegexInlineOptionsAreLifted() throws {
        XCTAssertEqual(try condition("a regexp '(?si)^abc'"), .regex("a", pattern: .value("^abc"), options: "is"))
        XCTAssertEqual(try condition("a regexp '(?ii)x'"), .regex("a", pattern: .value("x"), options: "i"))
        // Only a whole leading group of imsx letters.
        XCTAssertEqual(try condition("a regexp '(?i:x)'"), .regex("a", pattern: .value("(?i:x)"), options: ""))
        XCTAssertEqual(try condition("a regexp '(?U)x'"), .regex("a", pattern: .value("(?U)x"), options: ""))
        XCTAssertEqual(try condition("a regexp 'x(?i)'"), .regex("a", pattern: .value("x(?i)"), options: ""))
        XCTAssertEqual(try condition("a regexp '\\d+'"), .regex("a", pattern: .value("\\d+"), options: ""))
    }

    func testPrecedence() throws {
        XCTAssertEqual(try condition("a = 1 or b = 2 and c = 3"),
                       .or([cmp("a", .equal, 1), .and([cmp("b", .equal, 2), cmp("c", .equal, 3)])]))
        XCTAssertEqual(try condition("a = 1 and b = 2 or c = 3"),
                       .or([.and([cmp("a", .equal, 1), cmp("b", .equal, 2)]), cmp("c", .equal, 3)]))
        XCTAssertEqual(try condition("(a = 1 or b = 2) and c = 3"),
                       .and([.or([cmp("a", .equal, 1), cmp("b", .equal, 2)]), cmp("c", .equal, 3)]))
        // not binds tighter than and.
        XCTAssertEqual(try condition("not a = 1 and b = 2"), .and([.not(cmp("a", .equal, 1)), cmp("b", .equal, 2)]))
        XCTAssertEqual(try condition("not (a = 1 and b = 2)"), .not(.and([cmp("a", .equal, 1), cmp("b", .equal, 2)])))
        XCTAssertEqual(try condition("not not a = 1"), .not(.not(cmp("a", .equal, 1))))
        // Nested and/or flatten.
        XCTAssertEqual(try condition("a = 1 and (b = 2 and c = 3)"),
                       .and([cmp("a", .equal, 1), cmp("b", .equal, 2), cmp("c", .equal, 3)]))
        XCTAssertEqual(try condition("((a = 1))"), .compare("a", .equal, .value(1)))
    }

    func testSubqueries() throws {
        XCTAssertEqual(try condition("a not in (select * from U)"), .inQuery("a", query: Query(className: "U"), negated: true))
        XCTAssertEqual(try condition("a != (select b from U)"), .select("a", key: "b", query: Query(className: "U"), negated: true))
        XCTAssertEqual(try condition("a <> (select b.c from U)"), .select("a", key: "b.c", query: Query(className: "U"), negated: true))
        // Placeholders are numbered across the statement, subqueries included.
        let q = try parse("select * from T where x = ? and a in (select b from U where c = ? order by -c limit ?) and d = ? limit ?")
        let inner = Query(className: "U", condition: c(.compare("c", .equal, ph(1))), order: [OrderKey("c", descending: true)], limit: ph(2))
        XCTAssertEqual(q.condition, .and([c(.compare("x", .equal, ph(0))), c(.select("a", key: "b", query: inner, negated: false)),
                                          c(.compare("d", .equal, ph(3)))]))
        XCTAssertEqual(q.limit, ph(4))
        XCTAssertEqual(q.placeholderCount, 5)
    }

    func testGeo() throws {
        let p = Term.value(.geoPoint(GeoPoint(latitude: 2, longitude: 1)))
        XCTAssertEqual(try condition("loc near [1, 2]"), .near("loc", point: p, min: nil, max: nil))
        XCTAssertEqual(try condition("loc near [1, 2] max 0.1"), .near("loc", point: p, min: nil, max: Distance(.value(0.1), .radians)))
        XCTAssertEqual(try condition("loc near geopoint(1, 2) min 1 miles"), .near("loc", point: p, min: Distance(.value(1), .miles), max: nil))
        XCTAssertEqual(try condition("loc near ? min ? KM max ? radians"),
                       .near("loc", point: ph(0), min: Distance(ph(1), .kilometers), max: Distance(ph(2), .radians)))
        XCTAssertEqual(try condition("loc near geopoint(?, 2)"), .near("loc", point: .call(.geopoint, [ph(0), .value(2)], range: nil), min: nil, max: nil))
        XCTAssertEqual(try condition("loc near [?, ?]"), .near("loc", point: .array([ph(0), ph(1)]), min: nil, max: nil))
        XCTAssertEqual(try condition("loc near {__type: 'GeoPoint', latitude: 2, longitude: 1}"), .near("loc", point: p, min: nil, max: nil))
        // within consumes exactly one 'and'.
        XCTAssertEqual(try condition("loc within [0, 0] and [1, 2] and a = 1"),
                       .and([c(.withinBox("loc", southwest: .value(.geoPoint(GeoPoint(latitude: 0, longitude: 0))), northeast: p)),
                             cmp("a", .equal, 1)]))
        // [lng, lat] is an array outside near/within.
        XCTAssertEqual(try condition("loc = [1, 2]"), .compare("loc", .equal, .value([1, 2])))
    }

    func testLiteralsAndFunctions() throws {
        XCTAssertEqual(try condition("a = file('f1')"), .compare("a", .equal, .value(.file(FileReference(id: "f1")))))
        XCTAssertEqual(try condition("a = BASE64('aGk=')"), .compare("a", .equal, .value(.bytes(base64: "aGk="))))
        XCTAssertEqual(try condition("a < current_timestamp()"), .compare("a", .lessThan, .currentTimestamp))
        XCTAssertEqual(try condition("a = date(?)"), .compare("a", .equal, .call(.date, [ph(0)], range: nil)))
        XCTAssertEqual(try condition("a = pointer('Post', ?)"), .compare("a", .equal, .call(.pointer, [.value("Post"), ph(0)], range: nil)))
        XCTAssertEqual(try condition("a = [1, 'x', null, [true]]"), .compare("a", .equal, .value([1, "x", .null, [true]])))
        XCTAssertEqual(try condition("a = [1, ?]"), .compare("a", .equal, .array([.value(1), ph(0)])))
        XCTAssertEqual(try condition("a = {b: 'x', 'c d': [1], `e`: {f: null}}"),
                       .compare("a", .equal, .value(.object(["b": "x", "c d": [1], "e": .object(["f": .null])]))))
        XCTAssertEqual(try condition("a = {__type: 'Date', iso: '2015-06-21T18:02:52.249Z'}"),
                       .compare("a", .equal, .value(.date(DateValue(millisecondsSince1970: 1_434_909_772_249)))))
        XCTAssertEqual(try condition("a = -9223372036854775808"), .compare("a", .equal, .value(.int(Int64.min))))
        XCTAssertEqual(try condition("a = - 5"), .compare("a", .equal, .value(-5)))
        XCTAssertEqual(try condition("a = 007"), .compare("a", .equal, .value(7)))
    }

    func testStrings() throws {
        let cases: [(String, String)] = [
            ("'it''s'", "it's"), ("'it\\'s'", "it's"), ("\"say \"\"hi\"\"\"", "say \"hi\""), ("\"a'b\"", "a'b"),
            ("'a\\nb\\tc\\rd\\\\e\\0f'", "a\nb\tc\rd\\e\u{0}f"), ("'\\b\\f'", "\u{8}\u{C}"),
            ("'\\u00e9\\uD83D\\uDE00'", "é😀"), ("'\\d\\.'", "\\d\\."), ("'\\é'", "\\é"), ("'日本語'", "日本語"),
            ("'line1\nline2'", "line1\nline2"), ("''", ""),
        ]
        for (literal, expected) in cases {
            XCTAssertEqual(try condition("a = \(literal)"), .compare("a", .equal, .value(.string(expected))), literal)
        }
    }

    // MARK: limit, order by, clause order

    func testOrderByDirections() throws {
        func order(_ text: String) throws -> [String] {
            try parse("select * from T order by " + text).order.map { ($0.descending ? "-" : "") + $0.path.dotted }
        }
        XCTAssertEqual(try order("score,+name desc"), ["-score", "name"])
        XCTAssertEqual(try order("-score,name"), ["-score", "name"])
        XCTAssertEqual(try order("-score,name asc"), ["-score", "name"])
        XCTAssertEqual(try order("a, b DESC"), ["-a", "-b"])
        XCTAssertEqual(try order("-a asc"), ["-a"])
        XCTAssertEqual(try order("+a desc"), ["a"])
        XCTAssertEqual(try order("a.b, -c.d"), ["a.b", "-c.d"])
        XCTAssertEqual(try order("desc"), ["desc"])
        XCTAssertEqual(try order("desc desc"), ["-desc"])
    }

    func testClauseOrdersAndTerminators() throws {
        let a = try parse("select * from T where a = 1 limit 5, 10 order by -a")
        let b = try parse("select * from T where a = 1 order by -a limit 5, 10;")
        XCTAssertEqual(a, b)
        XCTAssertEqual(a.skip, .value(5))
        XCTAssertEqual(a.limit, .value(10))
        XCTAssertEqual(a.order, [OrderKey("a", descending: true)])
        XCTAssertEqual(try parse("select * from T limit ?").limit, ph(0))
        XCTAssertEqual(try parse("select * from T limit 0").limit, .value(0))
        let commented = try parse("-- first\nselect /* fields */ * from T -- trailing\nwhere a = 1 /* end */ ; -- done")
        XCTAssertEqual(commented.condition, cmp("a", .equal, 1))
    }

    func testKeywordsAreCaseInsensitive() throws {
        let upper = try parse("SELECT COUNT(*), * FROM GameScore WHERE Name = ? AND NOT score IS EXISTS OR x IN (1) LIMIT ? ORDER BY Name DESC")
        let lower = try parse("select count(*), * from GameScore where Name = ? and not score is exists or x in (1) limit ? order by Name desc")
        XCTAssertEqual(upper, lower)
        XCTAssertEqual(upper.order, [OrderKey("Name", descending: true)])
        // Class names and keys stay case-sensitive.
        XCTAssertEqual(upper.className, "GameScore")
        XCTAssertEqual(try parse("Select * From T Where loc Near GeoPoint(1, 2) Max 1 Km").condition?.predicate,
                       .near("loc", point: .value(.geoPoint(GeoPoint(latitude: 2, longitude: 1))), min: nil, max: Distance(.value(1), .kilometers)))
    }

    // MARK: Ranges

    func testRanges() throws {
        let text = "select * from T where a = 1 and (b = 'x' or c in (1))"
        let q = try parse(text)
        XCTAssertEqual(q.range, SourceRange(0, text.utf8.count))
        XCTAssertEqual(q.source, text)
        guard case .and(let items)? = q.condition?.predicate else { return XCTFail("expected and") }
        XCTAssertEqual(items[0].range, SourceRange(22, 27))
        XCTAssertEqual(items[1].range, SourceRange(32, 53))
        guard case .or(let inner) = items[1].predicate else { return XCTFail("expected or") }
        XCTAssertEqual(inner[1].range, SourceRange(44, 52))
        guard case .compare(_, _, let t) = try parse("select * from T where a = ?").condition?.predicate,
              case .placeholder(0, let r) = t else { return XCTFail("expected a placeholder") }
        XCTAssertEqual(r, SourceRange(26, 27))
    }

    // MARK: Limits and robustness

    func testDeepNestingIsALimitError() {
        let deep = "select * from T where " + String(repeating: "(", count: 100_000) + "a = 1"
        let start = Date()
        let e = error(deep)
        XCTAssertEqual(e?.kind, .limit)
        XCTAssertEqual(e?.range?.start, 22 + 200)
        XCTAssertLessThan(Date().timeIntervalSince(start), 5)
        // Exactly at the limit still parses.
        let ok = "select * from T where " + String(repeating: "(", count: 200) + "a = 1" + String(repeating: ")", count: 200)
        XCTAssertNil(error(ok))
        for nested in [String(repeating: "[", count: 100_000), String(repeating: "{a:", count: 100_000),
                       String(repeating: "date(", count: 100_000)] {
            XCTAssertEqual(error("select * from T where a = " + nested)?.kind, .limit)
        }
        XCTAssertEqual(error("select * from T where " + String(repeating: "not ", count: 100_000) + "a = 1")?.kind, .limit)
        XCTAssertEqual(error("select * from T where " + String(repeating: "a in (select * from T where ", count: 300))?.kind, .limit)
        var small = CQLParser.Options()
        small.maxDepth = 2
        XCTAssertThrowsError(try CQLParser.parse("select * from T where ((a = [1]))", options: small))
        XCTAssertNoThrow(try CQLParser.parse("select * from T where (a = [1])", options: small))
    }

    /// Parsing and binding at the nesting limit fit in a small thread stack
    /// (2 MiB even in debug builds; release builds need about a tenth).
    func testMaximumNestingFitsASmallStack() {
        let n = 199
        let inputs = [
            "select * from T where " + String(repeating: "(", count: 200) + "a = 1" + String(repeating: ")", count: 200),
            "select * from T where " + String(repeating: "a in (select * from T where ", count: n) + "a = ?" + String(repeating: ")", count: n),
            "select * from T where " + String(repeating: "a = (select b from T where ", count: n) + "a = 1" + String(repeating: ")", count: n),
            "select * from T where a = " + String(repeating: "[", count: 200) + String(repeating: "]", count: 200),
            "select * from T where a = " + String(repeating: "{a:", count: 200) + "1" + String(repeating: "}", count: 200),
            "select * from T where a = " + String(repeating: "date(", count: 199) + "'x'" + String(repeating: ")", count: 199),
        ]
        for text in inputs {
            let done = DispatchSemaphore(value: 0)
            nonisolated(unsafe) var outcome = ""
            let thread = Thread {
                do throws(QueryError) {
                    let q = try CQLParser.parse(text)
                    // The stack is what is measured here, not QueryLimits' subquery depth.
                    var loose = QueryLimits()
                    loose.maxSubqueryDepth = .max
                    loose.maxNestingDepth = .max
                    _ = try Binder.bind(q, parameters: [Value](repeating: 1, count: q.placeholderCount), limits: loose)
                    outcome = q == q ? "ok" : "unequal"
                } catch {
                    outcome = error.shortDescription
                }
                done.signal()
            }
            thread.stackSize = 2 << 20
            thread.start()
            done.wait()
            if text.contains("date(") {
                XCTAssertTrue(outcome.hasSuffix("invalid date 'x': expected ISO 8601 such as '2011-08-20T02:06:57.931Z'"), outcome)
            } else {
                XCTAssertEqual(outcome, "ok", String(text.prefix(60)))
            }
        }
    }

    func testStatementSizeLimit() {
        var options = CQLParser.Options()
        options.maxLength = 32
        XCTAssertNoThrow(try CQLParser.parse("select * from T", options: options))
        XCTAssertThrowsError(try CQLParser.parse("select * from T where a = 'xxxxxxxxxxxxxxxxxx'", options: options)) { e in
            XCTAssertEqual((e as? QueryError)?.kind, .limit)
        }
    }

    func testRandomBytesNeverCrash() {
        var rng = SplitMix64(seed: 42)
        let alphabet = Array("select*from where()[]{},;:'\"`?-+=<>!./\\ \n\t0123456789eEaZ_é日".utf8)
        var errors = 0
        for n in 0..<20_000 {
            let length = Int.random(in: 0..<60, using: &rng)
            var bytes: [UInt8] = []
            for _ in 0..<length {
                bytes.append(n % 2 == 0 ? UInt8.random(in: 0...255, using: &rng) : alphabet.randomElement(using: &rng) ?? 0x20)
            }
            let text = String(decoding: bytes, as: UTF8.self)
            do {
                let q = try CQLParser.parse(text)
                _ = try? Binder.bind(q, parameters: [])
            } catch {
                errors += 1
                XCTAssertNotNil(error.range, text)
                XCTAssertEqual(error.source, text)
            }
        }
        XCTAssertGreaterThan(errors, 19_000)
    }

    func testRandomTokenSoupsNeverCrash() {
        var rng = SplitMix64(seed: 7)
        let pieces = ["select", "*", "from", "T", "where", "a", "b.c", "=", "!=", "<>", "<", ">=", "in", "not", "like", "regexp",
                      "is", "exists", "all", "size", "(", ")", "[", "]", "{", "}", ",", ":", "and", "or", "?", "1", "-2.5", "'x'",
                      "\"y\"", "date", "pointer", "geopoint", "file", "base64", "current_timestamp", "near", "within", "min",
                      "max", "km", "related", "to", "limit", "order", "by", "desc", "asc", "+", "-", "count", "include", ";",
                      "null", "true", "`k`", "9223372036854775808", "'2011-08-20'", "__type", "'Pointer'"]
        var parsed = 0
        for _ in 0..<20_000 {
            var words = ["select", "*", "from", "T", "where"]
            for _ in 0..<Int.random(in: 0..<25, using: &rng) { words.append(pieces.randomElement(using: &rng) ?? "a") }
            let text = words.joined(separator: " ")
            do {
                let q = try CQLParser.parse(text)
                parsed += 1
                let params = [Value](repeating: 1, count: q.placeholderCount)
                _ = try? Binder.bind(q, parameters: params, now: DateValue(millisecondsSince1970: 0))
            } catch {
                XCTAssertNotNil(error.range, text)
            }
        }
        XCTAssertGreaterThan(parsed, 0)
    }
}
