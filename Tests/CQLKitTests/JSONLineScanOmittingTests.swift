import XCTest

@testable import CQLKit

/// ``JSONLineScan/writeSorted(to:omitting:)``: the writer's form of the
/// line without one top-level member (a server leaves `ACL` out), wherever
/// that member sorts, and only at the top level.
final class JSONLineScanOmittingTests: XCTestCase {
    func testTheOmittedMemberIsLeftOutWhereverItSorts() {
        let cases: [(String, String)] = [
            (#"{"b":1,"ACL":{"*":{"read":true}},"a":"x"}"#, #"{"a":"x","b":1}"#),
            (#"{"ACL":{"*":{"read":true}}}"#, #"{}"#),
            (#"{"zz":[1,{"ACL":2}],"ACL":null}"#, #"{"zz":[1,{"ACL":2}]}"#),
            (#"{"ACLs":1,"AC":2}"#, #"{"AC":2,"ACLs":1}"#),
            (#"{"a":1}"#, #"{"a":1}"#),
        ]
        let scan = JSONLineScan()
        for (line, want) in cases {
            var bytes = Array(line.utf8)
            var out: [UInt8] = Array("[".utf8)
            let ok = bytes.withUnsafeMutableBufferPointer { b in scan.scan(UnsafeBufferPointer(b)) && scan.writeSorted(to: &out, omitting: "ACL") }
            XCTAssertTrue(ok, line)
            // Appended after what `out` held; what JSONWriter writes of the object less ACL.
            XCTAssertEqual(String(decoding: out, as: UTF8.self), "[" + want, line)
            var object = (try? JSONReader.parse(line))?.objectMembers ?? [:]
            object["ACL"] = nil
            XCTAssertEqual(JSONWriter.string(.object(object)), want, line)
        }
    }
}

private extension Value {
    var objectMembers: [String: Value]? {
        if case .object(let o) = self { return o }
        return nil
    }
}
