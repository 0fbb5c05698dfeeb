import ConfabClient
import ConfabCrypto
import ConfabModel
import ConfabStore
import Foundation
import Testing

@testable import ConfabNode

/// "Is typing…" between real nodes in this process (Protocol.md §10.2): said on the session
/// to the other participants, shown until a stop, a message, the session's end or the
/// timeout, and neither sent nor shown with the setting off.
@Suite(.serialized) struct TypingNodeTests {
    /// Alice and Bob connected, with a thread Bob has received, and Bob's events; both are
    /// stopped after `body`.
    private func withThread(
        _ body: (_ alice: Node, _ bob: Node, ConversationID, AsyncStream<NodeEvent>) async throws -> Void
    ) async throws {
        let nodes = try InProcessNodes()
        defer { nodes.remove() }
        let (alice, bob) = try await nodes.pair()
        let bobEvents = bob.events()
        let sent = try await alice.messenger.send("hello", to: .newConversation(with: bob.me))
        _ = try await firstEvent(in: bobEvents, "bob stores the thread") {
            if case .message(let message) = $0 { return message.text == "hello" }
            return false
        }
        try await body(alice, bob, sent.conversation, bobEvents)
        await bob.stop()
        await alice.stop()
    }

    /// `typist` says it is typing (after a stop, so no earlier start holds it back), and
    /// `events` show it.
    private func startTyping(
        _ typist: Node, in conversation: ConversationID, seenIn events: AsyncStream<NodeEvent>
    ) async throws {
        try await typist.typing(false, in: conversation)
        try await typist.typing(true, in: conversation)
        _ = try await firstEvent(in: events, "typing shown") { isTyping($0, typist.me, true) }
    }

    private func isTyping(_ event: NodeEvent, _ who: NodeID, _ active: Bool) -> Bool {
        if case .typing(let typing) = event { return typing.peer == who && typing.active == active }
        return false
    }

    @Test func typingThroughTheSocketsShowsAtThePeerAndAStopEndsIt() async throws {
        try await withThread { alice, bob, conversation, _ in
            let aliceSocket = try await AttachedMessenger(local: alice.local)
            let bobSocket = try await AttachedMessenger(local: bob.local)
            let bobEvents = try await bobSocket.events(for: conversation)
            try await aliceSocket.typing(true, in: conversation)
            let started = try await firstEvent(in: bobEvents, "bob hears alice typing") {
                isTyping($0, alice.me, true)
            }
            #expect(
                started == .typing(TypingEvent(conversation: conversation, peer: alice.me, name: "alice", active: true))
            )
            try await aliceSocket.typing(false, in: conversation)
            _ = try await firstEvent(in: bobEvents, "alice stopped") { isTyping($0, alice.me, false) }
            // Nobody else's: a conversation this node is not in is refused with a reason.
            await #expect(throws: StoreError.self) { try await alice.typing(true, in: .random()) }
            await aliceSocket.close()
            await bobSocket.close()
        }
    }

    @Test func anIndicationEndsWithTheMessageTheTimeoutOrTheSession() async throws {
        try await withThread { alice, _, conversation, bobEvents in
            // The message ends it as it comes: the stop is reported just before it.
            try await startTyping(alice, in: conversation, seenIn: bobEvents)
            _ = try await alice.messenger.send("there it is", to: .conversation(conversation))
            let seen = try await events(in: bobEvents, until: "the message") {
                if case .message(let message) = $0 { return message.text == "there it is" }
                return false
            }
            #expect(seen.dropLast().contains { isTyping($0, alice.me, false) })

            // Not refreshed: it ends by itself, not at once.
            try await startTyping(alice, in: conversation, seenIn: bobEvents)
            var shown = ContinuousClock.now
            _ = try await firstEvent(in: bobEvents, "the timeout ends it") { isTyping($0, alice.me, false) }
            #expect(ContinuousClock.now - shown > .seconds(4))

            // The session's end ends it, well before the timeout would.
            try await startTyping(alice, in: conversation, seenIn: bobEvents)
            shown = ContinuousClock.now
            await alice.stop()
            _ = try await firstEvent(in: bobEvents, "alice's session ending ends it") { isTyping($0, alice.me, false) }
            #expect(ContinuousClock.now - shown < .seconds(4))
        }
    }

    /// With the setting off a node says nothing, and shows nothing of what others say. The
    /// message written after travels on the same session, after where a typing message
    /// would have, and is handled after it: no typing event before it means none was sent.
    @Test(arguments: [true, false])
    func offMeansNothingSentAndNothingShown(offAtTheTypist: Bool) async throws {
        try await withThread { alice, bob, conversation, bobEvents in
            try (offAtTheTypist ? alice : bob).local.store.setTypingIndicators(false)
            try await alice.typing(true, in: conversation)
            _ = try await alice.messenger.send("no typing before me", to: .conversation(conversation))
            let seen = try await events(in: bobEvents, until: "the message") {
                if case .message(let message) = $0 { return message.text == "no typing before me" }
                return false
            }
            #expect(!seen.contains { if case .typing = $0 { true } else { false } })
            // On again, the same calls are seen: the test could have seen them.
            try (offAtTheTypist ? alice : bob).local.store.setTypingIndicators(true)
            try await startTyping(alice, in: conversation, seenIn: bobEvents)
        }
    }

    /// Past 32 members nobody says they are typing, and a peer that says so anyway (an older
    /// node, or a lie) is not shown: what the sessions carry would grow with the group.
    /// The thread's indication that follows on the same session is the proof that the
    /// group's would have been seen.
    @Test func aGroupOfMoreThan32NeitherSaysNorShowsTyping() async throws {
        try await withThread { alice, bob, thread, bobEvents in
            let others = (0..<(Limits.maxParticipantsWithReceipts - 1)).map { _ in
                NodeID(SigningKeyPair.generate().publicKey)
            }
            let group = try await alice.messenger.create(
                with: [bob.me] + others, title: "everyone", firstMessage: "all hands"
            ).conversation
            _ = try await firstEvent(in: bobEvents, "bob stores the group") {
                if case .message(let message) = $0 { return message.text == "all hands" }
                return false
            }
            #expect(try bob.local.store.participants(of: group).count == Limits.maxParticipantsWithReceipts + 1)

            try await alice.typing(false, in: group)
            try await alice.typing(true, in: group)
            alice.sessions.session(with: bob.me)?.send(.typing(.init(conversation: group, active: true)))
            try await alice.typing(false, in: thread)
            try await alice.typing(true, in: thread)
            let seen = try await events(in: bobEvents, until: "alice typing in the thread") {
                if case .typing(let typing) = $0 { return typing.conversation == thread && typing.active }
                return false
            }
            #expect(!seen.contains { if case .typing(let typing) = $0 { typing.conversation == group } else { false } })
        }
    }

    @Test func turningTheSettingOffEndsWhatIsShown() async throws {
        try await withThread { alice, bob, conversation, bobEvents in
            try await startTyping(alice, in: conversation, seenIn: bobEvents)
            let asked = ContinuousClock.now
            try bob.local.store.setTypingIndicators(false)
            _ = try await firstEvent(in: bobEvents, "the setting ends it") { isTyping($0, alice.me, false) }
            // On the node's next tick (300 ms), not the timeout's 5 s.
            #expect(ContinuousClock.now - asked < .seconds(4))
        }
    }
}
