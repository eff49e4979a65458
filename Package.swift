// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "cql",
    platforms: [.macOS(.v13)],
    products: [
        .library(name: "CQLKit", targets: ["CQLKit"]),
        .library(name: "CQLEval", targets: ["CQLEval"]),
        .executable(name: "cql", targets: ["cql"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
        // `swift package --disable-sandbox generate-documentation --target CQLKit`
        // builds the reference in Sources/CQLKit/CQLKit.docc.
        .package(url: "https://github.com/swiftlang/swift-docc-plugin", from: "1.5.0"),
    ],
    targets: [
        // The pure compiler: front ends, AST, emitters. No C dependency, so it
        // can be embedded in an iOS SDK.
        .target(name: "CQLKit"),
        // libpcre2-8 from the system (Debian: libpcre2-dev).
        .systemLibrary(name: "CPCRE2", pkgConfig: "libpcre2-8", providers: [.apt(["libpcre2-dev"])]),
        // The in-memory evaluator: planner, predicates, geo, document store.
        .target(name: "CQLEval", dependencies: ["CQLKit", "CPCRE2"]),
        // The `cql` command: a thin layer over the libraries.
        .executableTarget(
            name: "cql",
            dependencies: [
                "CQLKit",
                "CQLEval",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        // Benchmarks (scripts/bench): not tests, never asserted.
        .executableTarget(name: "cql-bench", dependencies: ["CQLKit", "CQLEval"], path: "Benchmarks/cql-bench"),
        // Reader of the Corpus/ case files, shared by the test targets.
        .target(name: "CorpusSupport", dependencies: ["CQLKit"], path: "Tests/CorpusSupport"),
        .testTarget(name: "CQLKitTests", dependencies: ["CQLKit", "CorpusSupport"]),
        .testTarget(name: "CQLEvalTests", dependencies: ["CQLEval", "CQLKit", "CorpusSupport"]),
        .testTarget(name: "cqlTests", dependencies: ["cql", "CorpusSupport"]),
    ],
    swiftLanguageModes: [.v6]
)
