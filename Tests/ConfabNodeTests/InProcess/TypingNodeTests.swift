import ConfabModel
import ConfabStore
import Foundation
import Testing

@testable import ConfabNode

/// "Is typing…" between real nodes in this process (Protocol.md §10.2): said on the session
/// to the other participants, shown until a stop, a message, the session's end or the
/// timeout, and neither sent nor shown with the setting off.
@Suite(.serialized) struct TypingNodeTests {
    /// Alice and Bob connected, with a thread Bob has received.
    private func pairWithThread(_ nodes: InProcessNodes) async throws -> (Node, Node, ConversationID) {
        let (alice, bob) = try await nodes.pair()
        let bobEvents = bob.events()
        let sent = try await alice.messenger.send("hello", to: .newConversation(with: bob.me))
        _ = try await firstEvent(in: bobEvents, "bob stores the thread") {
            if case .message(let message) = $0 { return message.text == "hello" }
            return false
        }
        return (alice, bob, sent.conversation)
    }

    private func isTyping(_ event: NodeEvent, _ who: NodeID, _ active: Bool) -> Bool {
        if case .typing(let typing) = event { return typing.peer == who && typing.active == active }
        return false
    }

    @Test func typingThroughTheSocketsShowsAtThePeerAndAStopEndsIt() async throws {
        let nodes = try InProcessNodes()
        defer { nodes.remove() }
        let (alice, bob, conversation) = try await pairWithThread(nodes)
        let aliceSocket = try await AttachedMessenger(local: alice.local)
        let bobSocket = try await AttachedMessenger(local: bob.local)
        let bobEvents = try await bobSocket.events(for: conversation)
        try await aliceSocket.typing(true, in: conversation)
        let started = try await firstEvent(in: bobEvents, "bob hears alice typing") { isTyping($0, alice.me, true) }
        #expect(
            started == .typing(TypingEvent(conversation: conversation, peer: alice.me, name: "alice", active: true)))
        try await aliceSocket.typing(false, in: conversation)
        _ = try await firstEvent(in: bobEvents, "alice stopped") { isTyping($0, alice.me, false) }
        // Nobody else's: a conversation this node is not in is refused with a reason.
        await #expect(throws: StoreError.self) { try await alice.typing(true, in: .random()) }
        await aliceSocket.close()
        await bobSocket.close()
        await bob.stop()
        await alice.stop()
    }

    @Test func anIndicationEndsWithTheMessageTheSessionOrTheTimeout() async throws {
        let nodes = try InProcessNodes()
        defer { nodes.remove() }
        let (alice, bob, conversation) = try await pairWithThread(nodes)
        let bobEvents = bob.events()

        try await alice.typing(true, in: conversation)
        _ = try await firstEvent(in: bobEvents, "typing") { isTyping($0, alice.me, true) }
        _ = try await alice.messenger.send("there it is", to: .conversation(conversation))
        _ = try await firstEvent(in: bobEvents, "the message ends it") { isTyping($0, alice.me, false) }

        // Not refreshed: it ends by itself, not at once.
        try await alice.typing(false, in: conversation)
        try await alice.typing(true, in: conversation)
        _ = try await firstEvent(in: bobEvents, "typing again") { isTyping($0, alice.me, true) }
        let shown = ContinuousClock.now
        _ = try await firstEvent(in: bobEvents, "the timeout ends it") { isTyping($0, alice.me, false) }
        #expect(ContinuousClock.now - shown > .seconds(4))

        try await alice.typing(false, in: conversation)
        try await alice.typing(true, in: conversation)
        _ = try await firstEvent(in: bobEvents, "typing once more") { isTyping($0, alice.me, true) }
        await alice.stop()
        _ = try await firstEvent(in: bobEvents, "alice's session ending ends it") { isTyping($0, alice.me, false) }
        await bob.stop()
    }

    /// With the setting off a node says nothing, and shows nothing of what others say. The
    /// message written after travels on the same session, after where a typing message
    /// would have, and is handled after it: no typing event before it means none was sent.
    @Test(arguments: [true, false])
    func offMeansNothingSentAndNothingShown(offAtTheTypist: Bool) async throws {
        let nodes = try InProcessNodes()
        defer { nodes.remove() }
        let (alice, bob, conversation) = try await pairWithThread(nodes)
        let bobEvents = bob.events()
        try (offAtTheTypist ? alice : bob).local.store.setTypingIndicators(false)
        try await alice.typing(true, in: conversation)
        _ = try await alice.messenger.send("no typing before me", to: .conversation(conversation))
        let seen = try await events(in: bobEvents, until: "the message") {
            if case .message(let message) = $0 { return message.text == "no typing before me" }
            return false
        }
        #expect(!seen.contains { if case .typing = $0 { true } else { false } })

        // On again, the same calls are seen: the test could have seen them. (A stop first:
        // with only Bob's setting off, Alice did say she was typing, and would not again
        // within 3 s.)
        try (offAtTheTypist ? alice : bob).local.store.setTypingIndicators(true)
        try await alice.typing(false, in: conversation)
        try await alice.typing(true, in: conversation)
        _ = try await firstEvent(in: bobEvents, "typing, the setting on") { isTyping($0, alice.me, true) }
        await bob.stop()
        await alice.stop()
    }

    @Test func turningTheSettingOffEndsWhatIsShown() async throws {
        let nodes = try InProcessNodes()
        defer { nodes.remove() }
        let (alice, bob, conversation) = try await pairWithThread(nodes)
        let bobEvents = bob.events()
        try await alice.typing(true, in: conversation)
        _ = try await firstEvent(in: bobEvents, "typing") { isTyping($0, alice.me, true) }
        let asked = ContinuousClock.now
        try bob.local.store.setTypingIndicators(false)
        _ = try await firstEvent(in: bobEvents, "the setting ends it") { isTyping($0, alice.me, false) }
        // On the node's next tick (300 ms), not the timeout's 5 s.
        #expect(ContinuousClock.now - asked < .seconds(4))
        await bob.stop()
        await alice.stop()
    }
}

/// Every event up to and including the first that `matches`.
func events(
    in events: AsyncStream<NodeEvent>, within seconds: Double = 20, until what: String,
    _ matches: @escaping @Sendable (NodeEvent) -> Bool
) async throws -> [NodeEvent] {
    try await withThrowingTaskGroup(of: [NodeEvent]?.self) { group in
        group.addTask {
            var seen: [NodeEvent] = []
            for await event in events {
                seen.append(event)
                if matches(event) { return seen }
            }
            return nil
        }
        group.addTask {
            try await Task.sleep(for: .seconds(seconds))
            return nil
        }
        defer { group.cancelAll() }
        guard let seen = try await group.next() ?? nil else {
            throw NodeProcess.Failure("no event within \(seconds) s: \(what)")
        }
        return seen
    }
}
