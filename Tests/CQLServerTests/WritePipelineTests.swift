import CQLEval
import CQLKit
import CQLServer
import Foundation
import XCTest

/// The write pipeline (issue 39, item 3): an observer registered on a real
/// server sees every committed change of every write path, with before and
/// after images, and the hook points refuse, change and follow writes.
final class WritePipelineTests: XCTestCase {
    typealias H = ServerHarness

    /// Every committed write, in the order the observer was called.
    final class Recorder: CommittedChangeObserver, @unchecked Sendable {
        private let lock = NSLock()
        private var writes: [CommittedWrite] = []
        func committed(_ write: CommittedWrite) {
            lock.lock()
            writes.append(write)
            lock.unlock()
        }
        /// The writes since the last call.
        func take() -> [CommittedWrite] {
            lock.lock()
            defer { writes = []; lock.unlock() }
            return writes
        }
    }

    /// Refuses writes of `Refused`, stamps `Stamped`, records what it saw,
    /// and holds the after-hook of `Slow` until the test opens its gate.
    final class TestHooks: WriteHooks, @unchecked Sendable {
        private let lock = NSLock()
        private var seen: [PendingWrite] = []
        private var after: [CommittedWrite] = []
        private var gate: CheckedContinuation<Void, Never>?
        private var opened = false

        func beforeWrite(_ write: inout PendingWrite) async throws(APIError) {
            lock.withLock { seen.append(write) }
            if write.className == "Refused" { throw APIError(code: 142, "refused by the test's hook") }
            if write.className == "Stamped", write.kind != .delete { write.fields["stamp"] = .string(write.kind.rawValue) }
        }

        func afterWrite(_ write: CommittedWrite) async {
            if write.changes.first?.className == "Slow" {
                await withCheckedContinuation { c in
                    let go = lock.withLock { () -> Bool in
                        if opened { return true }
                        gate = c
                        return false
                    }
                    if go { c.resume() }
                }
            }
            lock.withLock { after.append(write) }
        }

        func handles(_ kind: PendingWrite.Kind, className: String) -> Bool { className != "Unhooked" }

        func open() {
            let c = lock.withLock { () -> CheckedContinuation<Void, Never>? in
                opened = true
                defer { gate = nil }
                return gate
            }
            c?.resume()
        }

        /// Closes the gate again (for the next database).
        func close() { lock.withLock { opened = false } }

        func takeSeen() -> [PendingWrite] { lock.withLock { defer { seen = [] }; return seen } }

        /// The after-hook's writes, waiting up to 10 s for `count` of them.
        func afterWrites(count: Int) async throws -> [CommittedWrite] {
            for _ in 0..<1000 {
                let got = lock.withLock { after }
                if got.count >= count { return got }
                try await Task.sleep(nanoseconds: 10_000_000)
            }
            return lock.withLock { after }
        }
    }

    /// Every write's observer and hooks on a fresh server of each database.
    func onEachDatabase(observer: Recorder, hooks: TestHooks? = nil, _ body: (H, H.Database) async throws -> Void) async throws {
        try await onEachDatabase(configure: { c in
            c.observers = [observer]
            c.hooks = hooks
        }) { h, db in
            _ = observer.take()
            try await body(h, db)
        }
    }

    /// One committed write of one change of `className`, whose before and
    /// after images hold the given keys' values (`nil`: no image).
    @discardableResult
    func expectOne(_ recorder: Recorder, _ className: String, before: [String: Value]?, after: [String: Value]?,
                   _ what: String, file: StaticString = #filePath, line: UInt = #line) -> ObjectChange? {
        let writes = recorder.take()
        XCTAssertEqual(writes.count, 1, "\(what): \(writes.map(\.changes))", file: file, line: line)
        guard let change = writes.first?.changes.first, writes.first?.changes.count == 1 else {
            XCTFail("\(what): expected one change, got \(writes.map(\.changes))", file: file, line: line)
            return nil
        }
        XCTAssertEqual(change.className, className, what, file: file, line: line)
        Self.check(change.before, before, "\(what) before", file: file, line: line)
        Self.check(change.after, after, "\(what) after", file: file, line: line)
        if let b = change.before { XCTAssertEqual(b["objectId"]?.string, change.objectId, what, file: file, line: line) }
        if let a = change.after { XCTAssertEqual(a["objectId"]?.string, change.objectId, what, file: file, line: line) }
        return change
    }

    static func check(_ image: [String: Value]?, _ expected: [String: Value]?, _ what: String, file: StaticString, line: UInt) {
        guard let expected else { return XCTAssertNil(image, what, file: file, line: line) }
        guard let image else { return XCTFail("\(what): no image", file: file, line: line) }
        for (key, value) in expected {
            if value == .string("*") {
                XCTAssertNotNil(image[key], "\(what) \(key)", file: file, line: line)
            } else {
                XCTAssertEqual(image[key], value, "\(what) \(key): \(image)", file: file, line: line)
            }
        }
    }

    func testTheObserverSeesEveryWritePathsCommittedChanges() async throws {
        let seen = Recorder()
        try await onEachDatabase(observer: seen) { h, db in
            // The class API: create, update (op and value), fetchWhenSave, delete.
            var a = try await h.call(.POST, "/1.1/classes/Note", body: ["text": "a", "n": 1])
            XCTAssertEqual(a.status, 201, "\(db) \(a.text)")
            let note = a.body["objectId"]?.string ?? ""
            let created = expectOne(seen, "Note", before: nil, after: ["text": "a", "n": 1, "createdAt": "*"], "\(db) create")
            XCTAssertEqual(created?.objectId, note)
            a = try await h.call(.PUT, "/1.1/classes/Note/\(note)", body: ["n": ["__op": "Increment", "amount": 2]])
            XCTAssertEqual(a.status, 200, "\(db) \(a.text)")
            expectOne(seen, "Note", before: ["n": 1, "text": "a"], after: ["n": 3, "text": "a"], "\(db) update")
            a = try await h.call(.PUT, "/1.1/classes/Note/\(note)?fetchWhenSave=true", body: ["text": "b"])
            XCTAssertEqual(a.body["text"], "b", "\(db) \(a.text)")
            expectOne(seen, "Note", before: ["text": "a"], after: ["text": "b", "n": 3], "\(db) fetchWhenSave")
            // A conditional update that does not hold commits nothing.
            a = try await h.call(.PUT, "/1.1/classes/Note/\(note)", query: [("where", #"{"n":{"$gt":10}}"#)], body: ["text": "c"])
            XCTAssertEqual(a.body["code"], 305, "\(db) \(a.text)")
            XCTAssertEqual(seen.take().count, 0, "\(db) a write that did not apply")
            a = try await h.call(.DELETE, "/1.1/classes/Note/\(note)")
            XCTAssertEqual(a.status, 200, "\(db) \(a.text)")
            expectOne(seen, "Note", before: ["text": "b", "n": 3], after: nil, "\(db) delete")

            // A delete of several ids: one write each, in order.
            var ids: [String] = []
            for i in 0..<2 {
                ids.append(try await h.call(.POST, "/1.1/classes/Note", body: ["i": .int(Int64(i))]).body["objectId"]?.string ?? "")
            }
            _ = seen.take()
            a = try await h.call(.DELETE, "/1.1/classes/Note/\(ids.joined(separator: ","))")
            XCTAssertEqual(a.status, 200, "\(db) \(a.text)")
            var writes = seen.take()
            XCTAssertEqual(writes.map { $0.changes.map(\.objectId) }, ids.map { [$0] }, "\(db) several ids")
            XCTAssertEqual(writes.map { $0.changes.first?.before?["i"] }, [0, 1], "\(db) several ids")
            XCTAssertEqual(writes.map { $0.changes.first?.after == nil }, [true, true], "\(db) several ids")

            // A batch: each sub-request its own write.
            a = try await h.call(.POST, "/1.1/classes/Note", body: ["text": "x"])
            let x = a.body["objectId"]?.string ?? ""
            _ = seen.take()
            a = try await h.call(.POST, "/1.1/batch", body: ["requests": [
                ["method": "POST", "path": "/1.1/classes/Note", "body": ["text": "y"]],
                ["method": "PUT", "path": .string("/1.1/classes/Note/\(x)"), "body": ["text": "x2"]],
                ["method": "DELETE", "path": .string("/1.1/classes/Note/\(x)")],
            ]])
            XCTAssertEqual(a.body.array.count, 3, "\(db) \(a.text)")
            writes = seen.take()
            XCTAssertEqual(writes.count, 3, "\(db) batch: \(writes.map(\.changes))")
            if writes.count == 3 {
                XCTAssertNil(writes[0].changes.first?.before, "\(db) batch create")
                XCTAssertEqual(writes[0].changes.first?.after?["text"], "y", "\(db) batch create")
                XCTAssertEqual(writes[1].changes.first?.before?["text"], "x", "\(db) batch update")
                XCTAssertEqual(writes[1].changes.first?.after?["text"], "x2", "\(db) batch update")
                XCTAssertEqual(writes[2].changes.first?.before?["text"], "x2", "\(db) batch delete")
                XCTAssertNil(writes[2].changes.first?.after, "\(db) batch delete")
            }

            // CQL writes through cloudQuery.
            a = try await h.call(.GET, "/1.1/cloudQuery", query: [("cql", "insert into Note(text, n) values('q', 5)")])
            let q = a.body["results"]?.array.first?["objectId"]?.string ?? ""
            expectOne(seen, "Note", before: nil, after: ["text": "q", "n": 5], "\(db) cql insert")
            a = try await h.call(.GET, "/1.1/cloudQuery", query: [("cql", "update Note set n = op('Increment', {'amount': 1}) where objectId = '\(q)'")])
            XCTAssertEqual(a.status, 200, "\(db) \(a.text)")
            expectOne(seen, "Note", before: ["n": 5], after: ["n": 6], "\(db) cql update")
            a = try await h.call(.GET, "/1.1/cloudQuery", query: [("cql", "delete from Note where objectId = '\(q)'")])
            XCTAssertEqual(a.status, 200, "\(db) \(a.text)")
            expectOne(seen, "Note", before: ["n": 6], after: nil, "\(db) cql delete")

            // Sign-up, a user's update, a password change (the secrets are there: observers filter).
            let ann = try await UsersTests.signUp(h, ["username": "ann", "password": "pw-1"])
            let user = expectOne(seen, "_User", before: nil, after: ["username": "ann", "password": "*"], "\(db) sign-up")
            a = try await h.call(.PUT, "/1.1/users/\(ann.id)", body: ["nickname": "A"], headers: H.sessionHeaders(ann.token))
            XCTAssertEqual(a.status, 200, "\(db) \(a.text)")
            expectOne(seen, "_User", before: ["username": "ann"], after: ["nickname": "A"], "\(db) user update")
            a = try await h.call(.PUT, "/1.1/users/\(ann.id)/updatePassword", body: ["old_password": "pw-1", "new_password": "pw-2"],
                                 headers: H.sessionHeaders(ann.token))
            XCTAssertEqual(a.status, 200, "\(db) \(a.text)")
            let password = expectOne(seen, "_User", before: ["password": user?.after?["password"] ?? .null], after: ["nickname": "A"], "\(db) password")
            XCTAssertNotEqual(password?.after?["password"], password?.before?["password"], "\(db) the new hash")

            // Roles: a create and an update of its users relation.
            a = try await h.call(.POST, "/1.1/roles", body: ["name": "staff", "ACL": ["*": ["read": true]]], headers: H.masterHeaders)
            XCTAssertEqual(a.status, 201, "\(db) \(a.text)")
            let role = a.body["objectId"]?.string ?? ""
            expectOne(seen, "_Role", before: nil, after: ["name": "staff"], "\(db) role create")
            a = try await h.call(.PUT, "/1.1/roles/\(role)", body: ["users": ["__op": "AddRelation", "objects": [["__type": "Pointer", "className": "_User", "objectId": .string(ann.id)]]]],
                                 headers: H.masterHeaders)
            XCTAssertEqual(a.status, 200, "\(db) \(a.text)")
            expectOne(seen, "_Role", before: ["name": "staff"], after: ["name": "staff", "updatedAt": "*"], "\(db) role update")

            // Files: a token's file, its failed upload's callback, an external file and its delete.
            a = try await h.call(.POST, "/1.1/fileTokens", body: ["name": "a.txt"])
            let token = a.body["token"]?.string ?? ""
            expectOne(seen, "_File", before: nil, after: ["name": "a.txt", "key": "*"], "\(db) file token")
            a = try await h.call(.POST, "/1.1/fileCallback", body: ["token": .string(token), "result": false])
            XCTAssertEqual(a.status, 200, "\(db) \(a.text)")
            expectOne(seen, "_File", before: ["name": "a.txt"], after: nil, "\(db) file callback")
            a = try await h.call(.POST, "/1.1/files", body: ["name": "b.png", "url": "https://example.com/b.png"])
            let file = a.body["objectId"]?.string ?? ""
            expectOne(seen, "_File", before: nil, after: ["url": "https://example.com/b.png"], "\(db) external file")
            a = try await h.call(.DELETE, "/1.1/files/\(file)", headers: H.masterHeaders)
            XCTAssertEqual(a.status, 200, "\(db) \(a.text)")
            expectOne(seen, "_File", before: ["name": "b.png"], after: nil, "\(db) file delete")
        }
    }

    /// Concurrent increments of one object: the observer hears them in
    /// commit order, each before image the previous after image.
    func testConcurrentWritesAreObservedInCommitOrder() async throws {
        let seen = Recorder()
        try await onEachDatabase(observer: seen) { h, db in
            let id = try await h.call(.POST, "/1.1/classes/Counter", body: ["n": 0]).body["objectId"]?.string ?? ""
            _ = seen.take()
            try await withThrowingTaskGroup(of: Int.self) { group in
                for _ in 0..<20 {
                    group.addTask {
                        try await h.call(.PUT, "/1.1/classes/Counter/\(id)", body: ["n": ["__op": "Increment", "amount": 1]]).status
                    }
                }
                for try await status in group { XCTAssertEqual(status, 200, "\(db)") }
            }
            let changes = seen.take().flatMap(\.changes)
            XCTAssertEqual(changes.map { $0.before?["n"] }, (0..<20).map { .int(Int64($0)) }, "\(db)")
            XCTAssertEqual(changes.map { $0.after?["n"] }, (1...20).map { .int(Int64($0)) }, "\(db)")
        }
    }

    func testHooksRefuseChangeAndFollowWrites() async throws {
        let seen = Recorder(), hooks = TestHooks()
        try await onEachDatabase(observer: seen, hooks: hooks) { h, db in
            hooks.close()
            // A refusal: the hook's error is the answer, nothing is written or observed.
            var a = try await h.call(.POST, "/1.1/classes/Refused", body: ["text": "no"])
            XCTAssertEqual(a.status, 400, "\(db) \(a.text)")
            XCTAssertEqual(a.body["code"], 142, "\(db) \(a.text)")
            XCTAssertEqual(a.body["error"], "refused by the test's hook", "\(db) \(a.text)")
            XCTAssertEqual(seen.take().count, 0, "\(db) refused")
            a = try await h.call(.GET, "/1.1/classes/Refused", headers: H.masterHeaders)
            XCTAssertEqual(a.body["results"]?.array.count ?? 0, 0, "\(db) \(a.text)")
            a = try await h.call(.GET, "/1.1/cloudQuery", query: [("cql", "insert into Refused(text) values('no')")])
            XCTAssertEqual(a.body["code"], 142, "\(db) \(a.text)")

            // A change: the stored object has the hook's field (create, update, batch, CQL).
            a = try await h.call(.POST, "/1.1/classes/Stamped", body: ["text": "a"])
            XCTAssertEqual(a.status, 201, "\(db) \(a.text)")
            let id = a.body["objectId"]?.string ?? ""
            a = try await h.call(.GET, "/1.1/classes/Stamped/\(id)")
            XCTAssertEqual(a.body["stamp"], "create", "\(db) \(a.text)")
            a = try await h.call(.PUT, "/1.1/classes/Stamped/\(id)", body: ["text": "b"])
            XCTAssertEqual(a.status, 200, "\(db) \(a.text)")
            a = try await h.call(.GET, "/1.1/classes/Stamped/\(id)")
            XCTAssertEqual(a.body["stamp"], "update", "\(db) \(a.text)")
            XCTAssertEqual(a.body["text"], "b", "\(db) \(a.text)")
            a = try await h.call(.POST, "/1.1/batch", body: ["requests": [["method": "POST", "path": "/1.1/classes/Stamped", "body": ["text": "c"]]]])
            let batched = a.body.array.first?["success"]?["objectId"]?.string ?? ""
            a = try await h.call(.GET, "/1.1/cloudQuery", query: [("cql", "insert into Stamped(text) values('d')")])
            let cql = a.body["results"]?.array.first?["objectId"]?.string ?? ""
            for other in [batched, cql] {
                a = try await h.call(.GET, "/1.1/classes/Stamped/\(other)")
                XCTAssertEqual(a.body["stamp"], "create", "\(db) \(a.text)")
            }
            // What the hook saw: the fields as sent, the stored object for an update or delete, the caller.
            _ = hooks.takeSeen()
            let ann = try await UsersTests.signUp(h, ["username": "ann", "password": "pw"])
            a = try await h.call(.PUT, "/1.1/classes/Stamped/\(id)", body: ["n": ["__op": "Increment", "amount": 1]], headers: H.sessionHeaders(ann.token))
            XCTAssertEqual(a.status, 200, "\(db) \(a.text)")
            a = try await h.call(.DELETE, "/1.1/classes/Stamped/\(id)", body: ["__ignore_hooks": true], headers: H.masterHeaders)
            XCTAssertEqual(a.status, 200, "\(db) \(a.text)")
            let pending = hooks.takeSeen().filter { $0.className == "Stamped" }
            XCTAssertEqual(pending.map(\.kind), [.update, .delete], "\(db)")
            if pending.count == 2 {
                XCTAssertEqual(pending[0].fields["n"], ["__op": "Increment", "amount": 1], "\(db)")
                XCTAssertEqual(pending[0].current?["text"], "b", "\(db)")
                XCTAssertEqual(pending[0].caller.userId, ann.id, "\(db)")
                XCTAssertEqual(pending[0].skippedHooks, .none, "\(db)")
                XCTAssertEqual(pending[1].current?["n"], 1, "\(db)")
                XCTAssertTrue(pending[1].skippedHooks.all, "\(db) __ignore_hooks with the master key")
            }
            // A class the hooks do not handle: not called.
            a = try await h.call(.POST, "/1.1/classes/Unhooked", body: ["text": "u"])
            XCTAssertEqual(a.status, 201, "\(db) \(a.text)")
            XCTAssertEqual(hooks.takeSeen().count, 0, "\(db) unhooked")

            // The after-hook: the answer does not wait for it (it waits here until the gate opens).
            _ = seen.take()
            a = try await h.call(.POST, "/1.1/classes/Slow", body: ["text": "s"])
            XCTAssertEqual(a.status, 201, "\(db) \(a.text)")
            XCTAssertNotNil(a.body["objectId"]?.string, "\(db) \(a.text)")
            let before = try await hooks.afterWrites(count: 0).count
            hooks.open()
            let after = try await hooks.afterWrites(count: before + 1)
            XCTAssertEqual(after.last?.changes.first?.className, "Slow", "\(db)")
            XCTAssertEqual(after.last?.changes.first?.after?["text"], "s", "\(db)")
        }
    }
}
