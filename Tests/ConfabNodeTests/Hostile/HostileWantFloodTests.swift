import ConfabCrypto
import ConfabModel
import ConfabTestSupport
import ConfabWire
import Foundation
import Testing

/// A peer that floods a real `confab up` node on loopback with requests and never reads
/// the answers: what the node keeps for it stays bounded (Protocol.md §10.7, §12.2).
@Suite(.serialized) struct HostileWantFloodTests {
    /// The resident memory of a process, from /proc (Linux; nil elsewhere).
    func residentBytes(_ pid: Int32) -> Int? {
        guard let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8),
            let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmRSS:") }),
            let kilobytes = Int(line.split(separator: " ").dropFirst().first ?? "")
        else { return nil }
        return kilobytes * 1024
    }

    @Test func wantsFromAPeerThatNeverReadsCostTheNodeOneAnswer() async throws {
        let root = try temporaryRoot()
        let alice = try NodeProcess(name: "alice", root: root, discovery: try DiscoveryPort())
        defer { try? alice.stop() }
        let mallory = try HostilePeer(name: "mallory", reading: false)
        defer { Task { await mallory.shutdown() } }
        try alice.cli(["peers", "add", mallory.id.hex, "--name", "mallory"])
        // About 1 MB of Alice's log in a conversation Mallory is in: what one Want gets.
        for n in 0..<34 {
            let sent = try alice.cli(["send", "mallory", String(repeating: "\(n % 10)", count: 30_000)])
            try #require(sent.status == 0, "\(sent.stderr)")
        }
        let id = try alice.newestConversation()
        try alice.start()
        let pid = try #require(alice.process?.processIdentifier)
        try await mallory.connect(to: alice)
        // Mallory reads nothing alice answers, so alice's log says when she has got this far:
        // an entry of a conversation she is not in, after Mallory's Hello.
        try mallory.send(.entries(try mallory.foreignEntries()), to: alice)
        try await alice.waitForLog(mallory.notStoredForeign)
        let before = try #require(residentBytes(pid))

        // 300 identical Wants in one write: 300 MB of answers if each were answered. Alice
        // is watched until she has dealt with all of them: until she logs the entry sent
        // after them.
        let want = SessionMessage.want(.init(conversation: id, author: try alice.nodeID(), after: 0))
        try mallory.send(Array(repeating: want, count: 300) + [.entries(try mallory.foreignEntries())], to: alice)
        var peak = before
        try await waitUntil(timeout: 60, "alice to deal with the Wants and the entry after them", every: 0.05) {
            peak = max(peak, residentBytes(pid) ?? 0)
            return alice.logLines(mallory.notStoredForeign) >= 2
        }
        peak = max(peak, residentBytes(pid) ?? 0)
        #expect(peak - before < 48 << 20, "alice grew by \((peak - before) >> 20) MiB")
        #expect(try alice.cli(["status"]).status == 0)
    }

    /// Mallory asks, 20 times a second for 11 s, for everything Alice holds in their
    /// conversation, with an empty clock: Alice sends it again only once what she sent has
    /// been on its way 5 s, so at most twice more, not 220 times (Protocol.md §12.5, "asked
    /// again").
    @Test func requestsForTheSameAgainAndAgainGetItAgainOnlyEveryFiveSeconds() async throws {
        let root = try temporaryRoot()
        let alice = try NodeProcess(name: "alice", root: root, discovery: try DiscoveryPort())
        defer { try? alice.stop() }
        let mallory = try HostilePeer(name: "mallory")
        defer { Task { await mallory.shutdown() } }
        try alice.cli(["peers", "add", mallory.id.hex, "--name", "mallory"])
        #expect(try alice.cli(["send", "mallory", "hello"]).status == 0)
        let id = try alice.newestConversation()
        try alice.start()
        try await mallory.connect(to: alice)
        try await mallory.takeConversation(id, from: alice) { (try? mallory.store.history(id))?.count == 1 }
        let create = try #require(
            try mallory.store.entries(in: id, author: try alice.nodeID(), after: 0, limit: 1).first)
        func copies() throws -> Int {
            try mallory.received(from: alice).reduce(0) { count, message in
                guard case .entries(let batch) = message else { return count }
                return count + batch.filter { $0 == create }.count
            }
        }
        let before = try copies()
        let request = SessionMessage.request([.init(conversation: id, clock: VectorClock())])
        for _ in 0..<220 {
            try mallory.send(request, to: alice)
            try await Task.sleep(for: .milliseconds(50))
        }
        try await mallory.barrier(with: alice)
        let again = try copies() - before
        #expect((1...2).contains(again), "sent again \(again) times")
        #expect(try alice.cli(["status"]).status == 0)
    }

    /// The Clocks flood of the review (40 messages of 4,096 made-up conversations, each
    /// with five authors at the seq limit) once cost 122 MiB that stayed after the session
    /// closed, and every further flood added as much. Now the answer is bounded and nothing
    /// is kept: a second flood, from a second session, adds next to nothing (the first one's
    /// growth is mostly the allocator keeping what it once used), and peers keep talking.
    ///
    /// Each flood here is 20 such messages (20 MB), every one of them delivered. Written all
    /// at once, as the 40 once were, they would wait in Mallory's write buffer, over the
    /// 8 MiB a session lets wait, and Mallory would hang up: the victim got what had left by
    /// then, a quarter to a half of the 40, varying from flood to flood, and so did the
    /// memory it cost (which made the comparison of two floods flaky).
    @Test func aClocksFloodOfMadeUpConversationsLeavesNothingBehind() async throws {
        let root = try temporaryRoot()
        let nodes = try NodeProcess.acquainted(["alice", "bob"], root: root, discovery: try DiscoveryPort())
        let (alice, bob) = (nodes[0], nodes[1])
        defer { for node in nodes { try? node.stop() } }
        try alice.start()
        try bob.start()
        try await waitUntil(timeout: 30, "alice and bob to meet") { try alice.onlinePeers() == ["bob"] }
        let pid = try #require(alice.process?.processIdentifier)
        let authors = (0..<5).map { _ in NodeID(SigningKeyPair.generate().publicKey) }
        let claim = VectorClock(Dictionary(uniqueKeysWithValues: authors.map { ($0, Limits.maxSeq) }))

        var resident: [Int] = [try #require(residentBytes(pid))]
        for round in 0..<2 {
            let mallory = try HostilePeer(name: "mallory\(round)")
            try await mallory.connect(to: alice)
            let flood = (0..<20).map { _ in
                SessionMessage.clocks(
                    (0..<4096).map { _ in SessionMessage.ConversationClock(conversation: .random(), clock: claim) })
            }
            // All of it reaches alice, at the pace she reads it, then an entry of a conversation
            // she is not in, which she logs once she has dealt with the flood.
            let marker = try mallory.foreignEntries()
            async let sent: Void = mallory.sendPaced(flood + [.entries(marker)], to: alice)
            // Alice and Bob keep talking during the flood.
            #expect(try bob.cli(["send", "alice", "during \(round)", "--wait", "--timeout", "60"]).status == 0)
            try await sent
            try await alice.waitForLog(mallory.notStoredForeign, timeout: 120)
            let status = try #require(try alice.cli(["status", "--json"]).json() as? [String: Any])
            #expect(status["outstanding"] as? Int == 0)
            await mallory.shutdown()
            try await waitUntil(timeout: 30, "alice to let \(mallory.name)'s session go") {
                try alice.listedPeers()[mallory.id.hex]?["connected"] as? Bool != true
            }
            resident.append(try #require(residentBytes(pid)))
        }
        print("clocks flood: alice resident \(resident.map { "\($0 >> 20) MiB" }.joined(separator: ", "))")
        #expect(resident[2] - resident[1] < 16 << 20, "the second flood added \((resident[2] - resident[1]) >> 20) MiB")
        #expect(resident[2] - resident[0] < 96 << 20, "alice kept \((resident[2] - resident[0]) >> 20) MiB")
        #expect(try alice.cli(["send", "bob", "after", "--wait", "--timeout", "30"]).status == 0)
    }
}
