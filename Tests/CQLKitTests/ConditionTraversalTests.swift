import CQLKit
import XCTest

/// The one traversal of conditions (``ConditionDescent``): which nodes each
/// descent reaches and in what order, that a rewrite copies only what
/// changed, and the walkers built on it.
final class ConditionTraversalTests: XCTestCase {
    private func leaf(_ key: FieldPath) -> Condition { Condition(.exists(key, true)) }

    /// `a and not b and c $elemMatch {d} and e in (select U where f and g in (select V where h)) and $relatedTo`.
    private func tree() -> Condition {
        let inner = Query(className: "V", condition: leaf("h"))
        let sub = Query(className: "U", condition: .and([leaf("f"), Condition(.inQuery("g", query: inner, negated: false))]))
        let owner = Term.value(.pointer(Pointer(className: "Post", objectId: "p1")))
        return .and([
            leaf("a"), .not(leaf("b")), Condition(.elementMatch("c", leaf("d"))),
            Condition(.inQuery("e", query: sub, negated: false)), Condition(.relatedTo(object: owner, key: "likes")),
        ])
    }

    /// The key of each node visited: a leaf's path, else the construct.
    private func visited(_ c: Condition, _ descent: ConditionDescent) -> [String] {
        var out: [String] = []
        c.forEach(entering: descent) { node in
            switch node.predicate {
            case .exists(let p, _): out.append(p.dotted)
            case .elementMatch(let p, _), .inQuery(let p, _, _): out.append("[" + p.dotted + "]")
            default: out.append(Self.construct(node))
            }
        }
        return out
    }

    private static func construct(_ c: Condition) -> String {
        switch c.predicate {
        case .and: return "and"
        case .not: return "not"
        case .relatedTo: return "related"
        default: return "\(c.predicate)"
        }
    }

    func testEachDescentReachesItsScopesInOrder() {
        let c = tree()
        XCTAssertEqual(visited(c, .ownTests), ["and", "a", "not", "b", "[c]", "[e]", "related"])
        XCTAssertEqual(visited(c, .elementMatch), ["and", "a", "not", "b", "[c]", "d", "[e]", "related"])
        XCTAssertEqual(visited(c, .subqueries), ["and", "a", "not", "b", "[c]", "[e]", "and", "f", "[g]", "h", "related"])
        XCTAssertEqual(visited(c, .everything), ["and", "a", "not", "b", "[c]", "d", "[e]", "and", "f", "[g]", "h", "related"])
    }

    func testContainsStopsAtTheFirstMatchAndHonoursTheDescent() {
        let c = tree()
        var tested = 0
        XCTAssertTrue(c.contains(entering: .everything) { node in
            tested += 1
            if case .exists("b", _) = node.predicate { return true }
            return false
        })
        XCTAssertEqual(tested, 4)  // and, a, not, b
        func has(_ key: FieldPath, _ d: ConditionDescent) -> Bool {
            c.contains(entering: d) { if case .exists(key, _) = $0.predicate { true } else { false } }
        }
        XCTAssertFalse(has("d", .ownTests))
        XCTAssertTrue(has("d", .elementMatch))
        XCTAssertFalse(has("h", .elementMatch))
        XCTAssertTrue(has("h", .subqueries))
    }

    func testTransformedCopiesOnlyWhatChangedAndRunsBottomUp() {
        let c = tree()
        XCTAssertNil(c.transformed(entering: .everything) { _ in nil })
        var order: [String] = []
        let renamed = c.transformed(entering: .everything) { node -> Condition? in
            guard case .exists(let p, let b) = node.predicate else {
                if case .and = node.predicate { order.append("and") }
                return nil
            }
            order.append(p.dotted)
            return p == "h" ? Condition(.exists("H", b), range: node.range) : nil
        }
        XCTAssertEqual(order, ["a", "b", "d", "f", "h", "and", "and"])
        XCTAssertNotNil(renamed)
        XCTAssertEqual(visited(renamed!, .everything), ["and", "a", "not", "b", "[c]", "d", "[e]", "and", "f", "[g]", "H", "related"])
        // Outside the descent nothing is rewritten.
        XCTAssertNil(c.transformed(entering: .elementMatch) { node in
            if case .exists("h", _) = node.predicate { return Condition(.constant(true)) }
            return nil
        })
    }

    /// A rewrite replaces operands in place: an `and` that comes to hold an
    /// `and` is not flattened (that is ``FlattenLogic``'s to do).
    func testTransformedDoesNotFlatten() {
        let c = Condition.and([leaf("a"), Condition(.not(leaf("b")))])
        let new = c.transformed(entering: .ownTests) { node in
            if case .not(let inner) = node.predicate { return Condition(.and([inner, leaf("x")])) }
            return nil
        }
        guard case .and(let items)? = new?.predicate, items.count == 2, case .and = items[1].predicate else {
            return XCTFail("flattened: \(String(describing: new))")
        }
    }

    func testSubqueriesOutsideReadsAndNear() {
        let c = tree()
        let q = Query(className: "T", condition: c)
        XCTAssertEqual(q.subqueries.map(\.className), ["U"])
        XCTAssertTrue(q.containsQuery { $0.className == "V" })
        XCTAssertFalse(q.containsQuery { $0.className == "W" })
        var reads: [String] = []
        c.forEach(entering: .everything) { node in
            switch node.outsideRead {
            case .subquery(let sub)?: reads.append(sub.className)
            case .relation(_, let key)?: reads.append("relation " + key)
            case .ownRelation(let className, let key)?: reads.append("own relation \(className).\(key)")
            case nil: break
            }
        }
        XCTAssertEqual(reads, ["U", "V", "relation likes"])

        let near = Condition(.near("loc", point: .value(.geoPoint(GeoPoint(latitude: 1, longitude: 2))), min: nil, max: nil))
        XCTAssertTrue(Condition.or([leaf("a"), .not(near)]).mentionsNear)
        XCTAssertFalse(Condition(.elementMatch("a", near)).mentionsNear)
        XCTAssertFalse(Condition(.inQuery("a", query: Query(className: "U", condition: near), negated: false)).mentionsNear)
    }

    /// The example of ``ConditionDescent``'s doc comment.
    func testDocCommentExample() throws {
        let c = try CQLParser.parse("select * from T where a in (select * from U where b = 1)").condition!
        var own = 0, all = 0
        c.forEach(entering: .ownTests) { _ in own += 1 }
        c.forEach(entering: .everything) { _ in all += 1 }
        XCTAssertEqual(own, 1)
        XCTAssertEqual(all, 2)
    }
}
