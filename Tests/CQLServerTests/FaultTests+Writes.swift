import CQLKit
import XCTest

/// A create with relation ops commits all or nothing: the object and its
/// relation rows, or neither (alone and inside a batch).
final class FaultTestsWrites: XCTestCase {
    static let badTags: Value = .object(["__op": "AddRelation", "objects": .array([.int(1)])])
    static let goodTags: Value = .object(["__op": "AddRelation", "objects": .array([
        .object(["__type": "Pointer", "className": "Tag", "objectId": "t1"]),
    ])])

    func testACreateWithABadRelationOpCreatesNothing() async throws {
        try await onEachDatabase { h, database in
            let bad = try await h.call(.POST, "/1.1/classes/Post", body: .object(["title": "bad", "tags": Self.badTags]))
            XCTAssertEqual(bad.status, 400, "\(database): \(bad.text)")
            // In a batch: the bad create fails alone, the good one is made.
            let batch = try await h.call(.POST, "/1.1/batch", body: .object(["requests": .array([
                .object(["method": "POST", "path": "/1.1/classes/Post", "body": .object(["title": "bad in a batch", "tags": Self.badTags])]),
                .object(["method": "POST", "path": "/1.1/classes/Post", "body": .object(["title": "good", "tags": Self.goodTags])]),
            ])]))
            XCTAssertEqual(batch.status, 200, "\(database): \(batch.text)")
            XCTAssertNotNil(batch.body.array.first?["error"], "\(database): \(batch.text)")
            let goodId = try XCTUnwrap(batch.body.array.last?["success"]?["objectId"]?.string, "\(database): \(batch.text)")
            let all = try await h.call(.GET, "/1.1/classes/Post", query: [("keys", "title")])
            XCTAssertEqual(all.body["results"]?.array.compactMap { $0["title"]?.string }, ["good"], "\(database): \(all.text)")
            // The good one's relation is there.
            let related = try await h.call(.GET, "/1.1/classes/Tag", query: [
                ("where", #"{"$relatedTo":{"object":{"__type":"Pointer","className":"Post","objectId":"\#(goodId)"},"key":"tags"}}"#),
            ])
            XCTAssertEqual(related.status, 200, "\(database): \(related.text)")
        }
    }
}
