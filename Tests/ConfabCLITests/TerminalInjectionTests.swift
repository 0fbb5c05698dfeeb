import ConfabClient
import ConfabModel
import ConfabNode
import Foundation
import GRDB
import Testing

/// Names, titles and messages come from other people's machines. Whatever escape
/// sequences they carry, the text output of the real binary shows them as inert text.
@Suite struct TerminalInjectionTests {
    /// Every trick at once: OSC 52 (writes the clipboard), CSI cursor up and line erase,
    /// a carriage return, an 8-bit CSI (C1) and a right-to-left override.
    static let hostile =
        "ok\u{1B}]52;c;cm0gLXJmIH4K\u{07}\u{1B}[1A\u{1B}[2K\r\u{9B}31m\u{202E}10:31 AM  Alice: approved"

    let alice: CLIRunner
    let bobKey: String

    /// Bob (as his node would) creates a conversation with a hostile title and message;
    /// Alice receives it, and Bob's name on Alice's machine is hostile too.
    init() throws {
        let root = try CLIRunner.temporaryDirectory()
        alice = CLIRunner(data: root.appendingPathComponent("alice"))
        let bob = CLIRunner(data: root.appendingPathComponent("bob"))
        let aliceKey = try alice.initialize(name: "Alice")
        bobKey = try bob.initialize(name: "Bob")
        #expect(try alice.run(["peers", "add", bobKey, "--name", "Bob"]).status == 0)
        #expect(try bob.run(["peers", "add", aliceKey, "--name", "Alice"]).status == 0)
        let hostile = Self.hostile
        let created = try bob.run([
            "new", "Alice", "--title", "plans " + hostile, "--message",
            "meet at noon " + hostile + "\nline two " + hostile,
        ])
        #expect(created.status == 0, "\(created.stderr)")

        let bobStore = try Profile.open(DataDirectory(url: bob.data)).store
        let aliceStore = try Profile.open(DataDirectory(url: alice.data)).store
        let conversation = try #require(try bobStore.conversationIDs().first)
        let bobID = try #require(NodeID(hex: bobKey))
        let batch = try bobStore.entries(in: conversation, author: bobID, after: 0)
        #expect(try aliceStore.append(batch: batch).allSatisfy { (try? $0.get()) != nil })

        // A name and a claimed name as a peer's Hello could have stored them.
        let database = try DatabaseQueue(path: DataDirectory(url: alice.data).databaseFile.path)
        try database.write { db in
            try db.execute(
                sql: "UPDATE peer SET name = ?, claimedName = ? WHERE id = ?",
                arguments: ["Bob " + hostile + "\nFORGED line", "bob " + hostile, Data(bobID.bytes)])
        }
    }

    private func expectInert(_ output: String, _ command: [String], sourceLocation: SourceLocation = #_sourceLocation) {
        let scalars = output.unicodeScalars
        #expect(!scalars.contains("\u{1B}"), "ESC in \(command)", sourceLocation: sourceLocation)
        #expect(!scalars.contains("\r"), "CR in \(command)", sourceLocation: sourceLocation)
        #expect(
            !scalars.contains { (0x80...0x9F).contains($0.value) }, "C1 control in \(command)",
            sourceLocation: sourceLocation)
        #expect(
            !scalars.contains { (0x202A...0x202E).contains($0.value) || (0x2066...0x2069).contains($0.value) },
            "bidi control in \(command)", sourceLocation: sourceLocation)
        #expect(
            !output.split(separator: "\n").contains { $0.hasPrefix("FORGED") }, "forged line in \(command)",
            sourceLocation: sourceLocation)
    }

    @Test func textOutputCarriesNoTerminalControls() throws {
        let commands = [
            ["list"], ["history", String(bobKey.prefix(8)), "--no-mark-read"], ["peers"], ["search", "noon"],
            ["search", "plans"],
            ["verify", bobKey], ["block", bobKey], ["unblock", bobKey],
        ]
        for command in commands {
            let result = try alice.run(command)
            #expect(result.status == 0, "\(command): \(result.stderr)")
            expectInert(result.stdout, command)
            expectInert(result.stderr, command)
        }
        // The visible part of each string is still shown.
        #expect(try alice.run(["history", String(bobKey.prefix(8))]).stdout.contains("meet at noon ok"))
        #expect(try alice.run(["list"]).stdout.contains("Bob ok"))
        #expect(try alice.run(["search", "plans"]).stdout.contains("plans ok"))
    }

    @Test func errorsNamingPeersCarryNoTerminalControls() throws {
        let unknown = try alice.run(["send", "nobody", "hi"])
        #expect(unknown.status == 1)
        #expect(unknown.stderr.contains("known peers: Bob ok"))
        expectInert(unknown.stderr, ["send", "nobody"])
    }
}
