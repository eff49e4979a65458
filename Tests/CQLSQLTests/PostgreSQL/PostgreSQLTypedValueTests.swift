import CQLEval
@testable import CQLKit
import CQLSQL
import CorpusSupport
import XCTest

/// The typed-value shapes of PostgreSQLDialect+TypedValues.swift on the
/// real database: the SQL instant of ISO text against `ISODate.parse`, and
/// typed constants through every comparison, exact and equal to the evaluator.
extension PostgreSQLTests {
    /// Every spelling near the edges of `ISODate.parse` (calendar days, leap
    /// years, hours, seconds up to 60, fractions, zones): the SQL instant
    /// (``PostgreSQLDialect/instant`` over ``PostgreSQLDialect/isoPattern``)
    /// is the parsed instant, or none exactly when the text does not parse,
    /// and the pattern as a JSON path `like_regex` accepts the same texts.
    func testISOInstantsAgreeWithISODateParse() throws {
        let db = try database()
        let dates = ["0000-01-01", "0000-02-29", "0001-02-29", "1900-02-29", "2000-02-29", "2004-02-29", "2100-02-29", "1969-12-31",
                     "1970-01-01", "2011-08-20", "2011-02-28", "2011-02-30", "2011-04-30", "2011-04-31", "2011-06-31", "2011-09-31",
                     "2011-11-31", "2011-12-31", "2011-12-32", "2011-00-10", "2011-13-01", "2011-01-00", "9999-12-31", "2011-8-20",
                     "20110820", "2011-08-2", "２０１１-08-20", "1600-02-29", "2096-02-29", "2024-02-29", "2023-02-29"]
        let times = ["", "T00:00", "T10:06", "t10:06:57", " 10:06:57.9", "T10:06:57.931", "T10:06:57.9319", "T10:06:57.93199999999999Z",
                     "T23:59:60Z", "T23:59:61Z", "T24:00Z", "T10:60Z", "T10:06:57.931Z", "T10:06:57.931z", "T10:06:57.931+08:00",
                     "T10:06:57.931-0830", "T10:06:57+23:59", "T10:06:57+24:00", "T10:06:57+08:60", "T10:06:57+08", "T10:06:57.Z",
                     "T10:06.5Z", "T10:06:57Zx", "Z", "T", "T10", "T10:06:57 ", "T10:06:57\n", "\nT10:06", "X10:06", "T10:06:57.931+08:0"]
        var texts: [String] = []
        for d in dates { for t in times { texts.append(d + t) } }
        texts += ["", "yesterday", "2011-08-20T10:06:57.931Z\n", " 2011-08-20", "{\"a\":1}", "2011-08-20T10:06:57,931Z"]
        let list = JSONWriter.string(.array(texts.map { .string($0) }))
        let pattern = try XCTUnwrap(PostgreSQLDialect.pathString(PostgreSQLDialect.isoPattern))
        let sql = "SELECT string_agg(COALESCE((\(PostgreSQLDialect.instant))::text, '-') || ' ' || jsonb_path_exists(to_jsonb(u.s), "
            + "$2::jsonpath)::text, ',' ORDER BY u.i) AS \"doc\" FROM jsonb_array_elements_text($1::jsonb) WITH ORDINALITY AS u(s, i) "
            + "LEFT JOIN LATERAL regexp_match(u.s, \(sqlLiteral(PostgreSQLDialect.isoPattern))) AS r(m) ON TRUE"
        let rows = try db.documents(SQLStatement(sql: sql, arguments: [.string(list), .string("lax $ ? (@ like_regex \(pattern) flag \"s\")")]))
        let got = try XCTUnwrap(rows.first).split(separator: ",").map(String.init)
        XCTAssertEqual(got.count, texts.count)
        var parsed = 0
        for (text, answer) in zip(texts, got) {
            let want = ISODate.parse(text)
            if want != nil { parsed += 1 }
            XCTAssertEqual(answer, "\(want.map { String($0.millisecondsSince1970) } ?? "-") \(want != nil)", "\(JSONWriter.string(.string(text)))")
        }
        XCTAssertGreaterThan(parsed, 150)
    }

    /// Typed constants (Dates, Pointers, GeoPoints, Bytes, Files, Relations)
    /// and `createdAt` strings in every spelling, through `=`, `!=`, ranges,
    /// `in`, `not in` and `all` on plain, array, nested-array and dotted
    /// paths: each query answers as the evaluator does, and runs exactly
    /// in PostgreSQL but for ranges against Files and plain objects.
    func testTypedValueShapesAreExact() throws {
        let db = try database()
        func date(_ iso: String) throws -> Value { .date(try XCTUnwrap(ISODate.parse(iso))) }
        let a = try date("2011-08-20T02:06:57.931Z"), midnight = try date("2011-08-20"), early = try date("1969-12-31T23:59:59.999Z")
        let s1: Value = .pointer(Pointer(className: "S", objectId: "s1")), s2: Value = .pointer(Pointer(className: "S", objectId: "s2"))
        let point: Value = .geoPoint(GeoPoint(latitude: 1, longitude: 2))
        let plainPoint: Value = .object(["latitude": 1, "longitude": 2.0])
        let fileA: Value = .file(FileReference(id: "a")), fileN: Value = .file(FileReference(name: "n"))
        let fileAN: Value = .file(FileReference(id: "a", name: "n", url: "http://x/y"))
        let bytes: Value = .bytes(base64: "AAE="), relation: Value = .relation(className: "S")
        let rows: [(Value, Value, Value, Value, Value)] = [
            // at, createdAt, p, loc, f
            (a, "2011-08-20T10:06:57.931+08:00", s1, point, fileA),
            ([a, midnight], "2011-08-20T02:06:57.931Z", [s1, s2], plainPoint, fileN),
            ("2011-08-20T02:06:57.931Z", a, .pointer(Pointer(className: "T", objectId: "s1")), .object(["latitude": 1.0, "longitude": 2, "x": 3]), fileAN),
            ([[a]], ["2011-08-20T02:06:57.931Z", midnight], "s1", [point], .file(FileReference(id: "a", name: "m"))),
            (.null, "yesterday", .typedObject(className: "S", fields: ["objectId": "s1"]), .object(["latitude": "1", "longitude": 2]), bytes),
            (.object(["x": a]), "2011-02-30T00:00:00Z", [[s1]], .geoPoint(GeoPoint(latitude: -0.0, longitude: 2)), .bytes(base64: "aGk=")),
            (early, "2011-08-20t02:06:57.9319z", .array([]), [[point]], relation),
            (midnight, "2011-08-20 10:06+08:00", s2, .object(["latitude": 1]), .relation(className: "T")),
            (["2011-08-20"], "2011-08-20", .null, .object(["longitude": 2, "latitude": 1, "__type": "GeoPoint"]), "a"),
            ([early, "x"], "0000-02-29T00:00:00Z", [s2, "s1"], [plainPoint], [fileA, bytes]),
        ]
        var objects: [[String: Value]] = []
        for (i, r) in rows.enumerated() {
            var o: [String: Value] = ["objectId": .string("v\(i)"), "at": r.0, "createdAt": r.1, "p": r.2, "loc": r.3, "f": r.4]
            o["o"] = .array([.object(["at": r.0, "p": r.2]), .object(["loc": r.3])])
            if i % 3 == 0 { o["updatedAt"] = r.1 }
            // As a data file reads it: `{"__type": ...}` objects decoded.
            guard case .object(let decoded) = try Value.object(o).decodingTypedValues() else { return XCTFail("not an object") }
            objects.append(decoded)
        }
        try db.insert(objects, into: "V")
        let store = DocumentStore(["V": objects])
        let constants: [Value] = [a, midnight, early, s1, s2, point, plainPoint, .geoPoint(GeoPoint(latitude: 0, longitude: 2)), bytes, fileA,
                                  fileN, fileAN, relation, "2011-08-20T02:06:57.931Z", "yesterday", "2011-08-20", "2011-02-30T00:00:00Z", 5, .null]
        let paths: [FieldPath] = ["at", "createdAt", "updatedAt", "p", "loc", "f", "o.at", "o.p", "o.loc"]
        var queries: [CQLKit.Predicate] = []
        for path in paths {
            for (i, c) in constants.enumerated() {
                for op in ComparisonOperator.allCases { queries.append(.compare(path, op, .value(c))) }
                let pair: [Term] = [.value(c), .value(constants[(i + 3) % constants.count])]
                queries += [.in(path, pair, negated: false), .in(path, pair, negated: true), .all(path, pair)]
            }
        }
        var tally = Differential.Tally()
        for predicate in queries {
            let q = Query(className: "V", condition: Condition(predicate))
            let text = (try? CQLFormatter.format(q)) ?? "\(predicate)"
            if let failure = Differential.compare(q, store: store, db: db, tally: &tally) { XCTFail("\(text): \(failure)") }
            // Ranges against Files and plain {latitude, longitude} objects
            // are the ones left to the re-check.
            var exact = true
            if case .compare(_, let op, .value(let c)) = predicate, op != .equal && op != .notEqual {
                switch c {
                case .file, .object: exact = false
                default: break
                }
            }
            XCTAssertEqual(try SQLGenerator.pushdown(q, dialect: .postgres).isExact, exact, "\(text): exact in PostgreSQL")
        }
        XCTAssertGreaterThan(tally.rows, 1000)
    }

    /// The GIN `jsonb_path_ops` index `cql load --index` creates serves a
    /// Pointer equality (the typed filter's `==` members), and the answer
    /// is the evaluator's.
    func testPointerEqualityUsesTheIndex() throws {
        let db = try database()
        var objects: [[String: Value]] = []
        for i in 0..<5000 {
            objects.append(["objectId": .string("c\(i)"), "post": .pointer(Pointer(className: "Post", objectId: "p\(i % 997)"))])
        }
        try db.insert(objects, into: "Comment")
        try db.load(path: Corpus.root.appendingPathComponent("data").path, className: nil, indexes: ["post"])
        let query = try Binder.bind(try CQLParser.parse("select * from Comment where post = pointer('Post', 'p12')"), parameters: [])
        let plan = try SQLRunner.explain(query, on: db)
        XCTAssertTrue(plan.contains { $0.contains("Bitmap Index Scan on \"Comment:doc\"") }, plan.joined(separator: "\n"))
        let store = try DocumentStore.load(path: Corpus.root.appendingPathComponent("data").path)
        var tally = Differential.Tally()
        XCTAssertNil(Differential.compare(query, store: DocumentStore(["Comment": objects + store.objects(in: "Comment")]), db: db, tally: &tally))
        XCTAssertEqual(tally.exact, tally.queries)
    }
}
