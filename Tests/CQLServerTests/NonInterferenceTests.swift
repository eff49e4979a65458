import CQLKit
import CQLSQL
@testable import CQLServer
import Foundation
import XCTest

/// The non-interference suite (issue 45, "What to build" 6): an object the
/// attacker may not read leaves no trace in anything the attacker sees.
///
/// For each of three attackers — the anonymous caller (app key), an
/// unrelated user, a user of an unrelated role — a generated run of 600
/// requests (``NIRequestGenerator``: find, count, get, `keys`,
/// `order`, `include`, sub-queries at depth 1–3, `$relatedTo`, expensive
/// `$regex`, conditional and empty-body PUTs and DELETEs with `?where=`,
/// batches with `params.where`, cloudQuery selects and updates/deletes with
/// `in (select ...)`, File values with `fetchWhenSave`, class names in
/// every letter case) runs against two worlds (``NIWorld``) that differ only
/// in what the attacker may not read. Every answer must be the same in
/// both — status, code and body once the objectIds the attacker's own
/// creates got and session tokens are placeholders (timestamps are one
/// fixed instant: ``API/clock``) — and so must, at the end, everything the
/// attacker may read (each readable object and the readable members of each
/// readable relation). Also, in each world, no object the attacker may not
/// write changed. Through ``API/handle(_:)``, on SQLite and PostgreSQL.
final class NonInterferenceTests: XCTestCase {
    struct Answer {
        var status: Int
        var body: Value
    }

    static func call(_ api: API, _ identity: Identity, _ method: String, _ path: String, _ parameters: [String: Value] = [:],
                     body: Value? = nil) async -> Answer {
        do {
            let r = try await api.handle(APIRequest(method: method, segments: path.split(separator: "/").map(String.init),
                                                    parameters: parameters, body: body, identity: identity))
            return Answer(status: r.status, body: r.body)
        } catch {
            return Answer(status: error.status, body: error.body)
        }
    }

    /// What differs between the worlds by construction, as placeholders:
    /// each objectId a create made (24 hex digits: the seeded ids have none)
    /// as `<id N>` in order of first appearance, and session tokens.
    final class Placeholders {
        var ids: [String: String] = [:]

        func canonical(_ v: Value) -> String {
            let text = Array(JSONWriter.string(Self.maskingTokens(v)).utf8)
            var out: [UInt8] = []
            out.reserveCapacity(text.count)
            func isHex(_ c: UInt8) -> Bool { (c >= 48 && c <= 57) || (c >= 97 && c <= 102) }
            func isWord(_ c: UInt8) -> Bool { isHex(c) || (c >= 65 && c <= 90) || (c >= 103 && c <= 122) }
            var i = 0
            while i < text.count {
                guard isHex(text[i]), i == 0 || !isWord(text[i - 1]) else { out.append(text[i]); i += 1; continue }
                var j = i
                while j < text.count, isHex(text[j]) { j += 1 }
                if j - i == 24, j == text.count || !isWord(text[j]) {
                    let id = String(decoding: text[i..<j], as: UTF8.self)
                    let label = ids[id] ?? "<id \(ids.count + 1)>"
                    ids[id] = label
                    out += Array(label.utf8)
                } else {
                    out += text[i..<j]
                }
                i = j
            }
            return String(decoding: out, as: UTF8.self)
        }

        static func maskingTokens(_ v: Value) -> Value {
            switch v {
            case .object(let o):
                return .object(Dictionary(uniqueKeysWithValues: o.map { k, v in (k, k == "sessionToken" || k == "token" ? .string("<token>") : maskingTokens(v)) }))
            case .array(let items): return .array(items.map(maskingTokens))
            default: return v
            }
        }
    }

    struct Difference: Sendable {
        var database: ServerHarness.Database
        var attacker: String
        var request: NIRequest
        var answers: [String]
    }

    /// What one database's runs found.
    struct Outcome: Sendable {
        var requests = 0
        var perFamily: [String: Int] = [:]
        var differences: [Difference] = []
        var stateDifferences: [String] = []
    }

    static func shortened(_ s: String, _ n: Int = 360) -> String { s.count <= n ? s : s.prefix(n) + "…" }

    /// Two long texts shortened to where they first differ (with some
    /// context before it), so that a message shows the difference.
    static func excerpts(_ a: String, _ b: String, _ n: Int = 360) -> (String, String) {
        let x = Array(a), y = Array(b)
        var i = 0
        while i < min(x.count, y.count), x[i] == y[i] { i += 1 }
        let start = max(0, i - 120)
        func cut(_ c: [Character]) -> String {
            let end = min(c.count, start + n)
            return (start > 0 ? "…" : "") + String(c[start..<end]) + (end < c.count ? "…" : "")
        }
        return (cut(x), cut(y))
    }

    func testAnUnreadableObjectLeavesNoTrace() async throws {
        let started = Date()
        // Every (database, attacker) run at once; each run's two worlds answer each request at once too.
        _ = try NIWorld.postgresURLs()
        let outcomes = try await withThrowingTaskGroup(of: Outcome.self) { group in
            for database in ServerHarness.Database.allCases {
                for n in NIWorld.attackers.indices { group.addTask { try await Self.run(database, attacker: n) } }
            }
            var all: [Outcome] = []
            for try await o in group { all.append(o) }
            return all
        }
        let seconds = Date().timeIntervalSince(started)
        let requests = outcomes.map(\.requests).reduce(0, +)
        report(outcomes.flatMap(\.differences), outcomes.flatMap(\.stateDifferences), requests: requests,
               perFamily: outcomes.reduce(into: [:]) { all, o in all.merge(o.perFamily) { $0 + $1 } }, seconds: seconds)
        XCTAssertGreaterThan(requests, 3000)
    }

    /// Attacker number `n`'s run on `database`, on two fresh worlds.
    static func run(_ database: ServerHarness.Database, attacker n: Int) async throws -> Outcome {
        var outcome = Outcome()
        let attacker = NIWorld.attackers[n]
        do {
            let storages = try NIWorld.storages(database, run: n)
            var apis: [API] = []
            for (side, storage) in zip(NIWorld.Side.allCases, storages) { apis.append(try await NIWorld.api(storage, side, for: attacker)) }
            let maps = apis.map { _ in Placeholders() }
            var grantees: [[String]] = []
            for api in apis { grantees.append(try await api.grantees(for: attacker.identity) ?? []) }
            if grantees[0] != grantees[1] {
                outcome.stateDifferences.append("\(database) \(attacker.name): grantees before the run: A \(grantees[0]) | B \(grantees[1])")
            }
            var unwritable: [[String: Value]] = []
            for (api, g) in zip(apis, grantees) { unwritable.append(await NIWorld.unwritable(api, grantees: g)) }

            var generator = NIRequestGenerator(seed: 0x4E49_4E54_0000 + UInt64(n), attacker: attacker)
            let worldA = apis[0], worldB = apis[1]
            for r in generator.requests() {
                async let a = call(worldA, attacker.identity, r.method, r.path, r.parameters, body: r.body)
                async let b = call(worldB, attacker.identity, r.method, r.path, r.parameters, body: r.body)
                let (x, y) = await (a, b)
                let answers = ["\(x.status) \(maps[0].canonical(x.body))", "\(y.status) \(maps[1].canonical(y.body))"]
                outcome.requests += 1
                outcome.perFamily["\(database) \(r.family)", default: 0] += 1
                if answers[0] != answers[1] {
                    outcome.differences.append(Difference(database: database, attacker: attacker.name, request: r, answers: answers))
                }
            }

            // Effects: everything the attacker may read, in both worlds.
            var after: [[String]] = []
            for api in apis { after.append(try await api.grantees(for: attacker.identity) ?? []) }
            if after[0] != after[1] {
                outcome.stateDifferences.append("\(database) \(attacker.name): grantees after the run: A \(after[0]) | B \(after[1])")
            }
            var seen: [[String: Value]] = []
            for (api, g) in zip(apis, after) { seen.append(await NIWorld.visible(api, grantees: g)) }
            for key in Set(seen[0].keys).union(seen[1].keys).sorted() {
                let a = seen[0][key].map { maps[0].canonical($0) } ?? "-", b = seen[1][key].map { maps[1].canonical($0) } ?? "-"
                if a != b {
                    let (x, y) = excerpts(a, b)
                    outcome.stateDifferences.append("\(database) \(attacker.name): what it reads of \(key) after the run:\n  A: \(x)\n  B: \(y)")
                }
            }
            // Integrity, in each world: nothing it may not write changed.
            for (k, api) in apis.enumerated() {
                let now = await NIWorld.unwritable(api, grantees: grantees[k])
                for (id, before) in unwritable[k].sorted(by: { $0.key < $1.key }) where now[id] != before {
                    outcome.stateDifferences.append("\(database) \(attacker.name): world \(NIWorld.Side.allCases[k].rawValue): \(id), which it may not "
                        + "write, changed: \(shortened(JSONWriter.string(before), 300)) → \(now[id].map { shortened(JSONWriter.string($0), 300) } ?? "deleted")")
                }
            }
            for s in storages { await s.shutdown() }
        }
        return outcome
    }

    /// One failure per database and route family, with how many requests
    /// of it answered differently, the features every one of them has, and
    /// the shortest of them with both answers.
    func report(_ differences: [Difference], _ stateDifferences: [String], requests: Int, perFamily: [String: Int], seconds: Double) {
        var lines = ["Non-interference suite: \(requests) attacker requests, each run as a pair (world A, world B) on its database: "
                     + "\(requests) pairs, \(requests * 2) answers, \(differences.count) pairs differing; \(String(format: "%.1f", seconds)) s"]
        let groups = Dictionary(grouping: differences) { "\($0.database) \($0.request.family)" }
        for key in groups.keys.sorted() {
            let group = groups[key]!
            let common = group.dropFirst().reduce(group[0].request.features) { $0.intersection($1.request.features) }
            let shortest = group.min { ($0.request.text.count, $0.attacker) < ($1.request.text.count, $1.attacker) }!
            let attackers = Set(group.map(\.attacker)).sorted().joined(separator: ", ")
            let answers = Self.excerpts(shortest.answers[0], shortest.answers[1])
            let message = "[\(key)] \(group.count) of \(perFamily[key] ?? 0) requests answered differently (attackers: \(attackers); "
                + "every one has: \(common.isEmpty ? "-" : common.sorted().joined(separator: ", "))). Shortest, as \(shortest.attacker): "
                + "\(Self.shortened(shortest.request.text, 500))\n  A: \(answers.0)\n  B: \(answers.1)"
            lines.append(message)
            XCTFail(message)
        }
        for s in stateDifferences.prefix(60) {
            lines.append(s)
            XCTFail(s)
        }
        if stateDifferences.count > 60 { XCTFail("... and \(stateDifferences.count - 60) more differences of state") }
        print(lines.joined(separator: "\n"))
        // Every differing pair, for a closer look: NI_REPORT=<file>.
        if let path = ProcessInfo.processInfo.environment["NI_REPORT"] {
            let all = differences.map { d in
                "\(d.database)\t\(d.attacker)\t\(d.request.family)\t\(d.request.features.sorted().joined(separator: ","))\t\(d.request.text)\n\tA: \(d.answers[0])\n\tB: \(d.answers[1])"
            }
            try? (lines + stateDifferences.dropFirst(60) + all).joined(separator: "\n").write(toFile: path, atomically: true, encoding: .utf8)
        }
    }
}
