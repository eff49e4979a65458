import CQLEval
import CQLKit
import CorpusSupport
import XCTest

/// The Swift example of README.md, verbatim, with its printed output asserted.
final class ReadmeExampleTests: XCTestCase {
    func testReadmeLibraryExample() throws {
        // Text → AST → bound AST → where-JSON
        let query = try CQLParser.parse("select * from GameScore where name = ? and score > ? order by -score")
        let bound = try Binder.bind(query, parameters: ["dennis", 80])
        let request = try WhereJSONEmitter.emit(bound, dialect: .leancloud)
        XCTAssertEqual(JSONWriter.string(request),
                       #"{"className":"GameScore","order":"-score","where":{"name":"dennis","score":{"$gt":80}}}"#)

        // Any language in, any language out
        let fromUsergrid = try UsergridParser.parse("name = 'fred*' order by age desc", options: UsergridOptions(className: "users"))
        XCTAssertEqual(fromUsergrid.order, [OrderKey("age", descending: true)])
        let fromREST = try WhereJSONReader.read(#"{"className":"T","where":{"tags":{"$all":["a","b"]}}}"#)
        XCTAssertEqual(try CQLFormatter.format(fromREST), "select * from T where tags all ('a', 'b')")

        // Builders in the two SDK styles
        let built = try LCQuery("Todo").where("priority", .greaterThanOrEqualTo(3)).build()
        XCTAssertEqual(JSONWriter.string(try WhereJSONEmitter.emit(built, dialect: .leancloud)),
                       #"{"className":"Todo","where":{"priority":{"$gte":3}}}"#)
        let ug = try UsergridQuery("dogs").eq("color", value: "brown").or().gt("age", value: 3).build()
        XCTAssertEqual(ug.className, "dogs")

        // The optimizer: what the `cql` command runs before every backend
        let optimized = try Optimizer.optimize(try CQLParser.parse("select * from T where a = 1 or a = 2"))
        XCTAssertEqual(try CQLFormatter.format(optimized), "select * from T where a in (1, 2)")

        // Evaluate in memory
        let store = try DocumentStore.load(path: Corpus.root.appendingPathComponent("data").path)
        let plan = try QueryPlan(bound, store: store)
        let result = try plan.run()
        XCTAssertEqual(result.objects.count, 2)
        XCTAssertTrue(result.objects.allSatisfy { $0["name"] == "dennis" })
        let plan2 = try QueryPlan(try Binder.bind(query, parameters: ["victor", 80]), store: store)
        XCTAssertEqual(try plan2.run().objects.map { $0["objectId"] }, ["gs22"])
    }
}
