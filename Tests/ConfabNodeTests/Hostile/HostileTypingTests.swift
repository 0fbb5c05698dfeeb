import ConfabModel
import ConfabWire
import Foundation
import Testing

/// Typing messages from a scripted peer to a real node (Protocol.md §10.2, §15): only a
/// participant's, about a conversation the node holds, is shown; a flood is dropped beyond
/// the rate and ends nothing.
@Suite(.serialized) struct HostileTypingTests {
    func typingEvents(_ watch: EventWatch) -> [[String: Any]] {
        watch.events.filter { $0["event"] as? String == "typing" }
    }

    @Test func typingAboutAConversationThePeerIsNotInOrAFloodChangesNothing() async throws {
        let root = try temporaryRoot()
        let nodes = try NodeProcess.acquainted(["alice", "bob"], root: root)
        let alice = nodes[0]
        let mallory = try HostilePeer(name: "mallory")
        try alice.cli(["peers", "add", mallory.id.hex, "--name", "mallory"])
        try alice.cli(["new", "bob", "mallory", "--title", "Plans", "--message", "hi all"])
        let group = try alice.newestConversation()
        try alice.cli(["new", "bob", "--message", "just us"])
        let theirs = try alice.newestConversation()
        #expect(theirs != group)
        try alice.start(discovery: false)
        defer {
            try? alice.stop()
            Task { await mallory.shutdown() }
        }
        let watch = try EventWatch(alice)
        defer { watch.stop() }
        try await watch.waitUntilSubscribed()
        try await mallory.connect(to: alice)
        try await mallory.takeConversation(group, from: alice) { (try? mallory.store.history(group))?.count == 1 }

        // About Alice and Bob's thread, and about a thread that does not exist.
        try mallory.send(
            [
                .typing(.init(conversation: theirs, active: true)),
                .typing(.init(conversation: .random(), active: true)),
            ],
            to: alice)
        try await mallory.barrier(with: alice)
        // The truth, which is shown: the test could have seen the lies.
        try mallory.send(.typing(.init(conversation: group, active: true)), to: alice)
        try await watch.waitFor("mallory typing in the group") { events in
            events.contains {
                $0["event"] as? String == "typing" && $0["conversation"] as? String == group.hex
                    && $0["author"] as? String == mallory.id.hex && $0["authorName"] as? String == "mallory"
                    && $0["active"] as? Bool == true
            }
        }
        #expect(typingEvents(watch).count == 1, "\(watch.text)")

        // 2,000 stops and starts in one go: at most the burst and the rate get through.
        let shown = typingEvents(watch).count
        let flooded = ContinuousClock.now
        let flood = (0..<1000).flatMap { _ in
            [
                SessionMessage.typing(.init(conversation: group, active: false)),
                .typing(.init(conversation: group, active: true)),
            ]
        }
        try mallory.send(flood, to: alice)
        try await mallory.barrier(with: alice)
        let seconds = Double((ContinuousClock.now - flooded) / .seconds(1))
        #expect(Double(typingEvents(watch).count - shown) <= 10 + 2 * seconds + 1, "\(watch.text.suffix(2000))")
        #expect(try mallory.isConnected(to: alice))
        #expect(alice.logLines("typing messages from \(mallory.id.shortHex) over the rate") == 1)
        #expect(!alice.log.contains("closing session with \(mallory.id.shortHex)"))
    }
}
