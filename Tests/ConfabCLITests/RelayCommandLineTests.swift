import ConfabTestSupport
import Foundation
import Testing

/// `confab relay` refuses bad options before it starts anything (exit 2, what to do).
@Suite struct RelayCommandLineTests {
    let cli: CLIRunner

    init() throws {
        cli = CLIRunner(data: try CLIRunner.temporaryDirectory().appendingPathComponent("relay"))
    }

    @Test(arguments: [
        (["--quota", "lots"], "--quota lots: give a size such as 500MB"),
        (["--rate", "fast"], "--rate fast: give entries per second"),
        (["--rate", "0"], "--rate 0: give entries per second"),
        (["--burst", "10"], "--burst needs --rate"),
        (["--accept", "known", "--allow", "abc"], "--allow abc: a key is 64 hex characters"),
        (["--allow", String(repeating: "ab", count: 32)], "--allow is only used with --accept known"),
        (["--accept", "friends"], "friends"),
        (["--metrics", "nowhere"], "--metrics must be HOST:PORT"),
        (["--log-format", "xml"], "xml"),
    ])
    func badOptionsAreUsageErrors(arguments: [String], message: String) throws {
        let result = try cli.run(["relay", "--no-discovery", "--listen", "127.0.0.1:0"] + arguments)
        #expect(result.status == 2)
        #expect(result.stderr.contains(message), "\(result.stderr)")
        // Nothing was started or created.
        #expect(!FileManager.default.fileExists(atPath: cli.data.appendingPathComponent("identity.key").path))
    }

    @Test func relayAppearsInTheCommandList() throws {
        let help = try cli.run(["--help"])
        #expect(help.stdout.contains("relay"))
        #expect(help.stdout.contains("Run a headless relay"))
    }
}
