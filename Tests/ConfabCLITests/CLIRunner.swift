import Foundation

/// Runs the real `confab` binary, as a person or script would.
struct CLIRunner {
    struct Result {
        let status: Int32
        let stdout: String
        let stderr: String

        var lines: [String] { stdout.split(separator: "\n").map(String.init) }

        func json() throws -> Any {
            try JSONSerialization.jsonObject(with: Data(stdout.utf8))
        }
    }

    let data: URL

    static var binary: URL {
        if let path = ProcessInfo.processInfo.environment["CONFAB_BIN"] { return URL(fileURLWithPath: path) }
        // Tests/ConfabCLITests/CLIRunner.swift → package root → .build/debug/confab
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        return root.appendingPathComponent(".build/debug/confab")
    }

    static func temporaryDirectory() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("confab-cli-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    @discardableResult
    func run(_ arguments: [String], stdin: String? = nil) throws -> Result {
        let process = Process()
        process.executableURL = Self.binary
        process.arguments = ["--data", data.path] + arguments
        var environment = ProcessInfo.processInfo.environment
        environment["NO_COLOR"] = "1"
        environment["COLUMNS"] = "80"
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

    /// `init` plus the key, for setting up peers.
    func initialize(name: String) throws -> String {
        let result = try run(["init", "--name", name, "--json"])
        guard result.status == 0, let info = try result.json() as? [String: Any], let id = info["id"] as? String else {
            throw RunnerError(message: "init failed: \(result.stderr)")
        }
        return id
    }

    struct RunnerError: Error {
        let message: String
    }
}
