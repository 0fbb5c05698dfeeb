import ConfabCrypto
import ConfabModel
import ConfabStore
import ConfabWire
import Foundation
import Testing

@testable import ConfabSync

@Suite struct SyncEngineTests {
    let harness: SyncHarness
    let alice: SyncHarness.Node
    let bob: SyncHarness.Node
    let carol: SyncHarness.Node

    init() throws {
        (harness, alice, bob, carol) = try SyncHarness.trio()
    }

    @Test func queuedMessagesLeaveOnConnectAndMoveToDeliveredThenRead() throws {
        let (id, _) = try alice.store.createConversation(with: [bob.id], title: "plans", firstMessage: "hi bob")
        _ = try alice.store.sendMessage("are you there?", to: id)
        #expect(try alice.store.history(id).map(\.status) == [.sending, .sending])

        harness.connect(alice, bob)
        try harness.run()
        #expect(try bob.store.texts(id) == ["hi bob", "are you there?"])
        #expect(try bob.store.conversation(id)?.title == "plans")
        #expect(try bob.store.unreadCount(id) == 2)
        // Bob's node stored them and said so with a receipt: delivered.
        #expect(try alice.store.history(id).map(\.status) == [.delivered, .delivered])
        #expect(try alice.store.outbox().isEmpty)

        // Bob reads: the read receipt travels live.
        let receipt = try #require(try bob.store.markRead(id))
        try harness.wrote([receipt], at: bob)
        try harness.run()
        #expect(try alice.store.history(id).map(\.status) == [.read, .read])
    }

    @Test func sentWhenAPeerHoldsItBeforeAnyReceipt() throws {
        // A relay holds the message but is not a participant: the status is "sent".
        let relay = try SyncHarness.Node(name: "relay", seed: 9, role: .relay)
        harness.add(relay)
        let (id, _) = try alice.store.createConversation(with: [bob.id], firstMessage: "for bob, via the relay")
        harness.connect(alice, relay)
        try harness.run()
        #expect(try alice.store.history(id).map(\.status) == [.sent])
        #expect(try relay.store.clock(of: id) == alice.store.clock(of: id))
        // The relay cannot read it.
        #expect(try relay.store.conversations(.all).isEmpty)

        harness.disconnect(alice, relay)
        harness.connect(bob, relay)
        try harness.run()
        #expect(try bob.store.texts(id) == ["for bob, via the relay"])
        // Bob's delivered receipt waits at the relay until Alice comes back.
        harness.connect(alice, relay)
        try harness.run()
        #expect(try alice.store.history(id).map(\.status) == [.delivered])
    }

    @Test func livePushBothWays() throws {
        let (id, _) = try alice.store.createConversation(with: [bob.id])
        harness.connect(alice, bob)
        try harness.run()
        for i in 0..<5 {
            try harness.wrote([try alice.store.sendMessage("a\(i)", to: id)], at: alice)
            try harness.run()
            try harness.wrote([try bob.store.sendMessage("b\(i)", to: id)], at: bob)
            try harness.run()
        }
        let expected = (0..<5).flatMap { ["a\($0)", "b\($0)"] }
        #expect(try alice.store.texts(id) == expected)
        #expect(try bob.store.texts(id) == expected)
    }

    @Test func groupMessagesTravelThroughAParticipantInTheMiddle() throws {
        let (id, first) = try alice.store.createConversation(with: [bob.id, carol.id], firstMessage: "hello all")
        _ = first
        harness.connect(alice, bob)
        harness.connect(bob, carol)
        try harness.run()
        #expect(try carol.store.texts(id) == ["hello all"])
        try harness.wrote([try carol.store.sendMessage("hi from carol", to: id)], at: carol)
        try harness.run()
        #expect(try alice.store.texts(id) == ["hello all", "hi from carol"])
        // Delivered needs both Bob's and Carol's receipts; Carol's came through Bob.
        #expect(try alice.store.history(id).first?.status == .delivered)
    }

    @Test func partitionWithWritesOnBothSidesHealsToIdenticalHistories() throws {
        let (id, _) = try alice.store.createConversation(with: [bob.id, carol.id], firstMessage: "start")
        harness.connect(alice, bob)
        harness.connect(alice, carol)
        try harness.run()
        harness.disconnect(alice, bob)
        harness.disconnect(alice, carol)
        for i in 0..<20 {
            _ = try alice.store.sendMessage("alice \(i)", to: id)
            _ = try bob.store.sendMessage("bob \(i)", to: id)
            _ = try carol.store.sendMessage("carol \(i)", to: id)
        }
        harness.connect(bob, carol)
        try harness.run()
        harness.connect(alice, bob)
        try harness.run()
        let reference = try alice.store.texts(id)
        #expect(reference.count == 61)
        #expect(try bob.store.texts(id) == reference)
        #expect(try carol.store.texts(id) == reference)
        let (a, b, c) = (try alice.store.clock(of: id), try bob.store.clock(of: id), try carol.store.clock(of: id))
        #expect(
            a == b, "alice \(a) bob \(b) carol \(c); a \(alice.id.shortHex) b \(bob.id.shortHex) c \(carol.id.shortHex)"
        )
        #expect(c == b)
    }

    @Test func largeSyncFlowsInBoundedBatches() throws {
        bob.engine.configuration.batchSize = 100
        alice.engine.configuration.batchSize = 100
        alice.engine.configuration.window = 300
        let (id, _) = try alice.store.createConversation(with: [bob.id])
        var texts: [String] = []
        for chunk in 0..<10 {
            let batch = (0..<300).map { "message \(chunk * 300 + $0)" }
            _ = try alice.store.sendMessages(batch, to: id)
            texts += batch
        }
        harness.connect(alice, bob)
        let messages = try harness.run()
        #expect(try bob.store.texts(id) == texts)
        // 3001 entries in batches of at most 100: well over 30 Entries messages, no duplicates.
        #expect(messages > 30)
        #expect(try bob.store.clock(of: id)[alice.id] == 3001)
    }

    @Test func largeEntriesAreSplitSoNoMessageExceedsTheLimit() throws {
        // 40 entries of about 30 KB: 256 of them would make a message of 8 MB; 40 make 1.2 MB,
        // over the 1 MiB a receiver accepts (the harness decodes every message with the limit).
        let (id, _) = try alice.store.createConversation(with: [bob.id])
        let texts = (0..<40).map { String(repeating: "\($0 % 10)", count: 30_000) }
        _ = try alice.store.sendMessages(texts, to: id)
        harness.connect(alice, bob)
        try harness.run()
        #expect(try bob.store.texts(id) == texts)
        let batches = harness.log.filter { $0.from == alice.id }.compactMap { item -> Int? in
            guard case .entries(let entries) = item.message else { return nil }
            return entries.count
        }
        #expect(batches.count >= 2 && batches.reduce(0, +) == 41)
    }

    @Test func outstandingEntriesCountDownToZeroAsASyncProceeds() throws {
        alice.engine.configuration.batchSize = 50
        alice.engine.configuration.window = 50
        let (id, _) = try alice.store.createConversation(with: [bob.id])
        _ = try alice.store.sendEach((0..<500).map { "m\($0)" }, to: id)
        #expect(try bob.engine.outstandingEntries() == 0)
        harness.connect(alice, bob)
        var seen: [Int] = []
        while try harness.run(limit: 1) > 0 {
            seen.append(try bob.engine.outstandingEntries())
        }
        // Alice's clock announces 501 entries; what a peer announced counts once the
        // conversation is held here (the first batch), then counts down to none.
        let peak = try #require(seen.max())
        #expect(peak == 501 - 50)
        #expect(seen.last == 0)
        #expect(
            zip(seen.drop(while: { $0 < peak }), seen.drop(while: { $0 < peak }).dropFirst()).allSatisfy { $0 >= $1 })
        #expect(try bob.store.clock(of: id)[alice.id] == 501)
    }

    @Test func reconnectMidSyncResumesWithoutLossOrDuplicates() throws {
        alice.engine.configuration.batchSize = 50
        alice.engine.configuration.window = 50
        let (id, _) = try alice.store.createConversation(with: [bob.id])
        _ = try alice.store.sendEach((0..<500).map { "m\($0)" }, to: id)
        harness.connect(alice, bob)
        // Deliver only a few messages, then cut the session.
        try harness.run(partial: 6)
        harness.disconnect(alice, bob)
        let partial = try bob.store.texts(id).count
        #expect(partial > 0 && partial < 500)
        harness.connect(alice, bob)
        try harness.run()
        #expect(try bob.store.texts(id) == (0..<500).map { "m\($0)" })
    }

    @Test func anOutsidersEntryIsRefusedWithoutClosingTheSession() throws {
        let (id, _) = try alice.store.createConversation(with: [bob.id], firstMessage: "genuine")
        harness.connect(alice, bob)
        try harness.run()
        let before = try bob.store.clock(of: id)
        // Carol is not a participant but signs a message for the conversation.
        let forged = EntryCodec.sign(
            EntryDraft(
                conversationID: id, seq: 1, previous: nil, timestamp: 0, clock: VectorClock(),
                body: .message(sealed: [UInt8](repeating: 1, count: 64))), with: carol.keys)
        let output = try bob.engine.handle(.entries([EntryCodec.encode(forged)]), from: alice.id)
        // Whether Carol is a participant depends on the create entry this node holds, so
        // the forwarder may be honest: not stored, counted, and the session goes on.
        #expect(output.misbehavior == nil)
        #expect(output.notStored == ["not_participant": 1])
        #expect(try bob.store.clock(of: id) == before)
        // An entry that is invalid whatever the receiver holds still ends the session.
        var tampered = EntryCodec.encode(forged)
        tampered[tampered.count - 1] ^= 1
        #expect(try bob.engine.handle(.entries([tampered]), from: alice.id).misbehavior != nil)
    }

    @Test func entriesReceivedFromAPeerAreNeverSentBackToIt() throws {
        let (id, _) = try alice.store.createConversation(with: [bob.id], firstMessage: "before")
        harness.connect(alice, bob)
        try harness.run()
        // Written during the session: Alice pushes them, Bob stores them and answers with
        // his acknowledgement and a delivered receipt, which must not carry them back.
        for i in 0..<3 {
            try harness.wrote([try alice.store.sendMessage("live \(i)", to: id)], at: alice)
            try harness.run()
        }
        #expect(try bob.store.texts(id) == ["before", "live 0", "live 1", "live 2"])
        let echoed = harness.log.filter { $0.from == bob.id && $0.to == alice.id }.flatMap { item in
            guard case .entries(let entries) = item.message else { return [Entry]() }
            return entries.compactMap { try? EntryCodec.decodeUnverified($0) }.filter { $0.author == alice.id }
        }
        #expect(echoed.map(\.seq) == [])
        #expect(try alice.store.history(id).map(\.status) == [.delivered, .delivered, .delivered, .delivered])
    }

    @Test func messagesBeforeHelloAreMisbehavior() throws {
        bob.engine.peerConnected(alice.id)
        let output = try bob.engine.handle(.clocks([]), from: alice.id)
        #expect(output.misbehavior == "clocks before hello")
    }

    @Test func conversationsAreOnlyOfferedToTheirParticipants() throws {
        let (secret, _) = try alice.store.createConversation(with: [carol.id], firstMessage: "carol only")
        let (shared, _) = try alice.store.createConversation(with: [bob.id], firstMessage: "bob too")
        harness.connect(alice, bob)
        try harness.run()
        #expect(try bob.store.texts(shared) == ["bob too"])
        #expect(try bob.store.clock(of: secret).isEmpty)
    }
}

extension SyncHarness {
    /// Delivers at most `partial` messages, leaving the rest queued.
    func run(partial: Int) throws {
        try run(maxMessages: Int.max, limit: partial)
    }
}
