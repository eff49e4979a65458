// swift-tools-version:6.1
import PackageDescription

let package = Package(
    name: "cql",
    platforms: [.macOS(.v14)],
    products: [
        .library(name: "CQLKit", targets: ["CQLKit"]),
        .library(name: "CQLEval", targets: ["CQLEval"]),
        .library(name: "CQLSQL", targets: ["CQLSQL"]),
        .library(name: "CQLServer", targets: ["CQLServer"]),
        .executable(name: "cql", targets: ["cql"]),
    ],
    // `PCRE2` (on by default): the evaluator's regexes run on the system's
    // libpcre2-8. `swift build --disable-default-traits` builds without it
    // (iOS, macOS, Windows, WebAssembly): then the pure-Swift engine in
    // CQLEval/Regex serves every regex, and refuses by name what it cannot
    // run with PCRE2's meaning (EvaluationSemantics.md).
    traits: [
        .trait(name: "PCRE2", description: "Regexes on the system's libpcre2-8 (else the pure-Swift engine)"),
        .default(enabledTraits: ["PCRE2"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.10.0"),
        .package(url: "https://github.com/vapor/postgres-nio", from: "1.33.2"),
        // `cql serve`: HTTP (Hummingbird 2 on swift-nio), request signatures
        // (MD5, as LeanCloud's SDKs sign), logs; the HTTP client for its tests.
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1"),
        .package(url: "https://github.com/apple/swift-crypto", from: "3.12.3"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-http-types", from: "1.8.0"),
        .package(url: "https://github.com/swift-server/async-http-client", from: "1.37.0"),
        // LiveQuery: the WebSocket (HTTP/1 upgrade on Hummingbird) and the
        // protobuf messages LeanCloud's SDKs speak (runtime only; the Swift
        // code is generated once and committed: scripts/livequery-proto).
        .package(url: "https://github.com/hummingbird-project/hummingbird-websocket", from: "2.8.1"),
        .package(url: "https://github.com/apple/swift-protobuf", from: "1.39.0"),
        // `swift package --disable-sandbox generate-documentation --target CQLKit
        // --target CQLEval --target CQLSQL --target CQLServer` builds the
        // reference: each library target's catalog, Sources/<Target>/<Target>.docc.
        .package(url: "https://github.com/swiftlang/swift-docc-plugin", from: "1.5.0"),
    ],
    targets: [
        // The pure compiler: front ends, AST, emitters. No C dependency, so it
        // can be embedded in an iOS SDK.
        .target(name: "CQLKit"),
        // libpcre2-8 from the system (Debian: libpcre2-dev); trait `PCRE2` only.
        .systemLibrary(name: "CPCRE2", pkgConfig: "libpcre2-8", providers: [.apt(["libpcre2-dev"])]),
        // glibc's malloc_trim, for the server (RequestBodyReader).
        .systemLibrary(name: "CMalloc"),
        // The in-memory evaluator: planner, predicates, geo, document store.
        .target(name: "CQLEval", dependencies: ["CQLKit", .target(name: "CPCRE2", condition: .when(traits: ["PCRE2"]))]),
        // Runs the generated SQL: SQLite through GRDB (with the evaluator's
        // regex and order registered as functions), PostgreSQL through
        // postgres-nio; load and run.
        .target(
            name: "CQLSQL",
            dependencies: [
                "CQLKit", "CQLEval",
                .product(name: "GRDB", package: "GRDB.swift"),
                // sqlite3_progress_handler, for a server's per-request deadline.
                .product(name: "GRDBSQLite", package: "GRDB.swift"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
            ],
            swiftSettings: [.enableUpcomingFeature("NonisolatedNonsendingByDefault")]
        ),
        // `cql serve`: LeanCloud's REST storage API and CQL endpoint over
        // CQLSQL (routes, auth, wire shapes and storage apart).
        .target(
            name: "CQLServer",
            dependencies: [
                "CQLKit", "CQLEval", "CQLSQL",
                .target(name: "CMalloc", condition: .when(platforms: [.linux])),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Crypto", package: "swift-crypto"),
                // PBKDF2 (BoringSSL's) for the passwords of new users.
                .product(name: "_CryptoExtras", package: "swift-crypto"),
                .product(name: "Logging", package: "swift-log"),
                // The app's cloud engine (LeanEngine): functions and hooks over kept-alive HTTP.
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "HummingbirdWebSocket", package: "hummingbird-websocket"),
                .product(name: "SwiftProtobuf", package: "swift-protobuf"),
            ],
            // The source of LiveQuery/Proto's generated Swift (scripts/livequery-proto).
            exclude: ["LiveQuery/Proto/livequery.proto"],
            swiftSettings: [.enableUpcomingFeature("NonisolatedNonsendingByDefault")]
        ),
        // The `cql` command: a thin layer over the libraries.
        .executableTarget(
            name: "cql",
            dependencies: [
                "CQLKit",
                "CQLEval",
                "CQLSQL",
                "CQLServer",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                // `cql files fetch` and `cql pull`: parallel downloads, the
                // source's REST API, MD5 of the bytes and of the signature.
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "Crypto", package: "swift-crypto"),
            ],
            // A release `cql` carries the Swift runtime and Foundation inside
            // it (what `--static-swift-stdlib` does): it then starts without
            // loading and relocating twenty shared libraries, ~9 ms instead of
            // ~14 ms, which a `cql translate` per query or a short `--lines` run
            // pays every time. Debug builds, which the test bundle links with
            // XCTest's shared runtime, stay dynamic. The libraries named after
            // `-static-stdlib` are those static Foundation needs and our
            // objects, compiled for the shared runtime, do not name. (The
            // linker's note that static Foundation's createTemporaryFile uses
            // `mktemp` is about Foundation's archive, not our code.)
            // `-no-pie` links it at a fixed address: a position-independent
            // static binary spends ~1.6M instructions relocating Swift
            // metadata at every start and dirties ~320 more pages doing it
            // (814 page faults for a one-line run, 491 without): a one-line
            // `translate` drops from ~7.9 ms to ~5.7 ms. The price is that
            // the executable's own code is not placed at a random address
            // (shared libraries, stack and heap still are); `cql` is a
            // command-line tool, not a server holding secrets.
            // `--no-export-dynamic` undoes the `-export-dynamic` that
            // `-static-stdlib` adds: it exported all 38,000 of our symbols,
            // and the runtime's start-up `dladdr` scanned them (1.4M
            // instructions). Nothing looks our symbols up by name.
            linkerSettings: [.unsafeFlags(["-static-stdlib", "-lCoreFoundation", "-l_FoundationCollections", "-l_FoundationCShims", "-l_FoundationICU", "-Xclang-linker", "-no-pie", "-Xlinker", "--no-export-dynamic"], .when(platforms: [.linux], configuration: .release))]
        ),
        // Benchmarks (scripts/bench): not tests, never asserted.
        .executableTarget(name: "cql-bench", dependencies: ["CQLKit", "CQLEval"], path: "Benchmarks/cql-bench"),
        // Reader of the Corpus/ case files, shared by the test targets.
        .target(name: "CorpusSupport", dependencies: ["CQLKit"], path: "Tests/CorpusSupport"),
        // The eval corpus's fixture and answer check, shared by CQLEvalTests
        // and cql-regex-check.
        .target(name: "EvalCorpusSupport", dependencies: ["CQLEval", "CQLKit", "CorpusSupport"], path: "Tests/EvalCorpusSupport"),
        // What CI runs in the build without trait PCRE2 (scripts/test): the
        // eval corpus, the regex budget and a refusal on the Swift engine,
        // without building the test bundle's server dependencies.
        .executableTarget(
            name: "cql-regex-check", dependencies: ["CQLEval", "CQLKit", "CorpusSupport", "EvalCorpusSupport"], path: "Tests/RegexCheck"),
        .testTarget(name: "CQLKitTests", dependencies: ["CQLKit", "CorpusSupport"]),
        .testTarget(name: "CQLEvalTests", dependencies: ["CQLEval", "CQLKit", "CorpusSupport", "EvalCorpusSupport"]),
        .testTarget(name: "cqlTests", dependencies: ["cql", "CorpusSupport", .product(name: "Crypto", package: "swift-crypto")]),
        // SQLite and PostgreSQL/: the real-database tests (PostgreSQL 15 is
        // started as `postgres` in a temporary directory, and stopped after).
        .testTarget(name: "CQLSQLTests", dependencies: ["CQLSQL", "CQLEval", "CQLKit", "CorpusSupport"]),
        // The server over real HTTP (async-http-client) on SQLite and
        // PostgreSQL, and the LeanCloud Python SDK against it.
        .testTarget(
            name: "CQLServerTests",
            dependencies: [
                "CQLServer", "CQLSQL", "CQLEval", "CQLKit", "CorpusSupport",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
    ],
    swiftLanguageModes: [.v6]
)
