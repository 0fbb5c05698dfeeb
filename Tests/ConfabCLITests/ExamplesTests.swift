import ConfabTestSupport
import Foundation
import Testing

/// The scripts in Examples/ are documentation; running them keeps them true.
@Suite struct ExamplesTests {
    @Test func offlineTourRuns() throws {
        let root = ConfabBinary.packageRoot
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/bash")
        process.arguments = [
            root.appendingPathComponent("Examples/offline-tour.sh").path, try CLIRunner.temporaryDirectory().path,
        ]
        var environment = ProcessInfo.processInfo.environment
        environment["CONFAB"] = CLIRunner.binary.path
        environment["NO_COLOR"] = "1"
        process.environment = environment
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        #expect(process.terminationStatus == 0)
        #expect(text.contains("Started Hike"))
        #expect(text.contains("You: all green  (sending…)"))
        #expect(text.contains("«trailhead»"))
    }

    /// Runs `Examples/NAME` with ARGUMENTS; returns its exit status and standard output.
    func run(_ name: String, _ arguments: [String] = []) throws -> (status: Int32, output: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/bash")
        process.arguments = [ConfabBinary.packageRoot.appendingPathComponent("Examples/\(name)").path] + arguments
        var environment = ProcessInfo.processInfo.environment
        environment["CONFAB"] = CLIRunner.binary.path
        environment["NO_COLOR"] = "1"
        process.environment = environment
        let output = Pipe()
        process.standardOutput = output
        process.standardInput = FileHandle.nullDevice
        try process.run()
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        return (process.terminationStatus, text)
    }

    @Test func sendFromPipeShowsAcknowledgementsAndExitCodes() throws {
        let (status, text) = try run("send-from-pipe.sh", [try CLIRunner.temporaryDirectory().path])
        #expect(status == 0, "\(text)")
        let acks = text.split(separator: "\n").filter { $0.hasPrefix("{") }
        #expect(acks.count == 3)
        #expect(acks.allSatisfy { $0.contains(#""status":"sending""#) })
        #expect(text.contains("exit code 3: not delivered"))
        #expect(text.contains("exit code 2"))
        #expect(text.contains("You: build finished in 41 s  (sending…)"))
    }

    static let hasJQ =
        FileManager.default.isExecutableFile(atPath: "/usr/bin/jq")
        || FileManager.default.isExecutableFile(atPath: "/usr/local/bin/jq")

    @Test func echoBotAnswersOverRealNodesOnLoopback() throws {
        try #require(Self.hasJQ, "the echo bot needs jq (make test-deps installs it)")
        let (status, text) = try run("echo-bot.sh", [try CLIRunner.temporaryDirectory().path])
        #expect(status == 0, "\(text)")
        #expect(text.contains("You: ping  (delivered ✓✓)"))
        #expect(text.contains("Bob: echo: ping"))
    }

    /// Needs root and ip netns; the script itself says "skipped" where they are missing.
    @Test(.enabled(if: getuid() == 0, "needs root for network namespaces"))
    func lanDemoDeliversThroughTheRelayWhileTheSenderIsAway() throws {
        let (status, text) = try run("lan-demo.sh")
        #expect(status == 0, "\(text)")
        if text.contains("skipped:") { return }
        #expect(text.contains("alice -> carol: sent (only the relay holds it)"))
        #expect(text.contains("alice: Dinner at 8?"))
        #expect(text.contains("alice -> carol: read, learned from the relay"))
    }
}
