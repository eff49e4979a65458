import XCTest

@testable import CQLKit

final class UsergridFormatterTests: XCTestCase {
    func where_(_ p: CQLKit.Predicate, literal: Bool = false) throws(QueryError) -> String {
        try UsergridFormatter.format(Query(className: "T", condition: Condition(p)), literal: literal)
    }

    func failure(_ p: CQLKit.Predicate, literal: Bool = false) -> QueryError? {
        do {
            _ = try where_(p, literal: literal)
            return nil
        } catch {
            return error
        }
    }

    func c(_ p: CQLKit.Predicate) -> Condition { Condition(p) }

    func testRewrites() throws {
        XCTAssertEqual(try where_(.in("a", [.value(.int(1)), .value(.double(2.5))], negated: false)), "select * where a = 1 or a = 2.5")
        XCTAssertEqual(try where_(.in("a", [.value(.int(1))], negated: true)), "select * where not a = 1")
        XCTAssertEqual(
            try where_(.in("a", [.value(.int(1)), .value(.int(2))], negated: true)), "select * where not (a = 1 or a = 2)")
        XCTAssertEqual(
            try where_(.and([c(.in("a", [.value(.int(1)), .value(.int(2))], negated: false)), c(.compare("b", .equal, .value(.bool(true))))])),
            "select * where (a = 1 or a = 2) and b = true")
        XCTAssertEqual(try where_(.compare("a", .notEqual, .value(.int(3)))), "select * where not a = 3")
        XCTAssertEqual(
            try where_(.in("s", [.value(.string("x")), .value(.string("y"))], negated: false), literal: true),
            "select * where s = 'x' or s = 'y'")
        XCTAssertEqual(try where_(.text("n", .wildcard, "abc")), "select * where n = 'abc'")
        XCTAssertEqual(try where_(.compare("n", .notEqual, .value(.string("0b8f8d2e-0a8e-11e5-a6c0-1697f925ec7b")))),
            "select * where not n = 0b8f8d2e-0a8e-11e5-a6c0-1697f925ec7b")
    }

    func testStringsAreEscapedAndReadBack() throws {
        let s = "it's \\ \"q\" \u{7}\u{0}\t\n\r\u{8}\u{C}\u{7F} é 😀"
        let text = try where_(.compare("s", .equal, .value(.string(s))), literal: true)
        XCTAssertEqual(text, "select * where s = 'it\\'s \\\\ \"q\" \\u0007\\u0000\\t\\n\\r\\b\\f\\u007f é 😀'")
        XCTAssertEqual(try UsergridParser.parse(text, options: .init(literal: true)).condition?.predicate,
            .compare("s", .equal, .value(.string(s))))
    }

    func testDistancesConvertToMetersOnlyWhenExact() throws {
        let p = Term.value(.geoPoint(GeoPoint(latitude: 40, longitude: -105)))
        func near(_ v: Value, _ u: DistanceUnit, min: Distance? = nil) throws -> String {
            try where_(.near("loc", point: p, min: min, max: Distance(.value(v), u)))
        }
        XCTAssertEqual(try near(.int(5), .kilometers), "select * where loc within 5000 of 40.0, -105.0")
        XCTAssertEqual(try near(.double(1.1), .kilometers), "select * where loc within 1100.0 of 40.0, -105.0")
        XCTAssertEqual(try near(.double(0.1), .radians), "select * where loc within 637100.0 of 40.0, -105.0")
        XCTAssertEqual(try near(.int(2), .radians), "select * where loc within 12742000 of 40.0, -105.0")
        XCTAssertEqual(try near(.double(3958.8), .miles), "select * where loc within 6371000.0 of 40.0, -105.0")
        XCTAssertEqual(try near(.int(9897), .miles), "select * where loc within 15927500 of 40.0, -105.0")
        XCTAssertEqual(try near(.double(2.5), .meters), "select * where loc within 2.5 of 40.0, -105.0")
        XCTAssertEqual(try near(.int(7), .meters, min: Distance(.value(.int(0)), .kilometers)), "select * where loc within 7 of 40.0, -105.0")
        XCTAssertThrowsError(try near(.int(1), .miles)) { e in
            XCTAssertEqual((e as? QueryError)?.kind, .unsupported)
            XCTAssertEqual(
                (e as? QueryError)?.message,
                "the distance 1 miles (it has no exact value in meters under the shared Earth radii) cannot be expressed in Usergrid ql")
        }
        XCTAssertThrowsError(try near(.int(Int64.max / 10), .kilometers))
        XCTAssertThrowsError(try near(.double(0.123456789012345678), .radians))
        XCTAssertEqual(UsergridDistance.meters(.double(1e300), .kilometers), .double(1e303))
        XCTAssertNil(UsergridDistance.meters(.double(1.7e308), .kilometers))
        XCTAssertEqual(failure(.near("l", point: p, min: Distance(.value(.int(1)), .meters), max: Distance(.value(.int(5)), .meters)))?.message,
            "'near' with a minimum distance cannot be expressed in Usergrid ql")
        XCTAssertEqual(failure(.near("l", point: p, min: nil, max: nil))?.message,
            "'near' without a maximum distance cannot be expressed in Usergrid ql")
        XCTAssertEqual(failure(.near("l", point: .value(.geoPoint(GeoPoint(latitude: 95, longitude: 0))), min: nil,
            max: Distance(.value(.int(5)), .meters)))?.kind, .invalidValue)
    }

    func testUnsupportedConstructsAreNamed() {
        let k: FieldPath = "k"
        let cases: [(CQLKit.Predicate, String)] = [
            (.regex(k, pattern: .value(.string("a")), options: ""), "'regexp'"),
            (.like(k, pattern: .value(.string("a%"))), "'like'"),
            (.exists(k, true), "'exists'"),
            (.exists(k, false), "'not exists'"),
            (.size(k, .value(.int(1))), "'size'"),
            (.all(k, [.value(.int(1))]), "'all'"),
            (.inQuery(k, query: Query(className: "C"), negated: false), "a subquery"),
            (.select(k, key: "f", query: Query(className: "C"), negated: true), "a subquery"),
            (.relatedTo(object: .value(.pointer(Pointer(className: "C", objectId: "x"))), key: "likes"), "'related ... to'"),
            (.withinBox(k, southwest: .value(.null), northeast: .value(.null)), "a geo box ('within [sw] and [ne]')"),
            (.withinPolygon(k, []), "a geo polygon"),
            (.constant(false), "a constant condition ('true' / 'false')"),
            (.in(k, [], negated: false), "an empty 'in' list (it matches nothing)"),
            (.compare(k, .equal, .value(.null)), "null"),
            (.compare(k, .equal, .value(.date(DateValue(millisecondsSince1970: 0)))), "a Date value"),
            (.compare(k, .equal, .placeholder(index: 0, range: nil)), "a '?' placeholder or unbound value (bind the query first)"),
            (.compare(k, .equal, .value(.string("Fido"))),
                "exact, case-sensitive string equality ('k' = 'Fido') (Usergrid's '=' ignores case; use the literal option)"),
            (.text(k, .equalsIgnoringCase, "a*b"), "case-insensitive equality with a text containing '*' (Usergrid reads '*' as a wildcard)"),
            (.text(k, .word, "a*"), "a 'contains' word containing '*' (Usergrid reads a final '*' as a prefix match)"),
            // UsergridQL.md "Meaning": string ranges ignore case, literals are trimmed.
            (.compare(k, .lessThan, .value(.string("m"))),
                "a case-sensitive string range ('k' < 'm') (Usergrid's string ranges ignore case; use the literal option)"),
            (.text(k, .equalsIgnoringCase, "Fido "),
                "the string \"Fido \" (it has whitespace at an end, and Usergrid trims string literals)"),
            (.text(k, .greaterThanIgnoringCase, "\tm"),
                "the string \"\\tm\" (it has whitespace at an end, and Usergrid trims string literals)"),
            (.compare("first name", .equal, .value(.int(1))),
                "the property name 'first name' (names are [A-Za-z_][A-Za-z0-9_.-]* with no empty step, not reserved words)"),
        ]
        for (p, what) in cases {
            let e = failure(p)
            XCTAssertEqual(e?.kind, .unsupported, what)
            XCTAssertEqual(e?.message, "\(what) cannot be expressed in Usergrid ql")
        }
        XCTAssertEqual(failure(.text(k, .equalsIgnoringCase, "a"), literal: true)?.kind, .unsupported)
        XCTAssertEqual(failure(.text(k, .wildcard, "a*"), literal: true)?.kind, .unsupported)
        XCTAssertEqual(
            failure(.text(k, .lessThanIgnoringCase, "m"), literal: true)?.message,
            "a case-insensitive string range ('k' < 'm') in literal mode (there ranges are case-sensitive) cannot be expressed in Usergrid ql")
        XCTAssertEqual(failure(.compare(k, .equal, .value(.string(" x"))), literal: true)?.kind, .unsupported)
        // Written back: the case-insensitive ranges, and case-sensitive ones with literal.
        XCTAssertEqual(try where_(.text(k, .lessThanOrEqualIgnoringCase, "it's")), #"select * where k <= 'it\'s'"#)
        XCTAssertEqual(try where_(.compare(k, .greaterThan, .value(.string("m"))), literal: true), "select * where k > 'm'")
        for bad in ["desc", "Order", "1a", "a..b", "a.", "", "c6ee8a1c-3ef4-11e2-8861-02e81adcf3d0"] where bad != "Order" {
            XCTAssertEqual(failure(.compare(FieldPath(dotted: bad), .equal, .value(.int(1))))?.kind, .unsupported, bad)
        }
        // 'order' is a property name unless 'by' follows.
        XCTAssertEqual(try? where_(.compare("Order", .equal, .value(.int(1)))), "select * where Order = 1")
    }

    var near: CQLKit.Predicate {
        .near("location", point: .value(.geoPoint(GeoPoint(latitude: 1, longitude: 2))), min: nil, max: Distance(.value(.int(5)), .meters))
    }

    /// UsergridQL.md "Meaning": no `order by` is newest first, or nearest first
    /// with a `within`; those orders are not written.
    func testDefaultOrders() throws {
        let newest = [OrderKey("created", descending: true)]
        XCTAssertEqual(try UsergridFormatter.format(Query(className: "T", order: newest)), "select *")
        XCTAssertEqual(try UsergridFormatter.format(Query(className: "T", order: [OrderKey("created")])), "select * order by created")
        XCTAssertEqual(
            try UsergridFormatter.format(Query(className: "T", condition: Condition(near))), "select * where location within 5 of 1.0, 2.0")
        // With a within, newest first must be written (no order would be nearest first).
        XCTAssertEqual(
            try UsergridFormatter.format(Query(className: "T", condition: Condition(near), order: newest)),
            "select * where location within 5 of 1.0, 2.0 order by created desc")
        let back = try UsergridParser.parse("select * where location within 5 of 1.0, 2.0 order by created desc")
        XCTAssertEqual(back.order, newest)
    }

    func testQueryLevel() throws {
        XCTAssertEqual(try UsergridFormatter.format(Query(className: "T", keys: [SelectedKey("a"), SelectedKey("b.c")], order: [OrderKey("a", descending: true)])),
            "select a, b.c order by a desc")
        XCTAssertEqual(try UsergridFormatter.format(Query(className: "T", keys: [SelectedKey("a", alias: "x")])), "select {a:x}")
        XCTAssertEqual(try UsergridFormatter.format(Query(className: "T", direct: [.string("a b"), .string("desc"), .string("x")])),
            "select * direct 'a b', 'desc', x")
        XCTAssertEqual(try UsergridFormatter.format(Query(className: "T", condition: Condition(.constant(true)))), "select *")
        // skip and limit travel as options, not as ql text.
        XCTAssertEqual(try UsergridFormatter.format(Query(className: "T", skip: .value(.int(5)), limit: .value(.int(3)))), "select *")
        let bad: [(Query, String)] = [
            (Query(className: "T", count: .only), "'count'"),
            (Query(className: "T", includes: ["post"]), "'include'"),
            (Query(className: "T", keys: [SelectedKey("a", excluded: true)]), "an excluded key ('-k')"),
            (Query(className: "T", keys: [SelectedKey("a", alias: "x"), SelectedKey("b")]), "a projection mixing renamed and plain keys"),
            (Query(className: "T", condition: Condition(.constant(false)), direct: [.string("a")]), "'direct' together with a condition"),
            (Query(className: "T", direct: [.int(5)]), "a 'direct' name that is an integer"),
            (Query(className: "T", condition: nil, order: []).withReturnACL, "'returnACL'"),
            // `order by location` with a `within` on location is the distance order in ql.
            (Query(className: "T", condition: Condition(near), order: [OrderKey("location")]),
                "ordering by the value of the 'within' field 'location' (in Usergrid, 'order by location' means nearest first)"),
        ]
        for (q, what) in bad {
            XCTAssertThrowsError(try UsergridFormatter.format(q)) { e in
                XCTAssertEqual((e as? QueryError)?.message, "\(what) cannot be expressed in Usergrid ql")
            }
        }
    }

    func testDocExamples() throws {
        let q = try UsergridParser.parse("WHERE not color eq 'Blue' && (a = 1 || b > 2.5) ORDER BY name ASC")
        XCTAssertEqual(try UsergridFormatter.format(q), "select * where not color = 'Blue' and (a = 1 or b > 2.5) order by name")
        XCTAssertEqual(try UsergridLexer.tokenize("name = 'Fido'").map(\.kind), [.identifier, .equal, .string, .end])
        XCTAssertEqual(
            try UsergridLexer.tokenize("a >= 1.5 && b lt 'x'").map(\.kind),
            [.identifier, .greaterEqual, .number, .and, .identifier, .less, .string, .end])
        let o = try UsergridParser.parse(
            "name = 'Fido'", options: UsergridOptions(className: "dogs", limit: 5, cursor: UsergridOptions.cursor(offset: 10)))
        XCTAssertEqual(o.limit, .value(.int(5)))
        XCTAssertEqual(o.skip, .value(.int(10)))
        let p = try UsergridParser.parse("select * where color = 'blue' and weight > 2 order by name desc")
        XCTAssertEqual(p.condition?.predicate, .and([Condition(.text("color", .equalsIgnoringCase, "blue")), Condition(.compare("weight", .greaterThan, .value(.int(2))))]))
    }

    func testDeepTreesAreALimitError() {
        var cond = Condition(.compare("a", .equal, .value(.int(1))))
        for _ in 0..<10_000 { cond = Condition(.not(cond)) }
        XCTAssertThrowsError(try UsergridFormatter.format(Query(className: "", condition: cond))) { e in
            XCTAssertEqual((e as? QueryError)?.kind, .limit)
        }
    }
}

extension Query {
    fileprivate var withReturnACL: Query {
        var q = self
        q.returnACL = true
        return q
    }
}
