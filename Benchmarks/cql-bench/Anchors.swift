// The evaluator's pieces beside what a Swift programmer would reach for:
// PCRE2 (JIT) behind a plan vs NSRegularExpression in a closure, and a
// top-10 `near` vs computing every distance and sorting them all.
import CQLEval
import CQLKit
import Foundation

/// One regex predicate over `n` strings: the plan (PCRE2 JIT, plus a key
/// lookup per object) vs NSRegularExpression over the same strings.
func benchRegexEngines(strings n: Int) throws -> [String: Double] {
    let words = ["alpha", "bravo", "charlie", "delta", "echo", "foxtrot", "golf", "hotel"]
    var rng = SplitMix(seed: 11)
    let subjects: [String] = (0..<n).map { i in
        "\(words[Int(rng.next() % 8)])-\(i % 997)-\(words[Int(rng.next() % 8)])"
    }
    let objects: [[String: Value]] = subjects.map { ["s": .string($0)] }
    let pattern = "^(al|ch)[a-z]+-[0-9]{2,3}-(echo|golf)$"
    let plan = try QueryPlan(CQLParser.parse("select * from T where s regexp '\(pattern)'"))
    let ns = try NSRegularExpression(pattern: pattern)
    var viaPlan = 0, viaNS = 0
    let tPlan = try median { viaPlan = try plan.run(over: objects).objects.count }
    let tNS = median {
        viaNS = subjects.reduce(0) { acc, s in
            acc + (ns.firstMatch(in: s, range: NSRange(s.startIndex..., in: s)) == nil ? 0 : 1)
        }
    }
    precondition(viaPlan == viaNS, "PCRE2 and NSRegularExpression disagree: \(viaPlan) vs \(viaNS)")
    print("regex over \(n) strings (\(viaPlan) match), median of \(runs):")
    print("  QueryPlan, PCRE2 JIT     \(fmt(Double(n) / tPlan)) strings/s")
    print("  NSRegularExpression      \(fmt(Double(n) / tNS)) strings/s")
    return ["regex_strings": Double(n), "regex_matches": Double(viaPlan), "regex_pcre2_s": tPlan, "regex_nsregex_s": tNS]
}

/// The 10 nearest of `n` points: `near ... limit 10` vs every distance
/// computed and the whole array sorted.
func benchNear(points n: Int) throws -> [String: Double] {
    var rng = SplitMix(seed: 5)
    let objects: [[String: Value]] = (0..<n).map { i in
        let lat = Double(rng.next() % 1_800_000) / 10_000 - 90
        let lng = Double(rng.next() % 3_600_000) / 10_000 - 180
        return ["objectId": .string("p\(i)"), "loc": .geoPoint(GeoPoint(latitude: lat, longitude: lng))]
    }
    let center = GeoPoint(latitude: 39.9, longitude: 116.4)
    let plan = try QueryPlan(CQLParser.parse("select * from T where loc near geopoint(116.4, 39.9) limit 10"))
    var nearest: [String] = [], sorted: [String] = []
    let tPlan = try median {
        nearest = try plan.run(over: objects).objects.compactMap { $0["objectId"]?.stringValue }
    }
    let tSort = median {
        var all: [(Double, String)] = []
        all.reserveCapacity(objects.count)
        for o in objects {
            guard case .geoPoint(let p)? = o["loc"], case .string(let id)? = o["objectId"] else { continue }
            all.append((angle(center, p), id))
        }
        all.sort { $0.0 < $1.0 }
        sorted = all.prefix(10).map(\.1)
    }
    precondition(nearest == sorted, "near and the full sort disagree: \(nearest) vs \(sorted)")
    print("top-10 near over \(n) points, median of \(runs):")
    print("  QueryPlan near limit 10  \(fmt(tPlan * 1000)) ms")
    print("  distances + full sort    \(fmt(tSort * 1000)) ms")
    return ["near_points": Double(n), "near_plan_s": tPlan, "near_sort_s": tSort]
}

/// The haversine central angle (what `near` orders by).
private func angle(_ p: GeoPoint, _ q: GeoPoint) -> Double {
    let r = Double.pi / 180
    let s1 = sin((q.latitude - p.latitude) * r / 2), s2 = sin((q.longitude - p.longitude) * r / 2)
    let a = s1 * s1 + cos(p.latitude * r) * cos(q.latitude * r) * s2 * s2
    return 2 * asin(min(1, a).squareRoot())
}

/// A small deterministic generator, so every run measures the same inputs.
struct SplitMix {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
