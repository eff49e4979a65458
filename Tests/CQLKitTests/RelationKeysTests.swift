import CQLKit
import XCTest

/// `Query.resolvingRelationKeys(hasTable:)`: a relation key's comparisons
/// with Pointers, where the storage holds its join table (EvaluationSemantics,
/// "Relation keys"). What each resolved query finds is checked on the
/// evaluator and both databases by the eval corpus (`subquery.cases`).
final class RelationKeysTests: XCTestCase {
    let u1: Term = .value(.pointer(Pointer(className: "_User", objectId: "u1")))
    let u2: Term = .value(.pointer(Pointer(className: "_User", objectId: "u2")))
    func holds(_ t: Term, _ className: String = "_Role") -> Condition { Condition(.relationHolds(key: "users", className: className, object: t)) }
    func roles(_ where: String) throws -> Query { try WhereJSONReader.read(`where`, className: "_Role") }
    let join: (String) -> Bool = { $0 == "_Join:users:_Role" }

    /// The doc comment's example.
    func testDocCommentExample() throws {
        let q = try roles(#"{"users":{"__type":"Pointer","className":"_User","objectId":"u1"}}"#)
        XCTAssertEqual(q.resolvingRelationKeys(hasTable: join)?.condition, holds(u1))
        XCTAssertNil(q.resolvingRelationKeys(hasTable: { _ in false }))
    }

    func testEachComparison() throws {
        let p1 = #"{"__type":"Pointer","className":"_User","objectId":"u1"}"#, p2 = #"{"__type":"Pointer","className":"_User","objectId":"u2"}"#
        XCTAssertEqual(try roles(#"{"users":{"$ne":\#(p1)}}"#).resolvingRelationKeys(hasTable: join)?.condition, .not(holds(u1)))
        XCTAssertEqual(try roles(#"{"users":{"$in":[\#(p1),\#(p2)]}}"#).resolvingRelationKeys(hasTable: join)?.condition,
                       .or([holds(u1), holds(u2)]))
        XCTAssertEqual(try roles(#"{"users":{"$nin":[\#(p1),\#(p2)]}}"#).resolvingRelationKeys(hasTable: join)?.condition,
                       .not(.or([holds(u1), holds(u2)])))
        XCTAssertEqual(try roles(#"{"users":{"$all":[\#(p1),\#(p2)]}}"#).resolvingRelationKeys(hasTable: join)?.condition,
                       .and([holds(u1), holds(u2)]))
        // Other tests of the key, other values and other keys stay as they are.
        for other in [#"{"users":{"$exists":true}}"#, #"{"users":"u1"}"#, #"{"users":{"$in":[\#(p1),"u2"]}}"#, #"{"members":\#(p1)}"#] {
            XCTAssertNil(try roles(other).resolvingRelationKeys(hasTable: join), other)
        }
    }

    /// A sub-query's comparisons are of its own class; `$elemMatch` paths are relative to an element.
    func testSubQueriesAndElements() throws {
        let q = try CQLParser.parse("select * from Post where author in (select * from _User where likes = pointer('Post', 'p1')) and tags.x = pointer('_User', 'u1')")
        let resolved = q.resolvingRelationKeys { $0 == "_Join:likes:_User" || $0 == "_Join:tags:Post" }
        guard case .and(let items)? = resolved?.condition?.predicate, case .inQuery(_, let sub, false) = items[0].predicate else {
            return XCTFail("\(String(describing: resolved))")
        }
        XCTAssertEqual(sub.condition, Condition(.relationHolds(key: "likes", className: "_User", object: .value(.pointer(Pointer(className: "Post", objectId: "p1"))))))
        XCTAssertEqual(items[1], q.condition.map { if case .and(let i) = $0.predicate { i[1] } else { $0 } })
    }

    /// Every text prints it as the equality it was made of.
    func testTextsPrintTheEquality() throws {
        let q = Query(className: "_Role", condition: holds(u1))
        XCTAssertEqual(try CQLFormatter.format(q), "select * from _Role where users = pointer('_User', 'u1')")
        XCTAssertEqual(holds(u1).writtenAsComparison, Condition(.compare("users", .equal, u1)))
    }
}
