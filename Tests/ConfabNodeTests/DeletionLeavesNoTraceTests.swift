import Foundation
import Testing

/// Deleted means gone from the disk: after a message is deleted for everyone (by its author
/// here, or arriving from a peer) or a conversation is deleted here, no file under the data
/// directory holds its words, while the node runs (within a few seconds), after a clean
/// stop, and after a kill -9 and the next start. Real `confab up` processes on 127.0.0.1.
///
/// The words are found the way a forensic look would: as bytes anywhere in any file (the
/// database, its write-ahead log and shared memory, the files store). Each word ends in
/// random hex, so the search index, which stores a word's tail after what it shares with
/// the word before it, holds the tail whole; the searches look for the tails, and first
/// prove, before each deletion, that they find them.
@Suite(.serialized) struct DeletionLeavesNoTraceTests {
    /// A word no other message shares, and the tail that every copy of it holds.
    private struct Secret {
        let word: String
        var tail: String { String(word.suffix(16)) }

        init(_ label: String) {
            let hex = (0..<8).map { _ in String(format: "%02x", UInt8.random(in: 0...255)) }.joined()
            word = "\(label)\(hex)"
        }
    }

    /// Paths under `directory` (recursively) whose bytes contain `text`, with how often.
    private static func holders(of text: String, under directory: URL) -> [String: Int] {
        let needle = Data(text.utf8)
        var found: [String: Int] = [:]
        let files = FileManager.default.enumerator(at: directory, includingPropertiesForKeys: [.isRegularFileKey])
        while let url = files?.nextObject() as? URL {
            guard (try? url.resourceValues(forKeys: [.isRegularFileKey]))?.isRegularFile == true,
                let data = try? Data(contentsOf: url)
            else { continue }
            var count = 0
            var start = data.startIndex
            while let range = data.range(of: needle, in: start..<data.endIndex) {
                count += 1
                start = range.upperBound
            }
            if count > 0 { found[url.lastPathComponent] = count }
        }
        return found
    }

    private static func waitUntilGone(_ secrets: [Secret], from node: NodeProcess, _ when: String) async throws {
        var left: [String: Int] = [:]
        do {
            try await waitUntil(timeout: 10, "\(when): no file of \(node.name)'s to hold the words") {
                left = secrets.reduce(into: [:]) { all, secret in
                    all.merge(holders(of: secret.tail, under: node.data)) { $0 + $1 }
                }
                return left.isEmpty
            }
        } catch {
            Issue.record("\(when): \(node.name)'s files still hold deleted words: \(left)")
        }
    }

    /// A current text is held at least twice (as text, and in the search index); a text an
    /// edit replaced, at least once (in the edit trail).
    private static func expectHeld(_ secret: Secret, by node: NodeProcess, _ when: String, atLeast: Int = 2) {
        let held = holders(of: secret.tail, under: node.data).values.reduce(0, +)
        #expect(
            held >= atLeast, "\(when): \(node.name)'s files hold \(secret.word) \(held) time(s) before its deletion")
    }

    private static func history(_ node: NodeProcess, _ peer: String) throws -> [[String: Any]] {
        (try? node.cli(["history", peer, "--json", "--no-mark-read"]).json() as? [[String: Any]]) ?? []
    }

    /// Alice and Bob's `confab up` on 127.0.0.1 (Bob dials Alice), stopped after `body`.
    private func withPair(_ body: (NodeProcess, NodeProcess, URL) async throws -> Void) async throws {
        let root = try temporaryRoot()
        defer { try? FileManager.default.removeItem(at: root) }
        let nodes = try NodeProcess.acquainted(["alice", "bob"], root: root)
        defer { for node in nodes { try? node.stop() } }
        try nodes[0].start(discovery: false)
        try nodes[1].start(discovery: false, extra: ["--peer", nodes[0].address])
        try await body(nodes[0], nodes[1], root)
    }

    @Test func unsentMessagesLeaveNoWordOnEitherDiskWhileRunningAndAfterAStop() async throws {
        try await withPair { alice, bob, _ in
            // The defect depended on when the last checkpoint ran: a few rounds.
            for round in 1...3 {
                let first = Secret("quokka"), second = Secret("zebra")
                #expect(
                    try alice.cli(["send", "bob", "round \(round) \(first.word)", "--wait", "--timeout", "30"]).status
                        == 0)
                let edited = try alice.cli(["edit", "bob", "--last", "round \(round) \(second.word)", "--json"])
                #expect(edited.status == 0, "\(edited.stderr)")
                try await waitUntil(timeout: 30, "bob to show round \(round)'s edit") {
                    try Self.history(bob, "alice").last?["text"] as? String == "round \(round) \(second.word)"
                }
                for node in [alice, bob] {
                    Self.expectHeld(first, by: node, "round \(round)", atLeast: 1)
                    Self.expectHeld(second, by: node, "round \(round)")
                }
                let target = try #require(try Self.history(alice, "bob").last?["seq"] as? Int)
                #expect(try alice.cli(["unsend", "bob", "--seq", "\(target)", "--yes"]).status == 0)
                try await waitUntil(timeout: 30, "bob to show round \(round)'s deletion") {
                    try Self.history(bob, "alice").last?["deleted"] as? Bool == true
                }
                try await Self.waitUntilGone([first, second], from: alice, "round \(round), the author")
                try await Self.waitUntilGone([first, second], from: bob, "round \(round), the receiver")
            }

            // A clean stop leaves no write-ahead log behind, so nothing a later write could
            // resurrect either.
            for node in [alice, bob] {
                try node.stop()
                let files = try FileManager.default.contentsOfDirectory(atPath: node.data.path)
                #expect(!files.contains { $0.hasSuffix("-wal") }, "\(node.name) left a write-ahead log: \(files)")
                #expect(!files.contains { $0.hasSuffix("-shm") }, "\(node.name) left shared memory: \(files)")
            }
        }
    }

    /// A file deleted for everyone: its name leaves both disks, and its content, which the
    /// files store keeps encrypted, was never there in the clear.
    @Test func anUnsentFileLeavesNeitherItsNameNorItsContent() async throws {
        try await withPair { alice, bob, root in
            let name = Secret("heron"), content = Secret("marmot")
            let source = root.appendingPathComponent("\(name.word).txt")
            try Data(String(repeating: "\(content.word)\n", count: 64).utf8).write(to: source)
            let file = try #require(try alice.sendFiles(to: "bob", [source.path]).first)
            try await bob.waitForFile(file)
            for node in [alice, bob] { Self.expectHeld(name, by: node, "before the file's deletion", atLeast: 1) }
            let target = try #require(try Self.history(alice, "bob").last?["seq"] as? Int)
            #expect(try alice.cli(["unsend", "bob", "--seq", "\(target)", "--yes"]).status == 0)
            try await waitUntil(timeout: 30, "bob to show the file's deletion") {
                try Self.history(bob, "alice").last?["deleted"] as? Bool == true
            }
            try await Self.waitUntilGone([name, content], from: alice, "an unsent file, the author")
            try await Self.waitUntilGone([name, content], from: bob, "an unsent file, the receiver")
        }
    }

    /// `node` killed with SIGKILL and started again where its peers know it; then no file
    /// of it may hold `secret`: it scrubbed before it served.
    private static func killAndRestart(
        _ node: NodeProcess, peerAddress: String?, expectGone secret: Secret, _ when: String
    ) throws {
        node.killHard()
        try node.start(
            listenPort: node.port, discovery: false, extra: peerAddress.map { ["--peer", $0] } ?? [])
        let held = holders(of: secret.tail, under: node.data)
        #expect(held.isEmpty, "\(when): \(node.name)'s node serves again with the deleted words on disk: \(held)")
    }

    /// Alice sends `secret` and Bob shows it; returns its seq.
    private static func deliver(_ secret: Secret, from alice: NodeProcess, to bob: NodeProcess) async throws -> Int {
        #expect(try alice.cli(["send", "bob", secret.word, "--wait", "--timeout", "30"]).status == 0)
        try await waitUntil(timeout: 30, "bob to have \(secret.word)") {
            try history(bob, "alice").last?["text"] as? String == secret.word
        }
        expectHeld(secret, by: bob, "before its deletion")
        return try #require(try history(alice, "bob").last?["seq"] as? Int)
    }

    /// Each case killed the moment its deletion shows, before or while it is scrubbed, a few
    /// times over: the receiver of an unsend, its author, a conversation deleted here.
    @Test func aDeletionCutByKillNineIsScrubbedBeforeTheNextStartServes() async throws {
        try await withPair { alice, bob, _ in
            for round in 1...3 {
                let received = Secret("walrus")
                var target = try await Self.deliver(received, from: alice, to: bob)
                #expect(try alice.cli(["unsend", "bob", "--seq", "\(target)", "--yes"]).status == 0)
                try await waitUntil(timeout: 30, "bob to show round \(round)'s deletion", every: 0.01) {
                    try Self.history(bob, "alice").last?["deleted"] as? Bool == true
                }
                try Self.killAndRestart(
                    bob, peerAddress: alice.address, expectGone: received, "round \(round), received")

                let mine = Secret("narwhal")
                target = try await Self.deliver(mine, from: alice, to: bob)
                #expect(try alice.cli(["unsend", "bob", "--seq", "\(target)", "--yes"]).status == 0)
                try Self.killAndRestart(alice, peerAddress: nil, expectGone: mine, "round \(round), unsent")
                try await waitUntil(timeout: 30, "bob to be back with alice") {
                    try bob.onlinePeers().contains("alice")
                }

                let conversation = Secret("tapir")
                _ = try await Self.deliver(conversation, from: alice, to: bob)
                #expect(try bob.cli(["delete", "alice", "--yes"]).status == 0)
                try Self.killAndRestart(
                    bob, peerAddress: alice.address, expectGone: conversation, "round \(round), deleted")
            }
        }
    }

    @Test func aConversationDeletedHereLeavesNoWordAndTheOtherKeepsIt() async throws {
        try await withPair { alice, bob, _ in
            let secrets = [Secret("ibis"), Secret("okapi")]
            for secret in secrets {
                #expect(try alice.cli(["send", "bob", secret.word, "--wait", "--timeout", "30"]).status == 0)
            }
            try await waitUntil(timeout: 30, "bob to have both messages") {
                try Self.history(bob, "alice").count == secrets.count
            }
            for secret in secrets { Self.expectHeld(secret, by: bob, "before the deletion") }
            let deleted = try bob.cli(["delete", "alice", "--yes"])
            #expect(deleted.status == 0, "\(deleted.stderr)")
            try await Self.waitUntilGone(secrets, from: bob, "a conversation deleted here")
            // Deleted here only: Alice's machine keeps her conversation.
            for secret in secrets { Self.expectHeld(secret, by: alice, "after Bob's deletion") }
            // And after a clean stop, nothing either.
            try bob.stop()
            try await Self.waitUntilGone(secrets, from: bob, "a conversation deleted here, stopped")

            // The same with no node running: the command scrubs before it returns.
            try alice.stop()
            let offline = try alice.cli(["delete", "bob", "--yes"])
            #expect(offline.status == 0, "\(offline.stderr)")
            let held = secrets.reduce(into: [String: Int]()) { all, secret in
                all.merge(Self.holders(of: secret.tail, under: alice.data)) { $0 + $1 }
            }
            #expect(held.isEmpty, "alice's files still hold the words after an offline delete: \(held)")
        }
    }
}
