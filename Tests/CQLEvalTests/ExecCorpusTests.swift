import CQLKit
import CorpusSupport
import XCTest

@testable import CQLEval

/// Runs `Corpus/exec/*.cases` (format: Corpus/exec/README.md): one write
/// applied to a store, compared with the expected collections or error.
final class ExecCorpusTests: XCTestCase {
    static let fields: Set<String> = ["rule", "docs", "join", "statement", "params", "result", "after", "join.after", "error"]
    static let now = DateValue(millisecondsSince1970: 1_714_979_289_010)

    func testCorpus() throws {
        let cases = try Corpus.cases(in: "exec")
        XCTAssertGreaterThanOrEqual(cases.count, 30)
        for c in cases { try check(c) }
    }

    /// objectIds `new1`, `new2`, ... in order.
    static func ndjson(_ objects: [[String: Value]]) -> String {
        objects.map { JSONWriter.string(.object($0)) }.joined(separator: "\n")
    }

    private func check(_ c: CorpusCase) throws {
        for name in c.order where !Self.fields.contains(name) { XCTFail("\(c): unknown field '\(name)'") }
        guard let text = c["statement"] else { return XCTFail("\(c): no statement") }
        var params: [Value] = []
        if let p = c["params"], case .array(let items) = try JSONReader.parse(p) { params = items }
        let statement = try Binder.bind(try CQLParser.parseStatement(text), parameters: params, now: Self.now)
        let className = statement.className
        let joinName = Self.firstRelationKey(statement).map { StatementExecutor.joinClass(key: $0, owner: className) }
        var collections = [className: try WriteCaseSupport.objects(c["docs"])]
        if let joinName { collections[joinName] = try WriteCaseSupport.objects(c["join"]) }
        var store = DocumentStore(collections)
        let original = store
        do {
            let result = try StatementExecutor.apply(statement, to: &store, now: Self.now, newObjectId: WriteCaseSupport.sequentialIds("new"))
            if let expected = c["error"] { return XCTFail("\(c): expected the error '\(expected)', got \(JSONWriter.string(result.summary))") }
            if let expected = c["result"] { XCTAssertEqual(JSONWriter.string(result.summary), expected, "\(c): result") }
            if let expected = c["after"] {
                XCTAssertEqual(Self.ndjson(store.objects(in: className)), Self.ndjson(try WriteCaseSupport.objects(expected)), "\(c): after")
            }
            if let expected = c["join.after"], let joinName {
                XCTAssertEqual(Self.ndjson(store.objects(in: joinName)), Self.ndjson(try WriteCaseSupport.objects(expected)), "\(c): join.after")
            }
        } catch {
            guard let expected = c["error"] else { return XCTFail("\(c): unexpected error \(error.shortDescription)") }
            XCTAssertEqual(error.shortDescription, expected, "\(c)")
            XCTAssertNotNil(error.range, "\(c): error without a range")
            for name in original.classNames {
                XCTAssertEqual(Self.ndjson(store.objects(in: name)), Self.ndjson(original.objects(in: name)), "\(c): a failed write changed \(name)")
            }
            if expected.contains(": 305 ") { XCTAssertEqual(error.restCode, 305, "\(c)") }
            if expected.contains(": 101 ") { XCTAssertEqual(error.restCode, 101, "\(c)") }
        }
    }

    static func firstRelationKey(_ s: Statement) -> String? {
        guard case .update(let u) = s else { return nil }
        for a in u.assignments {
            if case .operation(let op) = a.change, op.kind == .addRelation || op.kind == .removeRelation { return a.key.name }
        }
        return nil
    }

    /// LiveQuery: a subscription hears an update move an object out of its
    /// result (`leave`), into it (`enter`), within it (`update`), and the
    /// creation and deletion of matching objects.
    func testSubscriptionSeesWritesAsLiveQueryEvents() throws {
        var store = try DocumentStore.load(path: Corpus.root.appendingPathComponent("data").path)
        let subscription = try ChangeMatcher(try CQLParser.parse("select * from GameScore where score > 1000"), store: store)
        func run(_ text: String) throws -> [String] {
            let s = try Binder.bind(try CQLParser.parseStatement(text), parameters: [], now: Self.now)
            let result = try StatementExecutor.apply(s, to: &store, now: Self.now, newObjectId: { "gsNew" })
            return try subscription.events(for: result).map { "\($0.objectId) \($0.event.rawValue)" }
        }
        XCTAssertEqual(store.object(className: "GameScore", objectId: "gs01")?["score"], .int(1200))
        XCTAssertEqual(try run("update GameScore set score = 10 where objectId = 'gs01'"), ["gs01 leave"])
        XCTAssertEqual(try run("update GameScore set score = op('Increment', {'amount': 5000}) where objectId = 'gs01'"), ["gs01 enter"])
        XCTAssertEqual(try run("update GameScore set name = 'd' where objectId = 'gs01'"), ["gs01 update"])
        XCTAssertEqual(try run("update GameScore set score = 5 where objectId = 'gs03'"), [])
        XCTAssertEqual(try run("insert into GameScore(score) values (2000)"), ["gsNew create"])
        XCTAssertEqual(try run("delete from GameScore where objectId = 'gsNew'"), ["gsNew delete"])
        // Writes to another class say nothing to this subscription.
        XCTAssertEqual(try run("update Player set score = 5000 where objectId = 'pl01'"), [])
    }

    func testDocCommentExample() throws {
        var store = DocumentStore(["Account": [["objectId": "a1", "amount": 120]]])
        let now = DateValue(millisecondsSince1970: 0)
        let s = try Binder.bind(try CQLParser.parseStatement(
            "update Account set amount = op('Decrement', {'amount': 50}) where objectId = 'a1' and amount >= 100"), parameters: [])
        XCTAssertEqual(try StatementExecutor.apply(s, to: &store, now: now).summary, .object(["updated": .int(1)]))
        XCTAssertEqual(store.object(className: "Account", objectId: "a1")?["amount"], .int(70))
        XCTAssertThrowsError(try StatementExecutor.apply(s, to: &store, now: now)) { e in
            XCTAssertEqual((e as? QueryError)?.shortDescription,
                           "1:87: 305 No effect on updating a document: the condition does not hold for Account 'a1'")
            XCTAssertEqual((e as? QueryError)?.restCode, 305)
        }
    }

    /// A delete drops the join rows its object owns; a failing statement
    /// leaves every collection, join rows included, as it was.
    func testDeleteDropsOwnedJoinRowsAndFailuresChangeNothing() throws {
        var store = try DocumentStore.load(path: Corpus.root.appendingPathComponent("data").path)
        let owned = store.objects(in: "_Join:likes:_User").filter { $0["owningId"] == .string("us01") }.count
        XCTAssertGreaterThan(owned, 0)
        let before = store
        let bad = try Binder.bind(try CQLParser.parseStatement(
            "update _User set likes = op('AddRelation', {'objects': [pointer('Post', 'po09')]}), username = op('Increment', {'amount': 1}) where objectId = 'us01'"),
            parameters: [])
        XCTAssertThrowsError(try StatementExecutor.apply(bad, to: &store, now: Self.now))
        for name in before.classNames { XCTAssertEqual(store.objects(in: name), before.objects(in: name), name) }
        let delete = try Binder.bind(try CQLParser.parseStatement("delete from _User where objectId = 'us01'"), parameters: [])
        let result = try StatementExecutor.apply(delete, to: &store, now: Self.now)
        XCTAssertEqual(result.changedClasses, ["_User", "_Join:likes:_User"])
        XCTAssertEqual(store.objects(in: "_Join:likes:_User").count, before.objects(in: "_Join:likes:_User").count - owned)
        XCTAssertNil(store.object(className: "_User", objectId: "us01"))
    }
}
