import CQLEval
import CQLKit
import CorpusSupport
import XCTest

/// The examples of Sources/CQLKit/CQLKit.docc/GettingStarted.md, with the
/// output the article shows in its comments asserted. Change both together.
final class GettingStartedExampleTests: XCTestCase {
    private let query = "select * from GameScore where name = ? and score > ? order by -score limit 10"

    func testParseBindEmit() throws {
        let query = try CQLParser.parse(self.query)
        let bound = try Binder.bind(query, parameters: ["dennis", 80])
        let request = try WhereJSONEmitter.emit(bound, dialect: .leancloud)
        XCTAssertEqual(JSONWriter.string(request),
                       #"{"className":"GameScore","limit":10,"order":"-score","where":{"name":"dennis","score":{"$gt":80}}}"#)
        XCTAssertEqual(try CQLFormatter.format(bound),
                       "select * from GameScore where name = 'dennis' and score > 80 limit 10 order by -score")
        XCTAssertEqual(ASTPrinter.describe(bound), """
            query GameScore
              where: and
                compare name = "dennis"
                compare score > 80
              order: -score
              limit: 10
            """)
    }

    func testDialectsAndNamedErrors() throws {
        let negated = try CQLParser.parse("select * from T where not (name regexp 'x')")
        XCTAssertEqual(JSONWriter.string(try WhereJSONEmitter.emit(negated, dialect: .parse)),
                       #"{"className":"T","where":{"$nor":[{"name":{"$regex":"x"}}]}}"#)
        XCTAssertEqual(JSONWriter.string(try WhereJSONEmitter.emit(negated, dialect: .mongo)),
                       #"{"className":"T","where":{"name":{"$not":{"$regex":"x"}}}}"#)
        XCTAssertThrowsError(try WhereJSONEmitter.emit(negated, dialect: .leancloud)) { error in
            let e = error as! QueryError
            XCTAssertEqual(e.kind, .unsupported)
            XCTAssertEqual(e.message, "'not regexp' cannot be expressed in the leancloud where-JSON dialect")
        }
    }

    func testErrors() throws {
        do {
            _ = try CQLParser.parse("select * from GameScore where score >> 80")
            XCTFail("parsed")
        } catch {
            XCTAssertEqual(error.kind, .syntax)
            XCTAssertEqual(error.rendered(), """
                <input>:1:38: expected a value after '>', found '>'
                select * from GameScore where score >> 80
                                                     ^
                """)
        }
        let query = try CQLParser.parse(self.query)
        do {
            _ = try Binder.bind(query, parameters: ["dennis"])
            XCTFail("bound")
        } catch {
            XCTAssertEqual(error.kind, .binding)
            XCTAssertEqual(error.rendered(), """
                <input>:1:52: no value for the 2nd '?': the query has 2 placeholders but 1 value was given
                select * from GameScore where name = ? and score > ? order by -score limit 10
                                                                   ^
                """)
        }
    }

    func testOtherFrontEnds() throws {
        let ug = try UsergridParser.parse(
            "select * where name = 'fred*' and age >= 3 order by age desc",
            options: UsergridOptions(className: "users", limit: 20))
        XCTAssertEqual(JSONWriter.string(try WhereJSONEmitter.emit(ug, dialect: .parse)),
                       #"{"className":"users","limit":20,"order":"-age","where":{"age":{"$gte":3},"name":{"$options":"is","$regex":"^\\Qfred\\E.*\\z"}}}"#)
        XCTAssertEqual(try UsergridFormatter.format(ug), "select * where name = 'fred*' and age >= 3 order by age desc")
        XCTAssertEqual(try CQLFormatter.format(ug),
                       #"select * from users where name regexp '(?is)^\\Qfred\\E.*\\z' and age >= 3 limit 20 order by -age"#)

        let rest = try WhereJSONReader.read(
            #"{"className":"Post","where":{"tags":{"$all":["swift","ios"]},"likes":{"$gte":10}},"order":"-likes","limit":5}"#)
        XCTAssertEqual(try CQLFormatter.format(rest),
                       "select * from Post where likes >= 10 and tags all ('swift', 'ios') limit 5 order by -likes")
        XCTAssertThrowsError(try UsergridFormatter.format(rest)) { error in
            XCTAssertEqual((error as! QueryError).message, "'all' cannot be expressed in Usergrid ql")
        }
        do {
            _ = try WhereJSONReader.read(#"{"where":{"score":{"$in":5}}}"#)
            XCTFail("read")
        } catch {
            XCTAssertEqual(error.rendered(), """
                <input>:1:26: where.score.$in: expected an array, found an integer
                {"where":{"score":{"$in":5}}}
                                         ^
                """)
        }
        XCTAssertEqual(QueryLanguage.detect("name = 'fred'"), .usergrid)
        XCTAssertEqual(QueryLanguage.detect("select * from T"), .cql)
        XCTAssertEqual(QueryLanguage.detect("{}"), .whereJSON)
    }

    func testBuilders() throws {
        let todo = try LCQuery("Todo")
            .where("priority", .greaterThanOrEqualTo(3))
            .where("title", .prefixedBy("a.b"))
            .where("createdAt", .descending)
            .limit(10)
            .build()
        XCTAssertEqual(JSONWriter.string(try WhereJSONEmitter.emit(todo, dialect: .leancloud)),
                       #"{"className":"Todo","limit":10,"order":"-createdAt","where":{"priority":{"$gte":3},"title":{"$regex":"^\\Qa.b\\E"}}}"#)
        let pets = UsergridQuery("pets").eq("name", value: "Fido").or().not().gt("age", value: 3).desc("age").limit(20)
        XCTAssertEqual(try pets.queryString(), "select * where name = 'Fido' or not age > 3 order by age desc")
        XCTAssertEqual(try pets.urlQuery(),
                       "ql=select%20%2A%20where%20name%20%3D%20%27Fido%27%20or%20not%20age%20%3E%203%20order%20by%20age%20desc&limit=20")
    }

    func testEvaluateInMemory() throws {
        let store = try DocumentStore.load(path: Corpus.root.appendingPathComponent("data").path)
        let top = try Binder.bind(
            try CQLParser.parse("select name, score from GameScore where score > 1000 order by -score limit 3"),
            parameters: [])
        let result = try QueryPlan(top, store: store).run()
        XCTAssertEqual(result.objects.map { JSONWriter.string(.object($0)) }, [
            #"{"createdAt":"2018-01-05T10:00:00.000Z","name":"victor","objectId":"gs22","score":5000,"updatedAt":"2018-01-05T11:00:00.000Z"}"#,
            #"{"createdAt":"2017-11-09T08:00:00.000Z","name":"eve","objectId":"gs09","score":3100,"updatedAt":"2017-11-09T09:00:00.000Z"}"#,
            #"{"createdAt":"2017-10-15T08:00:00.000Z","name":"alice","objectId":"gs05","score":2400,"updatedAt":"2017-10-15T09:00:00.000Z"}"#,
        ])
        XCTAssertEqual(result.nextSkip, 3)
        let counting = try Binder.bind(try CQLParser.parse("select count(*) from GameScore where score > 1000"), parameters: [])
        XCTAssertEqual(try QueryPlan(counting, store: store).run().count, 8)

        let todos = DocumentStore(["Todo": [
            ["objectId": "t1", "title": "Write docs", "priority": 3],
            ["objectId": "t2", "title": "Fix bug", "priority": 1],
            ["objectId": "t3", "title": "Ship", "priority": .null],
        ]])
        let plan = try QueryPlan(
            try Binder.bind(try CQLParser.parse("select * from Todo where priority >= 2 or priority = null"), parameters: []),
            store: todos)
        XCTAssertEqual(try plan.run().objects.map { $0["objectId"]! }, ["t1", "t3"])
        XCTAssertTrue(try plan.matches(["priority": 5]))
        XCTAssertFalse(try plan.matches(["priority": "5"]))
        XCTAssertTrue(try plan.matches([:]))

        do {
            _ = try QueryPlan(try CQLParser.parse("select * from T where name regexp '(a'"))
            XCTFail("planned")
        } catch {
            XCTAssertEqual(error.rendered(), """
                <input>:1:23: invalid regular expression '(a' at offset 2: missing closing parenthesis
                select * from T where name regexp '(a'
                                      ^~~~~~~~~~~~~~~~
                """)
        }
        let live = try ChangeMatcher(try CQLParser.parse("select * from GameScore where score > 80"))
        XCTAssertEqual(try live.event(before: ["score": 70], after: ["score": 90]), .enter)
        XCTAssertEqual(try live.event(before: ["score": 90], after: ["score": "90"]), .leave)
    }
}
