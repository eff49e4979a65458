import CQLEval
import Foundation
import CQLKit
import CQLSQL

/// Objects written from the stored text's bytes (``JSONLineScan``), without
/// building them: what ``output(_:className:returnACL:grantees:)`` and ``JSONWriter``
/// would write, for the objects whose answer is their stored keys in the
/// writer's form less `ACL` (unless asked for).
///
/// Why: a Valine page is ten objects read and written again, which cost an
/// eighth of the server's CPU a page (perf, under wrk); `cql run` copies
/// stored rows the same way.
///
/// Any object that is not plainly that — a `_User` (its secrets come out),
/// a File (expanded with its `_File` object) or an included `Object`
/// anywhere in it, or a line the scan leaves to ``JSONReader`` — sends the
/// whole answer down the object path. Debug builds (the tests) also take
/// the object path every time and check that both wrote the same bytes.
extension API {
    /// The objects, comma-separated, appended to `out`; false (and `out`
    /// as it was) when one needs the object path.
    static func writtenFromStoredText(_ texts: [String], className: String, returnACL: Bool, into out: inout [UInt8]) -> Bool {
        // (`returnACL`: an object stored without an ACL shows the default, ``showACL(_:_:)``;
        // a `_File`'s url may be a path answered under the request's origin.)
        if className == "_User" || className == "_File" || returnACL { return false }
        let start = out.count
        // Room for them all at once (the written form is never longer).
        var room = texts.count
        for t in texts { room += t.utf8.count }
        out.reserveCapacity(start + room + 2)
        let scan = JSONLineScan()
        for var text in texts {
            let written = text.withUTF8 { bytes -> Bool in
                // In an accepted line every typed value is in the writer's
                // spelling, so a File or Object shows these bytes (inside a
                // string its quotes would be escaped).
                guard !bytes.holdsFileOrObject, scan.scan(bytes) else { return false }
                if out.count > start { out.append(UInt8(ascii: ",")) }
                return scan.writeSorted(to: &out, omitting: returnACL ? nil : "ACL")
            }
            if !written {
                out.removeSubrange(start...)
                return false
            }
        }
        return true
    }

    /// A find's or get's body from a result that holds stored text: written
    /// from its bytes when it can be, else through the object path.
    /// `single`: a get's body (the object, or `{}`), else a find's.
    func body(of result: SQLRunner.Result, className: String, returnACL: Bool, grantees: [String]?, single: Bool, countAsked: Bool)
        async throws -> APIResponse
    {
        guard let texts = result.storedText else {
            return try await objectBody(result.objects, result.count, className: className, returnACL: returnACL, grantees: grantees,
                                        single: single, countAsked: countAsked)
        }
        var objects: [[String: Value]] = []
        var bytes: [UInt8] = []
        if !single {
            // JSONWriter's key order: "count" before "results".
            bytes.append(contentsOf: "{".utf8)
            if countAsked { bytes.append(contentsOf: "\"count\":\(result.count ?? 0),".utf8) }
            bytes.append(contentsOf: "\"results\":[".utf8)
        }
        // (A class that hides keys from this caller takes the object path, which removes them.)
        let hides = try await hidesKeys(className, grantees: grantees)
        if !hides, Self.writtenFromStoredText(texts, className: className, returnACL: returnACL, into: &bytes) {
            if single {
                if bytes.isEmpty { bytes = Array("{}".utf8) }
            } else {
                bytes.append(contentsOf: "]}".utf8)
            }
            #if DEBUG
            for t in texts { objects.append(try DataFiles.object(json: t)) }
            let slow = try await objectBody(objects, result.count, className: className, returnACL: returnACL, grantees: grantees,
                                            single: single, countAsked: countAsked)
            var expected: [UInt8] = []
            JSONWriter.write(slow.body, to: &expected)
            precondition(expected == bytes, "written from stored text: \(String(decoding: bytes, as: UTF8.self))\nobject path: \(String(decoding: expected, as: UTF8.self))")
            #endif
            var answer = APIResponse(body: .null)
            answer.written = bytes
            return answer
        }
        for t in texts { objects.append(try DataFiles.object(json: t)) }
        return try await objectBody(objects, result.count, className: className, returnACL: returnACL, grantees: grantees,
                                    single: single, countAsked: countAsked)
    }

    /// The body through the object path: included objects the caller cannot
    /// read hidden, then ``output(_:className:returnACL:grantees:)``.
    func objectBody(_ found: [[String: Value]], _ count: Int?, className: String, returnACL: Bool, grantees: [String]?, single: Bool,
                    countAsked: Bool) async throws -> APIResponse
    {
        let objects = try await hidingUnreadable(try await permitted(found, className: className, grantees: grantees), grantees: grantees)
        let shown = try await output(objects, className: className, returnACL: returnACL, grantees: grantees)
        if single { return APIResponse(body: .object(shown.first?.objectValue ?? [:])) }
        var body: [String: Value] = ["results": .array(shown)]
        if countAsked { body["count"] = .int(Int64(count ?? 0)) }
        return APIResponse(body: .object(body))
    }
}

/// The bytes that start a typed value's type name (made once, not per object).
private let typeMarker = Array(#""__type":""#.utf8)

extension UnsafeBufferPointer<UInt8> {
    /// Whether `"__type":"File"` or `"__type":"Object"` occurs in these bytes.
    /// `memchr` jumps from one underscore to the next (rare in JSON).
    var holdsFileOrObject: Bool {
        guard let base = baseAddress, count >= typeMarker.count else { return false }
        return typeMarker.withUnsafeBufferPointer { marker in
            // The marker's first underscore is its second byte (after the quote).
            var i = 1
            let last = count - marker.count + 1
            while i <= last {
                guard let hit = memchr(base + i, Int32(UInt8(ascii: "_")), last - i + 1) else { return false }
                let at = UnsafePointer<UInt8>(hit.assumingMemoryBound(to: UInt8.self)) - base
                if memcmp(base + at - 1, marker.baseAddress!, marker.count) == 0 {
                    let rest = UnsafeBufferPointer(rebasing: self[(at - 1 + marker.count)...])
                    if rest.starts(with: #"File""#.utf8) || rest.starts(with: #"Object""#.utf8) { return true }
                }
                i = at + 1
            }
            return false
        }
    }
}
