import CQLKit
import XCTest

/// The examples of the doc comments on the AST and value types, with the
/// results they show asserted, so the comments stay true to the code.
final class DocCommentExampleTests: XCTestCase {
    func testFieldPath() {
        let path = FieldPath(dotted: "post.author.name")
        XCTAssertEqual(path.components, ["post", "author", "name"])
        let index: FieldPath = "tags.0"
        XCTAssertEqual(index.dotted, "tags.0")
        XCTAssertEqual(FieldPath(dotted: "post.author").componentCount, 2)
        XCTAssertEqual(FieldPath(dotted: "score").singleComponent, "score")
        XCTAssertNil(FieldPath(dotted: "a.b").singleComponent)
    }

    /// A one-component path is stored apart from a longer one: however it
    /// is made, paths with the same components are equal and hash alike,
    /// and `components` gives them back.
    func testFieldPathStorageIsInvisible() {
        let made: [[String]] = [[], [""], ["a"], ["a", "b"], ["", ""], ["x.y"], ["tags", "0"]]
        for components in made {
            let direct = FieldPath(components)
            var assigned = FieldPath(["placeholder", "path"])
            assigned.components = components
            var appended = FieldPath([])
            for c in components { appended.components.append(c) }
            for p in [direct, assigned, appended] {
                XCTAssertEqual(p.components, components)
                XCTAssertEqual(p, direct)
                XCTAssertEqual(p.hashValue, direct.hashValue)
                XCTAssertEqual(p.componentCount, components.count)
                XCTAssertEqual(p.singleComponent, components.count == 1 ? components[0] : nil)
                XCTAssertEqual(p.dotted, components.joined(separator: "."))
            }
        }
        XCTAssertEqual(FieldPath(dotted: "a"), FieldPath(["a"]))
        XCTAssertEqual(FieldPath(dotted: "a.b"), FieldPath(["a", "b"]))
        XCTAssertEqual(FieldPath(dotted: ""), FieldPath([""]))
        XCTAssertNotEqual(FieldPath(["a"]), FieldPath(["a", ""]))
    }

    /// Copies of a query share one box until one is written: a write never
    /// shows through another copy.
    func testQueryCopiesAreIndependent() throws {
        let original = try CQLParser.parse("select * from T where a = 1 order by b limit 3")
        var copy = original
        copy.className = "U"
        copy.limit = nil
        copy.order.append(OrderKey("c"))
        XCTAssertEqual(original.className, "T")
        XCTAssertEqual(original.limit, .value(.int(3)))
        XCTAssertEqual(original.order, [OrderKey("b")])
        XCTAssertEqual(copy.order, [OrderKey("b"), OrderKey("c")])
        XCTAssertNotEqual(copy, original)
        var back = copy
        back.className = "T"
        back.limit = .value(.int(3))
        back.order.removeLast()
        XCTAssertEqual(back, original)
        XCTAssertEqual(back.hashValue, original.hashValue)
    }

    func testTerm() throws {
        let q = try CQLParser.parse("select * from T where at > date(?) limit ?")
        XCTAssertEqual(q.limit, .placeholder(index: 1, range: SourceRange(41, 42)))
        guard case .placeholder(_, let range)? = q.limit else { return XCTFail("not a placeholder") }
        XCTAssertEqual(range, SourceRange(41, 42))
        let bound = try Binder.bind(q, parameters: ["2020-01-01T00:00:00.000Z", 5])
        XCTAssertEqual(bound.limit, .value(.int(5)))
        XCTAssertEqual(bound.condition?.predicate,
                       .compare("at", .greaterThan, .value(.date(DateValue(millisecondsSince1970: 1577836800000)))))
    }

    func testDistance() throws {
        let q = try CQLParser.parse("select * from T where loc near geopoint(116.4, 39.9) max 2 km")
        XCTAssertEqual(q.condition?.predicate,
                       .near("loc", point: .value(.geoPoint(GeoPoint(latitude: 39.9, longitude: 116.4))),
                             min: nil, max: Distance(.value(.int(2)), .kilometers)))
        XCTAssertEqual(DistanceUnit.kilometers.earthRadius, 6371.0)
        XCTAssertEqual(2 / DistanceUnit.kilometers.earthRadius, 0.000313922, accuracy: 1e-9)
    }

    func testTypedValues() {
        let d = ISODate.parse("2015-06-21T18:02:52.249Z")!
        XCTAssertEqual(d.millisecondsSince1970, 1434909772249)
        XCTAssertEqual(ISODate.format(d), "2015-06-21T18:02:52.249Z")
        XCTAssertEqual(JSONWriter.string(.date(d)), #"{"__type":"Date","iso":"2015-06-21T18:02:52.249Z"}"#)
        let post = Pointer(className: "Post", objectId: "51e3a359e4b015ead4d95ddc")
        XCTAssertEqual(JSONWriter.string(.pointer(post)),
                       #"{"__type":"Pointer","className":"Post","objectId":"51e3a359e4b015ead4d95ddc"}"#)
        let beijing = GeoPoint(latitude: 39.9, longitude: 116.4)
        XCTAssertEqual(JSONWriter.string(.geoPoint(beijing)), #"{"__type":"GeoPoint","latitude":39.9,"longitude":116.4}"#)
        XCTAssertFalse(GeoPoint(latitude: 91, longitude: 0).isValid)
        XCTAssertEqual(JSONWriter.string(.file(FileReference(id: "5a1b"))), #"{"__type":"File","id":"5a1b"}"#)
        XCTAssertEqual(FileReference(id: "5a1b", url: "https://a"), FileReference(id: "5a1b"))
        let local = ISODate.parse("2011-08-20T10:06:57.931+08:00")!
        XCTAssertEqual(ISODate.format(local), "2011-08-20T02:06:57.931Z")
        XCTAssertNil(ISODate.parse("2011-02-30"))
    }

    func testConditionsAndClauses() throws {
        XCTAssertEqual(ComparisonOperator(rawValue: "<="), .lessThanOrEqual)
        XCTAssertEqual(try CQLParser.parse("select * from T where a <> 1").condition?.predicate,
                       .compare("a", .notEqual, .value(1)))
        let ug = try UsergridParser.parse("name = 'Morg*'", options: UsergridOptions(className: "users"))
        XCTAssertEqual(ug.condition?.predicate, .text("name", .wildcard, "Morg*"))
        XCTAssertEqual(try UsergridParser.parse("name < 'delta'").condition?.predicate, .text("name", .lessThanIgnoringCase, "delta"))
        XCTAssertEqual(TextMatch.lessThanIgnoringCase.rangeOperator, .lessThan)
        let text = try WhereJSONReader.read(#"{"title":{"$text":{"$search":{"$term":"coffee"}}}}"#, className: "Post")
        XCTAssertEqual(text.condition?.predicate, .fullText("title", FullTextSearch(term: "coffee")))
        let q = try CQLParser.parse("select * from T where tags all ('a', 'b') or size(tags) = 0")
        XCTAssertEqual(q.condition?.predicate,
                       .or([Condition(.all("tags", [.value("a"), .value("b")])), Condition(.size("tags", .value(0)))]))
        XCTAssertEqual(try CQLParser.parse("select count(*) from T").count, .only)
        XCTAssertEqual(try CQLParser.parse("select count(*), * from T").count, .withResults)
        XCTAssertEqual(try WhereJSONReader.read(#"{"className":"Post","keys":"title,-body"}"#).keys,
                       [SelectedKey("title"), SelectedKey("body", excluded: true)])
        XCTAssertEqual(try UsergridParser.parse("select {name:n}").keys, [SelectedKey("name", alias: "n")])
        XCTAssertEqual(try CQLParser.parse("select * from T order by score, +name desc").order,
                       [OrderKey("score", descending: true), OrderKey("name")])
        XCTAssertEqual(try CQLParser.parse("select * from T where a = 1").condition?.range, SourceRange(22, 27))
    }

    func testSQLStoredColumns() {
        XCTAssertEqual(SQLStoredColumns.dateColumn(.string("2017-11-11T07:19:15.549Z")), .int(1_510_384_755_549))
        XCTAssertEqual(SQLStoredColumns.dateColumn(.string("yesterday")), .null)
        XCTAssertEqual(SQLStoredColumns.dateColumns(["createdAt": .date(DateValue(millisecondsSince1970: 5)), "updatedAt": .array([])]), [.int(5), .null])
        XCTAssertTrue(SQLStoredColumns.holdsArray(["updatedAt": .array([])]))
    }

}
