import CQLEval
import CQLKit
@testable import CQLSQL
import Foundation
import PostgresNIO
import XCTest

final class CoalescingTestBox<T>: @unchecked Sendable { var value: T? }

/// Coalesced reads (``PostgreSQLReadConnection``, ``CoalescedStatement``):
/// runs of one statement that wait for a busy lane go to PostgreSQL as one
/// statement, and each caller still gets exactly its own rows, in order, or
/// its own error.
extension PostgreSQLTests {
    /// `body`'s answer, waited for from this (synchronous) test.
    private func waitFor<T: Sendable>(_ body: @escaping @Sendable () async -> T) -> T {
        let box = CoalescingTestBox<T>()
        let done = DispatchSemaphore(value: 0)
        Task {
            box.value = await body()
            done.signal()
        }
        done.wait()
        return box.value!
    }

    /// Runs `body` while the reader's only lane is held by a statement that
    /// waits for an advisory lock: everything `body` starts waits, then runs
    /// as one batch. Nothing here depends on timing: the lock is released
    /// only once the blocker holds the lane and `runs` runs wait behind it.
    private func whileTheLaneIsBusy<T: Sendable>(_ reader: PostgreSQLReadConnection, runs: Int,
                                                 _ body: @escaping @Sendable () async -> T) -> T {
        guard let url = Self.server?.url, let control = try? PostgreSQLReadConnection(url: url, lanes: 1, statementTimeoutMilliseconds: 0) else {
            XCTFail("no control connection")
            return waitFor(body)
        }
        defer { control.closeNow() }
        let key = Int64.random(in: 1...Int64(Int32.max))
        return waitFor {
            _ = try? await control.rows("SELECT pg_advisory_lock($1)::text", [.int(key)])
            async let blocker = try? reader.rows("SELECT 'held'::text FROM (SELECT pg_advisory_xact_lock_shared($1)) AS s", [.int(key)])
            let blocked = await Self.eventually {
                let waiting = try? await control.rows("SELECT count(*)::text FROM pg_locks WHERE locktype = 'advisory' AND NOT granted AND objid::bigint = $1",
                                                      [.int(key & 0xFFFF_FFFF)])
                return waiting?.first?.makeRandomAccess()[data: 0].string == "1"
            }
            async let value = body()
            let queued = await Self.eventually { reader.queue.waitingCount >= runs }
            _ = try? await control.rows("SELECT pg_advisory_unlock($1)::text", [.int(key)])
            let answer = await value
            _ = await blocker
            XCTAssertTrue(blocked, "the blocker never waited for the lock")
            XCTAssertTrue(queued, "\(runs) runs never waited behind the blocker")
            return answer
        }
    }

    /// Whether `condition` held within 30 seconds, checked every 5 ms.
    private static func eventually(_ condition: @Sendable () async -> Bool) async -> Bool {
        let deadline = ContinuousClock.now + .seconds(30)
        while ContinuousClock.now < deadline {
            if await condition() { return true }
            try? await Task.sleep(for: .milliseconds(5))
        }
        return false
    }

    /// `body(0)` … `body(count - 1)` run at once; their answers in that order.
    private static func allAtOnce<T: Sendable>(_ count: Int, _ body: @escaping @Sendable (Int) async -> T) async -> [T] {
        await withTaskGroup(of: (Int, T).self) { group in
            for i in 0..<count { group.addTask { (i, await body(i)) } }
            var all = [T?](repeating: nil, count: count)
            for await (i, a) in group { all[i] = a }
            return all.map { $0! }
        }
    }

    private func run(_ q: Query, on reader: PostgreSQLReadConnection) -> Result<SQLRunner.Result?, QueryError> {
        waitFor { await Self.answer(q, on: reader) }
    }

    private static func answer(_ q: Query, on reader: PostgreSQLReadConnection) async -> Result<SQLRunner.Result?, QueryError> {
        do throws(QueryError) { return .success(try await SQLRunner.run(q, on: reader)) } catch { return .failure(error) }
    }

    private func described(_ r: Result<SQLRunner.Result?, QueryError>) -> String {
        switch r {
        case .success(let r?): return r.objects.map { JSONWriter.string(.object($0)) }.joined(separator: "\n") + " count \(r.count.map(String.init) ?? "-")"
        case .success(nil): return "handed back"
        case .failure(let e): return "error \(e.message)"
        }
    }

    func testConcurrentGetsPagesAndCountsCoalesceAndEachCallerGetsItsOwnAnswer() throws {
        let db = try database()
        let objects: [[String: Value]] = (0..<60).map { i in
            ["objectId": .string(String(format: "c%03d", i)), "url": .string("/p/\(i % 4)/"), "n": .int(Int64(i)),
             "createdAt": .string(String(format: "2024-01-01T00:%02d:00.000Z", 59 - i)), "ACL": ["*": ["read": true]]]
        }
        let lines = NSTemporaryDirectory() + "coalesce-\(UUID().uuidString).ndjson"
        try objects.map { JSONWriter.string(.object($0)) }.joined(separator: "\n").write(toFile: lines, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(atPath: lines) }
        try db.load(path: lines, className: "Comment", indexes: ["url"])
        let url = try XCTUnwrap(Self.server).url
        let reader = try PostgreSQLReadConnection(url: url, lanes: 1, statementTimeoutMilliseconds: 0)
        defer { reader.closeNow() }

        var queries: [Query] = []
        for id in ["c000", "c007", "c031", "c059", "missing", "c012"] {
            queries.append(Query(className: "Comment", condition: Condition(.compare("objectId", .equal, .value(.string(id))))))
        }
        for page in ["/p/0/", "/p/1/", "/p/3/", "/p/none/"] {
            queries.append(Query(className: "Comment", condition: Condition(.compare("url", .equal, .value(.string(page)))),
                                 order: [OrderKey("createdAt", descending: true)], limit: .value(5)))
            queries.append(Query(className: "Comment", count: .only, condition: Condition(.compare("url", .equal, .value(.string(page))))))
        }
        // Limits and skips as arguments of one statement.
        for (limit, skip) in [(3, 0), (2, 5), (7, 1)] {
            queries.append(Query(className: "Comment", condition: Condition(.compare("n", .greaterThan, .value(.int(10)))),
                                 order: [OrderKey("n")], skip: .value(.int(Int64(skip))), limit: .value(.int(Int64(limit)))))
        }
        // Alone first (one at a time: nothing coalesces), then all at once.
        let alone = queries.map { described(run($0, on: reader)) }
        XCTAssertEqual(reader.coalescing.statements, 0)
        let together = whileTheLaneIsBusy(reader, runs: queries.count) { [queries] in
            await Self.allAtOnce(queries.count) { i in await Self.answer(queries[i], on: reader) }
        }
        for (i, q) in queries.enumerated() {
            XCTAssertEqual(described(together[i]), alone[i], (try? CQLFormatter.format(q)) ?? "?")
        }
        XCTAssertTrue(alone[4].hasPrefix(" count"), "the missing id: no object (\(alone[4]))")
        XCTAssertTrue(alone[2].contains("\"c031\""))
        // The gets were one statement, the pages another, and so on.
        let c = reader.coalescing
        XCTAssertGreaterThanOrEqual(c.runs, queries.count - 1)
        XCTAssertLessThanOrEqual(c.statements, 5)
        XCTAssertEqual(c.failed, 0)
    }

    /// Two users' reads coalesce (their statements differ only in the
    /// grantees bound), and each still sees only what its ACL lets it: the
    /// grantees are each run's own arguments inside the one statement.
    /// A query run again with its memo (``SQLRunner/ReadMemo``) answers as
    /// it does without, and follows the preflight: once the class gets its
    /// document index, the memo's SQL is generated again (with the public's
    /// grant tested by containment).
    func testAMemoAnswersAsWithoutAndFollowsThePreflight() throws {
        let db = try database()
        let objects: [[String: Value]] = (0..<40).map { i in
            ["objectId": .string(String(format: "m%03d", i)), "url": .string("/p/\(i % 2)/"), "n": .int(Int64(i)),
             "ACL": i % 5 == 0 ? ["u1": ["read": true]] : ["*": ["read": true]]]
        }
        try db.insert(objects, into: "Comment")
        let url = try XCTUnwrap(Self.server).url
        let reader = try PostgreSQLReadConnection(url: url, lanes: 1, statementTimeoutMilliseconds: 0)
        defer { reader.closeNow() }
        let page = ACLRule.restricting(Query(className: "Comment", condition: Condition(.compare("url", .equal, .value(.string("/p/1/")))),
                                             order: [OrderKey("n", descending: true)], limit: .value(.int(6))), to: [])
        let memo = SQLRunner.ReadMemo()
        let expected = described(run(page, on: reader))
        XCTAssertTrue(expected.contains("m039"), expected)
        XCTAssertFalse(expected.contains("m035"), "a private comment: \(expected)")
        let withMemo: @Sendable () async -> Result<SQLRunner.Result?, QueryError> = {
            do throws(QueryError) { return .success(try await SQLRunner.run(page, on: reader, memo: memo)) } catch { return .failure(error) }
        }
        for _ in 0..<3 { XCTAssertEqual(described(waitFor(withMemo)), expected) }
        let before = try XCTUnwrap(memo.generatedSQL)
        XCTAssertFalse(before.contains(#"@> '{"ACL""#), before)
        try db.createIndexes("Comment", keys: ["url"])
        for _ in 0..<3 { XCTAssertEqual(described(waitFor(withMemo)), expected) }
        let after = try XCTUnwrap(memo.generatedSQL)
        XCTAssertTrue(after.contains(#"@> '{"ACL": {"*": {"read": true}}}'::jsonb"#), after)
    }

    func testCoalescedReadsOfDifferentUsersEachSeeOnlyTheirOwnObjects() throws {
        let db = try database()
        let objects: [[String: Value]] = (0..<12).map { i in
            let owner = "u\(i % 3)"
            return ["objectId": .string("n\(i)"), "owner": .string(owner), "ACL": .object([owner: ["read": true, "write": true]])]
        }
        let lines = NSTemporaryDirectory() + "coalesce-acl-\(UUID().uuidString).ndjson"
        try objects.map { JSONWriter.string(.object($0)) }.joined(separator: "\n").write(toFile: lines, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(atPath: lines) }
        try db.load(path: lines, className: "Note")
        let url = try XCTUnwrap(Self.server).url
        let reader = try PostgreSQLReadConnection(url: url, lanes: 1, statementTimeoutMilliseconds: 0)
        defer { reader.closeNow() }
        // Every user asks for every object, and for the whole class.
        var asks: [(user: String, query: Query)] = []
        for user in ["u0", "u1", "u2", "u9"] {
            for i in [0, 1, 2, 5] {
                asks.append((user, ACLRule.restricting(Query(className: "Note", condition: Condition(.compare("objectId", .equal, .value(.string("n\(i)"))))),
                                                      to: ACLRule.normalized([user]))))
            }
            asks.append((user, ACLRule.restricting(Query(className: "Note", order: [OrderKey("objectId")]), to: ACLRule.normalized([user]))))
        }
        let answers = whileTheLaneIsBusy(reader, runs: asks.count) { [asks] in
            await Self.allAtOnce(asks.count) { i in
                let r = try? await SQLRunner.run(asks[i].query, on: reader)
                return (r?.objects ?? [["failed": true]]).map { o in "\(o["objectId"]?.stringValue ?? "-")/\(o["owner"]?.stringValue ?? "-")" }
            }
        }
        for (i, ask) in asks.enumerated() {
            XCTAssertTrue(answers[i].allSatisfy { $0.hasSuffix("/" + ask.user) }, "\(ask.user) saw \(answers[i])")
        }
        XCTAssertEqual(answers[0], ["n0/u0"])
        XCTAssertEqual(answers[5 + 1], ["n1/u1"])
        XCTAssertEqual(answers[4], ["n0/u0", "n3/u0", "n6/u0", "n9/u0"])
        XCTAssertEqual(answers[15 + 4], [], "u9 owns nothing")
        XCTAssertGreaterThan(reader.coalescing.statements, 0)
        XCTAssertEqual(reader.coalescing.failed, 0)
    }

    /// `10 / d` as PostgreSQL answers it, or its error (division by zero).
    private static func quotient(_ d: Int64, on reader: PostgreSQLReadConnection) async -> String {
        do throws(QueryError) {
            let rows = try await reader.rows("SELECT (10 / $1)::text AS q", [.int(d)])
            return rows.map { $0.makeRandomAccess()[data: 0].string ?? "?" }.joined(separator: ",")
        } catch {
            return error.message.contains("division by zero") ? "division by zero" : error.message
        }
    }

    func testACoalescedStatementThatFailsRunsEachRunAloneSoEachCallerGetsItsOwnError() throws {
        _ = try database()
        let url = try XCTUnwrap(Self.server).url
        let reader = try PostgreSQLReadConnection(url: url, lanes: 1, statementTimeoutMilliseconds: 0)
        defer { reader.closeNow() }
        let divisors: [Int64] = [1, 0, 5, 2]
        let answers = whileTheLaneIsBusy(reader, runs: divisors.count) {
            await Self.allAtOnce(divisors.count) { i in await Self.quotient(divisors[i], on: reader) }
        }
        XCTAssertEqual(answers, ["10", "division by zero", "2", "5"])
        XCTAssertEqual(reader.coalescing.failed, 1)
        XCTAssertEqual(reader.coalescing.failedWhereAloneAnswered, 0)
        // The lane goes on: the same statement coalesces again when it can.
        let again = whileTheLaneIsBusy(reader, runs: 2) {
            await Self.allAtOnce(2) { i in await Self.quotient([2, 10][i], on: reader) }.sorted()
        }
        XCTAssertEqual(again, ["1", "5"])
        XCTAssertEqual(reader.coalescing.statements, 1)
    }

    func testASlowStatementHoldsOneLaneAndTheRunsWaitingBehindItTakeAnother() throws {
        _ = try database()
        let url = try XCTUnwrap(Self.server).url
        let reader = try PostgreSQLReadConnection(url: url, lanes: 2, statementTimeoutMilliseconds: 0)
        defer { reader.closeNow() }
        let seconds = waitFor { () async -> [Double] in
            let start = ContinuousClock.now
            var seconds: [Double] = []
            async let slow = try? reader.rows("SELECT pg_sleep(1.5)::text", [])
            // At once: the slow statement's lane is busy but not stuck yet, so
            // this waits, until the timer finds the lane stuck and spills it.
            async let early = try? reader.rows("SELECT $1::text", [.string("early")])
            try? await Task.sleep(for: .milliseconds(200))
            // Later: every busy lane is stuck, so it takes the idle one at once.
            _ = try? await reader.rows("SELECT $1::text", [.string("late")])
            seconds.append((ContinuousClock.now - start) / .seconds(1))
            _ = await early
            seconds.append((ContinuousClock.now - start) / .seconds(1))
            _ = await slow
            seconds.append((ContinuousClock.now - start) / .seconds(1))
            return seconds
        }
        XCTAssertLessThan(seconds[0], 0.8, "the late statement did not wait for the slow one")
        XCTAssertLessThan(seconds[1], 0.8, "the early statement did not wait for the slow one")
        XCTAssertGreaterThanOrEqual(seconds[2], 1.5)
    }

    func testOnlyParametersOutsideQuotesAreRebound() {
        XCTAssertEqual(CoalescedStatement.laterallyBound("SELECT t0.\"$1\", 'it''s $2' FROM t AS t0 WHERE a = $1 AND b = $10 AND c = $2", parameterCount: 10),
                       "SELECT t0.\"$1\", 'it''s $2' FROM t AS t0 WHERE a = \"cql_batch\".\"cql_a1\" AND b = \"cql_batch\".\"cql_a10\" AND c = \"cql_batch\".\"cql_a2\"")
        // Past the arguments, dollar quotes, comments, backslash strings, an open quote: not coalesced.
        XCTAssertNil(CoalescedStatement.laterallyBound("SELECT $3", parameterCount: 2))
        XCTAssertNil(CoalescedStatement.laterallyBound("SELECT $$a$$", parameterCount: 1))
        XCTAssertNil(CoalescedStatement.laterallyBound("SELECT $1 -- x", parameterCount: 1))
        XCTAssertNil(CoalescedStatement.laterallyBound("SELECT $1 /* x */", parameterCount: 1))
        XCTAssertNil(CoalescedStatement.laterallyBound("SELECT E'\\'$1'", parameterCount: 1))
        XCTAssertNil(CoalescedStatement.laterallyBound("SELECT 'open", parameterCount: 1))
        XCTAssertNotNil(CoalescedStatement.laterallyBound("SELECT TYPE'x', $1", parameterCount: 1))
        // A NULL argument (its type left to PostgreSQL), no arguments, not a SELECT.
        XCTAssertNil(CoalescedStatement.coalesced("SELECT $1", types: [.null]))
        XCTAssertNil(CoalescedStatement.coalesced("SELECT 1", types: []))
        XCTAssertNil(CoalescedStatement.coalesced("UPDATE t SET a = $1", types: [.text]))
        XCTAssertEqual(CoalescedStatement.coalesced("SELECT $1 + $2", types: [.int8, .text])?.sql,
                       "SELECT \"cql_q\".*, \"cql_batch\".\"cql_run\" FROM unnest($1::int8[], $2::text[]) WITH ORDINALITY AS \"cql_batch\"(\"cql_a1\", \"cql_a2\", \"cql_run\") CROSS JOIN LATERAL (SELECT \"cql_batch\".\"cql_a1\" + \"cql_batch\".\"cql_a2\") AS \"cql_q\"")
    }

    /// Arguments every run shares stay scalar parameters after the arrays.
    func testSharedArgumentsStayScalar() {
        let runs: [[Value]] = [[.string("/p/1/"), .int(10), .string("ix")], [.string("/p/2/"), .int(10), .string("ix")]]
        let shared = CoalescedStatement.shared(runs)
        XCTAssertEqual(shared, [false, true, true])
        let c = CoalescedStatement.coalesced("SELECT a FROM t WHERE u = $1 AND to_regclass($3) IS NOT NULL LIMIT $2", types: [.text, .int8, .text], shared: shared)
        XCTAssertEqual(c?.sql, "SELECT \"cql_q\".*, \"cql_batch\".\"cql_run\" FROM unnest($1::text[]) WITH ORDINALITY AS \"cql_batch\"(\"cql_a1\", \"cql_run\") "
                       + "CROSS JOIN LATERAL (SELECT a FROM t WHERE u = \"cql_batch\".\"cql_a1\" AND to_regclass($3) IS NOT NULL LIMIT $2) AS \"cql_q\"")
        XCTAssertEqual(c?.types, [.textArray, .int8, .text])
        XCTAssertEqual(CoalescedStatement.bindings(runs, types: [.text, .int8, .text], shared: shared).count, 3)
        // Nothing varies: not coalesced (the lane runs such runs once).
        XCTAssertNil(CoalescedStatement.coalesced("SELECT $1", types: [.text], shared: [true]))
    }

    /// Runs of one statement with the same arguments that wait together run
    /// once, and each caller gets the rows.
    func testIdenticalRunsWaitingTogetherRunOnce() throws {
        let db = try database()
        try db.insert((0..<20).map { i in
            ["objectId": .string(String(format: "s%03d", i)), "url": .string("/p/\(i % 2)/"), "n": .int(Int64(i)), "ACL": ["*": ["read": true]]]
        }, into: "Comment")
        let url = try XCTUnwrap(Self.server).url
        let reader = try PostgreSQLReadConnection(url: url, lanes: 1, statementTimeoutMilliseconds: 0)
        defer { reader.closeNow() }
        let page = ACLRule.restricting(Query(className: "Comment", condition: Condition(.compare("url", .equal, .value(.string("/p/1/")))),
                                             order: [OrderKey("n", descending: true)], limit: .value(.int(4))), to: [])
        let alone = described(run(page, on: reader))
        XCTAssertTrue(alone.contains("s019"), alone)
        let before = reader.coalescing
        let together = whileTheLaneIsBusy(reader, runs: 6) {
            await Self.allAtOnce(6) { _ in await Self.answer(page, on: reader) }
        }
        for answer in together { XCTAssertEqual(described(answer), alone) }
        XCTAssertEqual(reader.coalescing.runs - before.runs, 6)
        XCTAssertEqual(reader.coalescing.statements - before.statements, 1)
    }
}
