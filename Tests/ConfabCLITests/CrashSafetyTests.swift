import ConfabClient
import ConfabCrypto
import ConfabModel
import ConfabNode
import ConfabStore
import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// Nothing acknowledged is ever lost: a writer killed with SIGKILL at random moments in a
/// burst leaves a store that opens, passes SQLite's integrity check, and holds every
/// message whose `send` had reported it saved.
@Suite struct CrashSafetyTests {
    @Test func killNineMidBurstLosesNothingAcknowledged() throws {
        let root = try CLIRunner.temporaryDirectory()
        let alice = CLIRunner(data: root.appendingPathComponent("alice"))
        let bob = CLIRunner(data: root.appendingPathComponent("bob"))
        _ = try alice.initialize(name: "Alice")
        let bobKey = try bob.initialize(name: "Bob")
        try alice.run(["peers", "add", bobKey, "--name", "Bob"])

        var generator = SystemRandomNumberGenerator()
        var acknowledged: [String] = []
        let rounds = 25
        for round in 0..<rounds {
            let input = root.appendingPathComponent("input-\(round)")
            let lines = (0..<4000).map { "round \(round) message \($0)" }
            try (lines.joined(separator: "\n") + "\n").write(to: input, atomically: true, encoding: .utf8)
            let output = root.appendingPathComponent("acks-\(round)")
            _ = FileManager.default.createFile(atPath: output.path, contents: nil)

            let process = Process()
            process.executableURL = CLIRunner.binary
            process.arguments = ["--data", alice.data.path, "send", "bob", "--lines", "--json"]
            process.standardInput = try FileHandle(forReadingFrom: input)
            process.standardOutput = try FileHandle(forWritingTo: output)
            process.standardError = FileHandle.nullDevice
            try process.run()
            // Kill at a random moment: one round in five at once (before or about the first
            // commit), the others mid-burst, once a random number of messages has been
            // acknowledged: counted, not timed, so that a slow machine kills as far into the
            // burst as a fast one.
            if round % 5 == 0 {
                usleep(UInt32.random(in: 0...20_000, using: &generator))
            } else {
                let target = Int.random(in: 1...200, using: &generator)
                let deadline = Date().addingTimeInterval(60)
                while process.isRunning, Date() < deadline, try lineCount(output) < target { usleep(2_000) }
            }
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
            #expect(process.terminationReason == .uncaughtSignal, "round \(round): the writer finished before the kill")

            // Every line on stdout is one acknowledged message, in input order. A line cut
            // by the kill is not an acknowledgement.
            let acks = String(decoding: try Data(contentsOf: output), as: UTF8.self).split(
                separator: "\n", omittingEmptySubsequences: false)
            let complete = acks.dropLast().filter { $0.hasSuffix("}") }
            acknowledged += lines.prefix(complete.count)

            // The store opens and is sound after every kill.
            let node = try Profile.open(DataDirectory(url: alice.data))
            #expect(try node.store.integrityCheck() == ["ok"])
        }

        let node = try Profile.open(DataDirectory(url: alice.data))
        let conversation = try #require(try node.store.latestConversation(with: NodeID(hex: bobKey)!))
        let stored = Set(try node.store.history(conversation, limit: 1_000_000).compactMap(\.text))
        let missing = acknowledged.filter { !stored.contains($0) }
        #expect(acknowledged.count > rounds, "the kills came too early to test anything")
        #expect(missing.isEmpty, "acknowledged but lost: \(missing.prefix(5))")
        print("crash safety: \(rounds) kills, \(acknowledged.count) acknowledged messages, \(stored.count) stored")
    }

    /// Complete lines in `file` so far.
    private func lineCount(_ file: URL) throws -> Int {
        try Data(contentsOf: file).count { $0 == UInt8(ascii: "\n") }
    }
}
