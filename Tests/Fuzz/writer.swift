// The direct where-JSON writer (`WhereJSONEmitter.write`, what
// `translate --lines` runs for every line) against the general path
// (`WhereJSONEmitter.emit`, then `JSONWriter.write`): the same bytes, or the
// same error (kind, message, range), in every dialect and `objectIdAsMongoId`
// setting, for the query as written and as the optimizer rewrites it (the
// command optimizes by default). The seeded tests
// (WhereJSONWriteDifferentialTests) reach the shapes their generators make;
// this reaches the ones coverage finds.
import CQLKit

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzWriter(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let text = fuzzText(data, size)
    let language = QueryLanguage.detect(text)
    do {
        let query = try language.parse(text, className: "T")
        let bound = try Binder.bind(query, parameters: [], now: DateValue(millisecondsSince1970: 1_700_000_000_000))
        compareWriters(bound, text)
        if let optimized = try? Optimizer().optimize(bound).query { compareWriters(optimized, text) }
    } catch { render(error, text) }
    return 0
}

/// Both paths over `query`; any difference is a finding.
private func compareWriters(_ query: Query, _ text: String) {
    let prefix = Array("prefix ".utf8)
    for dialect in WhereJSONDialect.allCases {
        for mongoId in [false, true] {
            let expected: Result<[UInt8], QueryError>
            do {
                var bytes = prefix
                JSONWriter.write(try WhereJSONEmitter.emit(query, dialect: dialect, objectIdAsMongoId: mongoId), to: &bytes)
                expected = .success(bytes)
            } catch {
                expected = .failure(error)
            }
            var out = prefix
            let what = "[\(dialect.rawValue)\(mongoId ? ", _id" : "")] \(ASTPrinter.describe(query))"
            do {
                try WhereJSONEmitter.write(query, dialect: dialect, objectIdAsMongoId: mongoId, to: &out)
                switch expected {
                case .success(let bytes) where bytes == out: break
                case .success(let bytes):
                    fuzzFinding("\(what): the direct writer wrote\n\(String(decoding: out, as: UTF8.self))\nthe emitter\n\(String(decoding: bytes, as: UTF8.self))", text)
                case .failure(let e):
                    fuzzFinding("\(what): the direct writer wrote \(String(decoding: out, as: UTF8.self)), the emitter threw \(e.shortDescription)", text)
                }
            } catch {
                if out != prefix { fuzzFinding("\(what): the direct writer appended bytes before it threw", text) }
                switch expected {
                case .success(let bytes):
                    fuzzFinding("\(what): the direct writer threw \(error.shortDescription), the emitter wrote \(String(decoding: bytes, as: UTF8.self))", text)
                case .failure(let e) where e.kind == error.kind && e.message == error.message && e.range == error.range:
                    render(error, text)
                case .failure(let e):
                    fuzzFinding("\(what): the direct writer threw \(error.shortDescription), the emitter \(e.shortDescription)", text)
                }
            }
        }
    }
}
