import Foundation

/// Runs the real `confab` binary, as a person or a script would: shared by the CLI and
/// node process tests.
public enum ConfabBinary {
    public struct Result: Sendable {
        public let status: Int32
        public let stdout: String
        public let stderr: String

        public var lines: [String] { stdout.split(separator: "\n").map(String.init) }

        public func json() throws -> Any {
            try JSONSerialization.jsonObject(with: Data(stdout.utf8))
        }
    }

    /// `$CONFAB_BIN`, else the debug build of this package (`make test` builds it first).
    public static var url: URL {
        if let path = ProcessInfo.processInfo.environment["CONFAB_BIN"] { return URL(fileURLWithPath: path) }
        // Tests/ConfabTestSupport/ConfabBinary.swift → package root → .build/debug/confab
        return packageRoot.appendingPathComponent(".build/debug/confab")
    }

    public static var packageRoot: URL {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
    }

    /// Runs `confab --data DATA ARGUMENTS…` with colour off and an 80-column width;
    /// `environment` adds to (or overrides) the test's own variables.
    @discardableResult
    public static func run(
        data: URL, _ arguments: [String], stdin: String? = nil, environment extra: [String: String] = [:]
    ) throws -> Result {
        let process = Process()
        process.executableURL = url
        process.arguments = ["--data", data.path] + arguments
        var environment = ProcessInfo.processInfo.environment
        environment["NO_COLOR"] = "1"
        environment["COLUMNS"] = "80"
        environment.merge(extra) { _, new in new }
        process.environment = environment
        let output = Pipe()
        let errors = Pipe()
        let input = Pipe()
        process.standardOutput = output
        process.standardError = errors
        process.standardInput = input
        try process.run()
        if let stdin { try input.fileHandleForWriting.write(contentsOf: Data(stdin.utf8)) }
        try input.fileHandleForWriting.close()
        let out = output.fileHandleForReading.readDataToEndOfFile()
        let err = errors.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return Result(
            status: process.terminationStatus, stdout: String(decoding: out, as: UTF8.self),
            stderr: String(decoding: err, as: UTF8.self))
    }

    /// A fresh directory under the system's temporary directory, removed when the test
    /// process exits (`TestDirectories`).
    public static func temporaryDirectory(_ prefix: String = "confab-test") throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("\(prefix)-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        TestDirectories.track(url)
        return url
    }

    /// `init --name NAME` and the new key.
    public static func initialize(data: URL, name: String) throws -> String {
        let result = try run(data: data, ["init", "--name", name, "--json"])
        guard result.status == 0, let info = try result.json() as? [String: Any], let id = info["id"] as? String else {
            throw Failure("init \(name) failed: \(result.stderr)")
        }
        return id
    }

    public struct Failure: Error, CustomStringConvertible {
        public let description: String
        public init(_ description: String) { self.description = description }
    }
}
