// swift-tools-version:6.1
// libFuzzer targets for Confab's parsers. Kept out of the main package so the sanitizer
// flags never touch a normal build; `./run.sh SECONDS` (or `make fuzz`) builds and runs them.
// Every directory under Sources/ is one fuzzer executable; run.sh discovers them from there.
import PackageDescription

let fuzzerDependencies: [Target.Dependency] = [
    .product(name: "ConfabCrypto", package: "Confab"),
    "CLibFuzzerDriver",
]

let package = Package(
    name: "ConfabFuzz",
    platforms: [.macOS(.v14)],
    dependencies: [
        .package(name: "Confab", path: ".."),
        // Only for FuzzSyncSession, which restores its store from a copy before each input;
        // the same package and version range as Confab's, so nothing new is resolved.
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.10.0"),
    ],
    targets: [
        .target(name: "CLibFuzzerDriver"),
        // What the session fuzzers share: the store every input starts from, restored between
        // inputs, and how an input is read as session messages.
        .target(
            name: "FuzzStoreSnapshot",
            dependencies: [
                .product(name: "ConfabStore", package: "Confab"),
                .product(name: "ConfabWire", package: "Confab"),
                .product(name: "GRDB", package: "GRDB.swift"),
            ]
        ),
        .executableTarget(name: "FuzzBoxStream", dependencies: fuzzerDependencies),
        .executableTarget(
            name: "FuzzControlRequest",
            dependencies: fuzzerDependencies + [.product(name: "ConfabClient", package: "Confab")]
        ),
        .executableTarget(name: "FuzzHandshake", dependencies: fuzzerDependencies),
        .executableTarget(
            name: "FuzzSessionMessage",
            dependencies: fuzzerDependencies + [.product(name: "ConfabWire", package: "Confab")]
        ),
        .executableTarget(
            name: "FuzzBeacon",
            dependencies: fuzzerDependencies + [
                .product(name: "ConfabWire", package: "Confab"),
                .product(name: "ConfabModel", package: "Confab"),
            ]
        ),
        .executableTarget(
            name: "FuzzKeyDecoder",
            dependencies: fuzzerDependencies + [.product(name: "ConfabTUI", package: "Confab")]
        ),
        .executableTarget(
            name: "FuzzSyncSession",
            dependencies: fuzzerDependencies + [
                .product(name: "ConfabSync", package: "Confab"),
                .product(name: "ConfabStore", package: "Confab"),
                .product(name: "ConfabWire", package: "Confab"),
                .product(name: "ConfabModel", package: "Confab"),
                "FuzzStoreSnapshot",
            ],
            exclude: ["asan.options"]
        ),
        .executableTarget(
            name: "FuzzFileSession",
            dependencies: fuzzerDependencies + [
                .product(name: "ConfabSync", package: "Confab"),
                .product(name: "ConfabStore", package: "Confab"),
                .product(name: "ConfabWire", package: "Confab"),
                .product(name: "ConfabModel", package: "Confab"),
                "FuzzStoreSnapshot",
            ],
            exclude: ["asan.options"]
        ),
        .executableTarget(
            name: "FuzzFileDecoders",
            dependencies: fuzzerDependencies + [
                .product(name: "ConfabWire", package: "Confab"),
                .product(name: "ConfabModel", package: "Confab"),
            ]
        ),
        .executableTarget(
            name: "FuzzDeviceList",
            dependencies: fuzzerDependencies + [
                .product(name: "ConfabWire", package: "Confab"),
                .product(name: "ConfabModel", package: "Confab"),
            ]
        ),
        .executableTarget(
            name: "FuzzLinkMessage",
            dependencies: fuzzerDependencies + [.product(name: "ConfabWire", package: "Confab")]
        ),
        .executableTarget(
            name: "FuzzEntryDecoder",
            dependencies: fuzzerDependencies + [
                .product(name: "ConfabWire", package: "Confab"),
                .product(name: "ConfabModel", package: "Confab"),
            ]
        ),
    ],
    swiftLanguageModes: [.v6]
)
