// swift-tools-version:6.1
import PackageDescription

let package = Package(
    name: "Confab",
    platforms: [.macOS(.v14)],
    products: [
        .executable(name: "confab", targets: ["confab"]),
        .executable(name: "confab-bench", targets: ["confab-bench"]),
        .library(name: "ConfabCrypto", targets: ["ConfabCrypto"]),
        .library(name: "ConfabModel", targets: ["ConfabModel"]),
        .library(name: "ConfabWire", targets: ["ConfabWire"]),
        .library(name: "ConfabStore", targets: ["ConfabStore"]),
        .library(name: "ConfabSync", targets: ["ConfabSync"]),
        .library(name: "ConfabNet", targets: ["ConfabNet"]),
        .library(name: "ConfabClient", targets: ["ConfabClient"]),
        .library(name: "ConfabNode", targets: ["ConfabNode"]),
        .library(name: "ConfabTUI", targets: ["ConfabTUI"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-protobuf", from: "1.39.0"),
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.10.0"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.2"),
        .package(url: "https://github.com/apple/swift-metrics", from: "2.13.0"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.13.0"),
        .package(url: "https://github.com/swift-server/swift-prometheus", from: "2.4.1"),
        // No default traits: swift-configuration and full Foundation support are not used, and
        // cost build time.
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1", traits: []),
        .package(url: "https://github.com/hummingbird-project/hummingbird-websocket", from: "2.8.1"),
        .package(url: "https://github.com/apple/swift-http-types", from: "1.8.0"),
    ],
    targets: [
        .systemLibrary(
            name: "CSodium",
            pkgConfig: "libsodium",
            providers: [.apt(["libsodium-dev"]), .brew(["libsodium"])]
        ),
        // QR codes of link codes (`confab devices link`), with libqrencode.
        .systemLibrary(
            name: "CQREncode",
            pkgConfig: "libqrencode",
            providers: [.apt(["libqrencode-dev"]), .brew(["qrencode"])]
        ),
        .target(name: "ConfabCrypto", dependencies: ["CSodium"]),
        .target(name: "ConfabModel", dependencies: ["ConfabCrypto"]),
        .target(
            name: "ConfabWire",
            dependencies: [
                "ConfabCrypto", "ConfabModel",
                .product(name: "SwiftProtobuf", package: "swift-protobuf"),
            ]
        ),
        .target(
            name: "ConfabStore",
            dependencies: [
                "ConfabCrypto", "ConfabModel", "ConfabWire",
                .product(name: "GRDB", package: "GRDB.swift"),
                // The WAL hook (`Checkpointer`), which GRDB does not wrap.
                .product(name: "GRDBSQLite", package: "GRDB.swift"),
            ]
        ),
        .target(
            name: "ConfabSync",
            dependencies: [
                "ConfabModel", "ConfabWire", "ConfabStore",
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        // Many nodes' real stores and sync engines in one process over in-memory links, in
        // virtual time: the benchmark of dissemination beyond one machine (make bench).
        .target(
            name: "ConfabSimulation",
            dependencies: [
                "ConfabCrypto", "ConfabModel", "ConfabWire", "ConfabStore", "ConfabSync",
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
            ]
        ),
        // The terminal emulator's side of a pseudo-terminal, to drive a program that wants
        // a terminal: the terminal tests and the chat benchmark share it, and an executable
        // must not depend on test support.
        .target(name: "ConfabPseudoTerminal"),
        .target(
            name: "ConfabNet",
            dependencies: [
                "ConfabCrypto", "ConfabModel", "ConfabWire",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        // What every front end uses: the operations, events and presence, the messengers
        // (local, or attached to a node over its control socket), names resolved. No NIO:
        // a front end needs no event loop to talk to its node.
        .target(
            name: "ConfabClient",
            dependencies: ["CQREncode", "ConfabCrypto", "ConfabModel", "ConfabWire", "ConfabStore"]
        ),
        .target(
            name: "ConfabNode",
            dependencies: [
                "ConfabCrypto", "ConfabModel", "ConfabWire", "ConfabStore", "ConfabSync", "ConfabNet", "ConfabClient",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "UnixSignals", package: "swift-service-lifecycle"),
            ]
        ),
        // The web app the node serves (`confab up`, `confab chat`): the control protocol's
        // operations over HTTP, its events over a WebSocket, the front end's files, and the
        // browser's own attacks kept out.
        .target(
            name: "ConfabWeb",
            dependencies: [
                "ConfabCrypto", "ConfabModel", "ConfabStore", "ConfabClient", "ConfabNode",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdWebSocket", package: "hummingbird-websocket"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "NIOWebSocket", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "UnixSignals", package: "swift-service-lifecycle"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
            ]
        ),
        .target(
            name: "ConfabTUI",
            dependencies: [
                "ConfabModel", "ConfabStore", "ConfabClient", "ConfabNode",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
            ]
        ),
        .executableTarget(
            name: "confab",
            dependencies: [
                "ConfabTUI", "ConfabWeb", "ConfabClient", "ConfabNode", "ConfabStore", "ConfabModel", "ConfabCrypto",
                "ConfabWire",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        .executableTarget(
            name: "confab-bench",
            dependencies: [
                "CSodium", "ConfabCrypto", "ConfabModel", "ConfabWire", "ConfabStore", "ConfabClient", "ConfabNode",
                "ConfabTUI",
                // The pseudo-terminal that drives the chat, as the tests drive it.
                "ConfabPseudoTerminal", "ConfabSimulation",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        .testTarget(
            name: "ConfabCryptoTests",
            dependencies: ["ConfabCrypto"],
            resources: [.copy("Fixtures")]
        ),
        .testTarget(name: "ConfabModelTests", dependencies: ["ConfabModel", "ConfabCrypto", "ConfabTestSupport"]),
        .testTarget(
            name: "ConfabNetTests",
            dependencies: [
                "ConfabTestSupport",
                "ConfabNet", "ConfabWire", "ConfabModel", "ConfabCrypto",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOEmbedded", package: "swift-nio"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        .testTarget(
            name: "ConfabSyncTests",
            dependencies: [
                "ConfabSync", "ConfabStore", "ConfabWire", "ConfabModel", "ConfabCrypto",
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
            ]
        ),
        .testTarget(
            name: "ConfabSimulationTests",
            dependencies: ["ConfabSimulation", "ConfabModel"]
        ),
        .testTarget(
            name: "ConfabWireTests", dependencies: ["ConfabWire", "ConfabModel", "ConfabCrypto", "ConfabTestSupport"],
            resources: [.copy("Fixtures")]),
        .testTarget(
            name: "ConfabStoreTests",
            dependencies: [
                "ConfabTestSupport",
                "ConfabStore", "ConfabWire", "ConfabModel", "ConfabCrypto",
                .product(name: "GRDB", package: "GRDB.swift"),
            ]
        ),
        .testTarget(
            name: "ConfabNodeTests",
            dependencies: [
                "ConfabTestSupport",
                "ConfabClient", "ConfabNode", "ConfabStore", "ConfabModel", "ConfabCrypto", "ConfabWire", "ConfabSync",
                "ConfabNet",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOEmbedded", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "GRDB", package: "GRDB.swift"),
            ]
        ),
        // `confab doctor`: its pure diagnosis and its checks on loopback, fast enough for
        // the parallel run (ConfabNodeTests, which starts processes, runs one at a time).
        // Linking (Protocol.md §20.10) in process, over real loopback sockets.
        .testTarget(
            name: "ConfabLinkTests",
            dependencies: [
                "ConfabTestSupport",
                "ConfabClient", "ConfabNode", "ConfabNet", "ConfabStore", "ConfabWire", "ConfabModel", "ConfabCrypto",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
            ]
        ),
        .testTarget(
            name: "ConfabDoctorTests",
            dependencies: [
                "ConfabTestSupport",
                "ConfabClient", "ConfabNode", "ConfabNet", "ConfabWire", "ConfabModel", "ConfabCrypto",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        .testTarget(
            name: "ConfabTUITests",
            dependencies: [
                "ConfabTUI", "ConfabModel", "ConfabClient", "ConfabNode", "ConfabTestSupport", "ConfabPseudoTerminal",
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        // The web app's rules (origins, addresses, logins) and its routes answered in process;
        // the browser's side is Tests/Web, against real nodes.
        .testTarget(
            name: "ConfabWebTests",
            dependencies: [
                "ConfabWeb", "ConfabClient", "ConfabNode", "ConfabModel", "ConfabCrypto", "ConfabTestSupport",
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        .target(name: "ConfabTestSupport", path: "Tests/ConfabTestSupport"),
        .testTarget(
            name: "ConfabCLITests",
            dependencies: [
                "ConfabTestSupport",
                "ConfabClient", "ConfabNode", "ConfabStore", "ConfabModel", "ConfabCrypto", "ConfabWire",
                .product(name: "GRDB", package: "GRDB.swift"),
            ]
        ),
    ],
    swiftLanguageModes: [.v6]
)
