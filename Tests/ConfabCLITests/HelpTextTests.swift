import ConfabWire
import Foundation
import Testing

/// What `--help` prints, for every command and subcommand, as a person reads it.
@Suite struct HelpTextTests {
    /// The commands listed under SUBCOMMANDS in a help text.
    static func subcommands(in help: String) -> [String] {
        let lines = help.split(separator: "\n", omittingEmptySubsequences: false)
        guard let start = lines.firstIndex(of: "SUBCOMMANDS:") else { return [] }
        return lines[(start + 1)...].compactMap { line in
            guard line.hasPrefix("  "), let first = line.dropFirst(2).first, first.isLowercase else { return nil }
            return line.dropFirst(2).split(separator: " ").first.map(String.init)
        }
    }

    /// Lines of `help` with a run of spaces inside their text, or a space at the end: what a
    /// description joined across source lines without its backslash prints. The columns of
    /// the OPTIONS, ARGUMENTS and SUBCOMMANDS lists (a name, spaces, its description) are
    /// not such a run.
    static func badlySpaced(_ help: String) -> [String] {
        help.split(separator: "\n").filter { line in
            if line.hasSuffix(" ") { return true }
            var text = line.drop { $0 == " " }
            let isListRow = line.hasPrefix("  ") && !line.hasPrefix("   ")
            if isListRow, let column = text.firstRange(of: "  ") {
                text = text[column.upperBound...].drop { $0 == " " }
            }
            return text.contains("  ")
        }.map(String.init)
    }

    /// `--version`: the release, and the protocol version the build speaks, as its Hello and
    /// beacons say it (what a person compares with a peer that cannot talk to this one).
    @Test func versionNamesTheReleaseAndTheProtocol() throws {
        let runner = CLIRunner(data: try CLIRunner.temporaryDirectory().appendingPathComponent("version"))
        let version = try runner.run(["--version"])
        #expect(version.status == 0)
        let line = version.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(
            line.wholeMatch(of: /\d+\.\d+\.\d+(-dev)? \(protocol \d+\)/) != nil, "confab --version printed \(line)")
        #expect(line.hasSuffix("(protocol \(SessionCodec.protocolVersion))"))
    }

    @Test func noHelpTextHasARunOfSpacesInsideItsSentences() throws {
        let runner = CLIRunner(data: try CLIRunner.temporaryDirectory().appendingPathComponent("help"))
        var commands: [[String]] = [[]]
        var checked = 0
        while let command = commands.popLast() {
            let help = try runner.run(command + ["--help"])
            let name = (["confab"] + command).joined(separator: " ")
            #expect(help.status == 0, "\(name) --help: \(help.stderr)")
            #expect(Self.badlySpaced(help.stdout) == [], "\(name) --help")
            commands += Self.subcommands(in: help.stdout).map { command + [$0] }
            checked += 1
        }
        // The top level, and at least its commands: the list was read.
        #expect(checked > 30)
    }

    @Test func aDescriptionJoinedWithoutItsBackslashIsFound() {
        // What `confab send --help` printed when three lines of its description had no
        // backslash: each kept its indentation.
        let lines = [
            "they leave at once. With --reply-to, the message answers an earlier one of the ",
            "               conversation (anyone's), which every participant sees quoted",
            "above it. `@name`                 (a member's name as this node knows it, or a",
            "",
            "OPTIONS:",
            "  --timeout <timeout>     With --wait: give up after this many seconds (exit",
            "                          code 3). (default: 30.0)",
        ]
        #expect(Self.badlySpaced(lines.joined(separator: "\n")) == [lines[0], lines[2]])
    }

    /// `confab-bench` (beside `confab`) with `arguments`; ended after 30 s, since a run of
    /// the benchmarks themselves takes minutes.
    static func bench(_ arguments: [String]) throws -> (status: Int32, stdout: String, stderr: String) {
        let bench = CLIRunner.binary.deletingLastPathComponent().appendingPathComponent("confab-bench")
        guard FileManager.default.isExecutableFile(atPath: bench.path) else {
            throw BenchMissing(path: bench.path)
        }
        let process = Process()
        process.executableURL = bench
        process.arguments = arguments
        let (output, errors) = (Pipe(), Pipe())
        process.standardOutput = output
        process.standardError = errors
        try process.run()
        if !process.waitForExit(within: 30) {
            process.terminate()
            process.waitUntilExit()
            Issue.record("confab-bench \(arguments.joined(separator: " ")) still ran after 30 s")
        }
        return (
            process.terminationStatus,
            String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self),
            String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        )
    }

    struct BenchMissing: Error, CustomStringConvertible {
        let path: String
        var description: String { "no confab-bench at \(path): build it (swift build --build-tests builds it)" }
    }

    @Test func benchHelpListsThePartsAndRunsNothing() throws {
        for flag in ["--help", "-h"] {
            let help = try Self.bench([flag])
            #expect(help.status == 0, "\(help.stderr)")
            for part in [
                "N", "--no-chat", "--no-network", "--no-send", "--no-pipe", "--no-sim", "--no-file", "--file-crypto",
                "--send-path",
            ] {
                #expect(help.stdout.contains("  \(part) "), "\(flag) does not list \(part)")
            }
            #expect(help.stdout.contains("CONFAB_BENCH_SIM") && help.stdout.contains("CONFAB_BENCH_FILE_MB"))
            #expect(!help.stdout.contains("ceiling   raw"), "it ran the benchmark")
        }
    }

    @Test func benchRefusesAnUnknownArgumentBeforeRunningAnything() throws {
        let wrong = try Self.bench(["--no-chat", "--no-simulation"])
        #expect(wrong.status == 2)
        #expect(wrong.stdout.isEmpty, "it ran something: \(wrong.stdout)")
        #expect(wrong.stderr.hasPrefix("confab-bench: unknown argument \"--no-simulation\""))
        #expect(wrong.stderr.contains("usage: confab-bench"))
    }
}
