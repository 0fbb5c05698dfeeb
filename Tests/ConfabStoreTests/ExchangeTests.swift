import ConfabCrypto
import ConfabModel
import Foundation
import Testing

@testable import ConfabStore
@testable import ConfabWire

@Suite("Authoring and exchange")
struct ExchangeTests {
    @Test func createConversationWithFirstMessageInOneStep() throws {
        let alice = try makeStore(Keys.alice)
        let (id, message) = try alice.createConversation(
            with: [Keys.bob.id], title: "  Lunch \n", firstMessage: "hi bob", now: at(10))
        let entry = try #require(message)
        #expect(entry.seq == 2)
        #expect(entry.kind == .message)
        #expect(entry.clock == VectorClock([Keys.alice.id: 1]))
        #expect(try alice.clock(of: id) == VectorClock([Keys.alice.id: 2]))
        #expect(try alice.outbox().map(\.seq) == [1, 2])
        #expect(try alice.outbox().allSatisfy { $0.conversation == id })

        let raw = try alice.entries(in: id, author: Keys.alice.id, after: 0)
        #expect(raw.count == 2)
        let create = try EntryCodec.decodeUnverified(raw[0])
        #expect(create.kind == .create)
        #expect(try EntryCodec.decodeUnverified(raw[1]) == entry)
        #expect(entry.previous == create.hash)

        let history = try alice.history(id)
        #expect(history.map(\.text) == ["hi bob"])
        #expect(history.first?.isMine == true)
        #expect(history.first?.authorName == "You")
        #expect(history.first?.status == .sending)
        #expect(history.first?.id == "\(id.hex)/\(Keys.alice.id.hex)/2")

        let summary = try #require(try alice.conversations().first)
        #expect(summary.id == id)
        #expect(summary.title == "Lunch")
        #expect(summary.participants == [.init(id: Keys.bob.id, name: Keys.bob.id.shortHex)])
        #expect(summary.preview == "You: hi bob")
        #expect(summary.lastMessage?.status == .sending)
        #expect(summary.unreadCount == 0)
        #expect(summary.createdAt == at(10))
        #expect(summary.lastActivityAt == at(10))
    }

    @Test func createConversationWithoutMessage() throws {
        let alice = try makeStore(Keys.alice)
        let (id, message) = try alice.createConversation(with: [Keys.bob.id, Keys.carol.id, Keys.bob.id, Keys.alice.id])
        #expect(message == nil)
        #expect(try alice.clock(of: id) == VectorClock([Keys.alice.id: 1]))
        #expect(try alice.history(id).isEmpty)
        let summary = try #require(try alice.conversation(id))
        #expect(summary.title == nil)
        #expect(summary.lastMessage == nil)
        let (blank, _) = try alice.createConversation(with: [Keys.bob.id], title: " \n ")
        #expect(try alice.conversation(blank)?.title == nil)
        // Duplicates and my own id are dropped; order is the one given.
        #expect(summary.participants.map(\.id) == [Keys.bob.id, Keys.carol.id])
        let create = try EntryCodec.decodeUnverified(
            try #require(try alice.entries(in: id, author: Keys.alice.id, after: 0).first))
        guard case .create(let body) = create.body else {
            Issue.record("first entry is not a create")
            return
        }
        #expect(body.participantIDs == [Keys.alice.id, Keys.bob.id, Keys.carol.id])
    }

    @Test func invalidConversationsAreRefusedWithoutWriting() throws {
        let alice = try makeStore(Keys.alice)
        let before = try snapshot(alice)
        #expect(throws: StoreError.self) { try alice.createConversation(with: []) }
        #expect(throws: StoreError.self) { try alice.createConversation(with: [Keys.alice.id]) }
        // Real keys: a conversation key can only be sealed to a valid public key.
        // More than a large group may hold (Protocol.md §19): 1,024 others and me.
        let crowd = try (0..<Limits.maxLargeGroupMembers).map { i in
            NodeID(
                try SigningKeyPair(seed: [UInt8(i & 0xFF), UInt8(i >> 8)] + [UInt8](repeating: 7, count: 30)).publicKey)
        }
        #expect(throws: StoreError.self) { try alice.createConversation(with: crowd) }
        #expect(throws: StoreError.self) {
            try alice.createConversation(
                with: [Keys.bob.id], title: String(repeating: "t", count: Limits.maxTitleBytes + 1))
        }
        #expect(throws: StoreError.self) { try alice.createConversation(with: [Keys.bob.id], firstMessage: " \n\t ") }
        #expect(throws: StoreError.self) {
            try alice.createConversation(
                with: [Keys.bob.id], firstMessage: String(repeating: "m", count: Limits.maxMessageTextBytes + 1))
        }
        #expect(try snapshot(alice) == before)
        // The largest group still fits in one entry; past it, a large group takes the rest
        // in adds written with its create.
        let (id, _) = try alice.createConversation(with: Array(crowd.prefix(Limits.maxParticipants - 1)))
        #expect(try alice.conversation(id)?.participants.count == Limits.maxParticipants - 1)
        #expect(try !alice.isLargeGroup(id))
        let (large, _) = try alice.createConversation(with: Array(crowd.dropLast()))
        #expect(try alice.conversation(large)?.participants.count == Limits.maxLargeGroupMembers - 1)
        #expect(try alice.isLargeGroup(large))
    }

    @Test func sendingToAnUnknownConversationFails() throws {
        let alice = try makeStore(Keys.alice)
        let id = ConversationID(bytes: [UInt8](repeating: 9, count: 16))!
        #expect(throws: StoreError.unknownConversation(id.hex)) { try alice.sendMessage("hello?", to: id) }
        #expect(throws: StoreError.unknownConversation(id.hex)) { try alice.history(id) }
        #expect(throws: StoreError.unknownConversation(id.hex)) { try alice.setFlag(.pinned, true, on: id) }
        #expect(throws: StoreError.unknownConversation(id.hex)) { try alice.deleteConversation(id) }
    }

    @Test func recipientAppendsCreateThenMessageAndReadsIt() throws {
        let alice = try makeStore(Keys.alice)
        let bob = try makeStore(Keys.bob)
        try bob.savePeer(Keys.alice.id, name: "Alice")
        let (id, message) = try alice.createConversation(
            with: [Keys.bob.id], title: "Lunch", firstMessage: "hi bob", now: at(10))

        let raw = try alice.entries(in: id, author: Keys.alice.id, after: 0)
        guard case .appended(let create) = try bob.append(raw[0], now: at(11)) else {
            Issue.record("create entry not appended")
            return
        }
        #expect(create.kind == .create)
        #expect(try bob.append(raw[1], now: at(11)) == .appended(try #require(message)))
        #expect(try bob.clock(of: id) == alice.clock(of: id))

        let history = try bob.history(id)
        #expect(history.map(\.text) == ["hi bob"])
        #expect(history.first?.isMine == false)
        #expect(history.first?.authorName == "Alice")
        #expect(history.first?.status == nil)
        #expect(history.first?.sentAt == at(10))

        let summary = try #require(try bob.conversations().first)
        #expect(summary.title == "Lunch")
        #expect(summary.participants == [.init(id: Keys.alice.id, name: "Alice")])
        #expect(summary.unreadCount == 1)
        #expect(summary.preview == "hi bob")
        // Received entries are not mine to send.
        #expect(try bob.outbox().isEmpty)

        _ = try bob.sendMessage("hi alice", to: id, now: at(20))
        try sync(id, from: bob, to: alice)
        #expect(try alice.history(id).map(\.text) == ["hi bob", "hi alice"])
        #expect(try alice.history(id).map(\.id) == bob.history(id).map(\.id))
    }

    @Test func appendIsIdempotent() throws {
        let alice = try makeStore(Keys.alice)
        let bob = try makeStore(Keys.bob)
        let (id, _) = try alice.createConversation(with: [Keys.bob.id], firstMessage: "once", now: at(1))
        let raw = try alice.entries(in: id, author: Keys.alice.id, after: 0)
        for bytes in raw {
            guard case .appended = try bob.append(bytes) else {
                Issue.record("first offer not appended")
                return
            }
        }
        let held = try snapshot(bob)
        for bytes in raw { #expect(try bob.append(bytes) == .duplicate) }
        #expect(try bob.append(batch: raw).map { try $0.get() } == [.duplicate, .duplicate])
        // An author's own entries coming back from a peer are duplicates too.
        for bytes in raw { #expect(try alice.append(bytes) == .duplicate) }
        #expect(try snapshot(bob) == held)
        #expect(try bob.history(id).map(\.text) == ["once"])
    }

    @Test func sendMessagesWritesConsecutiveEntries() throws {
        let alice = try makeStore(Keys.alice)
        let (id, _) = try alice.createConversation(with: [Keys.bob.id])
        let entries = try alice.sendMessages(["one", "two", "three"], to: id, now: at(5))
        #expect(entries.map(\.seq) == [2, 3, 4])
        #expect(entries[1].previous == entries[0].hash)
        #expect(entries[2].clock == VectorClock([Keys.alice.id: 3]))
        #expect(try alice.history(id).map(\.text) == ["one", "two", "three"])
        // One bad line refuses the whole batch.
        #expect(throws: StoreError.self) { try alice.sendMessages(["four", ""], to: id) }
        #expect(try alice.clock(of: id) == VectorClock([Keys.alice.id: 4]))
    }

    @Test func batchAppendKeepsTheGoodAndRefusesTheBad() throws {
        let alice = try makeStore(Keys.alice)
        let bob = try makeStore(Keys.bob)
        let mallory = try makeStore(Keys.mallory)
        let (id, _) = try alice.createConversation(with: [Keys.bob.id], firstMessage: "m2", now: at(1))
        _ = try alice.sendEach(["m3", "m4"], to: id, now: at(2))
        let raw = try alice.entries(in: id, author: Keys.alice.id, after: 0)
        let m3 = try EntryCodec.decodeUnverified(raw[2])

        var tamperedM2 = raw[1]
        tamperedM2[tamperedM2.count - 1] ^= 0x01  // the signature is the envelope's last field
        let forkedM3 = EntryCodec.encode(
            EntryCodec.sign(
                EntryDraft(
                    conversationID: id, seq: 3, previous: m3.previous, timestamp: m3.timestamp, clock: m3.clock,
                    body: try sealedMessage("m3, rewritten", alice, in: id, author: Keys.alice.id, seq: 3)),
                with: Keys.alice))
        let outsider = EntryCodec.encode(
            EntryCodec.sign(
                EntryDraft(
                    conversationID: id, seq: 1, previous: nil, timestamp: 0, clock: VectorClock([Keys.alice.id: 1]),
                    body: .message(sealed: [UInt8](repeating: 1, count: 64))),
                with: mallory.identity))

        let batch = [raw[0], tamperedM2, raw[1], [0xde, 0xad, 0xbe, 0xef], raw[3], raw[2], forkedM3, raw[2], outsider]
        let outcomes = try bob.append(batch: batch, now: at(3)).map { result -> String in
            switch result {
            case .success(.appended): return "appended"
            case .success(.duplicate): return "duplicate"
            case .failure(let rejection): return rejection.category.rawValue
            }
        }
        // The damaged copy of m2 is still m2: m3 in the same batch names its content by
        // hash and carries a good signature (Protocol.md §7 step 3).
        #expect(
            outcomes == [
                "appended", "appended", "duplicate", "undecodable", "gap", "appended", "fork", "duplicate",
                "not_participant",
            ])
        #expect(try bob.clock(of: id) == VectorClock([Keys.alice.id: 3]))
        #expect(try bob.history(id).map(\.text) == ["m2", "m3"])
        #expect(try rowCount(bob, "entry") == 3)
        // Alice signed two different seq 3: that is kept as proof, and her log stops here.
        #expect(try bob.forkedAuthors(in: id).map(\.seq) == [3])
        try expectAppendRejected(raw[3], by: bob, .forkedAuthor)
    }

    @Test func aRelayStoresAndForwardsWithoutPlaintext() throws {
        let alice = try makeStore(Keys.alice)
        let bob = try makeStore(Keys.bob)
        let relay = try makeStore(Keys.relay)
        let (id, _) = try alice.createConversation(
            with: [Keys.bob.id], title: "Surprise party", firstMessage: "secret plans", now: at(1))
        _ = try alice.sendMessage("more secret plans", to: id, now: at(2))

        #expect(try sync(id, from: alice, to: relay, asRelay: true) == 3)
        #expect(try relay.clock(of: id) == alice.clock(of: id))
        // Held for forwarding, unreadable here.
        #expect(try relay.history(id).isEmpty)
        #expect(try relay.conversations(.all).isEmpty)
        #expect(try relay.search("secret").isEmpty)
        #expect(try rowCount(relay, "message") == 0)
        #expect(try relay.conversation(id)?.title == nil)
        let keys = try relay.writer.read { db in
            try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM conversation WHERE conversationKey IS NOT NULL")
        }
        #expect(keys == 0)
        let held = try relay.entries(in: id, author: Keys.alice.id, after: 0)
        #expect(held.count == 3)
        for bytes in held {
            #expect(!bytes.contains(subsequence: Array("secret".utf8)))
            #expect(!bytes.contains(subsequence: Array("Surprise".utf8)))
        }
        // Alice counts the relay's acknowledgement as "sent".
        #expect(try alice.history(id).map(\.status) == [.sent, .sent])

        // Bob, who never met Alice, gets everything from the relay.
        #expect(try sync(id, from: relay, to: bob) == 3)
        #expect(try bob.history(id).map(\.text) == ["secret plans", "more secret plans"])
        #expect(try bob.conversation(id)?.title == "Surprise party")

        #expect(throws: StoreError.self) { try relay.sendMessage("let me in", to: id) }
        #expect(try relay.clock(of: id) == VectorClock([Keys.alice.id: 3]))
    }

    @Test func anUndecryptableMessageIsKeptAndShownAsSuch() throws {
        let alice = try makeStore(Keys.alice)
        let bob = try makeStore(Keys.bob)
        let (id, _) = try alice.createConversation(with: [Keys.bob.id], now: at(1))
        // Sealed for seq 9 but sent as seq 2: authentic entry, body bound elsewhere.
        try author(
            alice, in: id, body: try sealedMessage("misplaced", alice, in: id, author: Keys.alice.id, seq: 9),
            now: at(2))
        try sync(id, from: alice, to: bob)
        let history = try bob.history(id)
        #expect(history.count == 1)
        #expect(history.first?.text == nil)
        #expect(try bob.conversation(id)?.lastMessage?.text == "(message could not be decrypted)")
        #expect(try bob.unreadCount(id) == 1)
    }

    @Test func clocksAndOutbox() throws {
        let alice = try makeStore(Keys.alice)
        let bob = try makeStore(Keys.bob)
        let (first, _) = try alice.createConversation(with: [Keys.bob.id], firstMessage: "a", now: at(1))
        let (second, _) = try alice.createConversation(with: [Keys.carol.id], now: at(2))
        #expect(
            try alice.allClocks() == [first: VectorClock([Keys.alice.id: 2]), second: VectorClock([Keys.alice.id: 1])])
        #expect(
            try alice.outbox().map { "\($0.conversation == first ? "first" : "second")#\($0.seq)" } == [
                "first#1", "first#2", "second#1",
            ])
        try sync(first, from: alice, to: bob)
        #expect(try alice.outbox().map(\.conversation) == [second])
        // A clock covering only part of my log takes only that part off the outbox.
        _ = try alice.sendMessages(["b", "c"], to: first, now: at(3))
        try alice.recordPeerClock(
            VectorClock([Keys.alice.id: 3]), peer: Keys.bob.id, conversation: first, sentUpTo: .max)
        #expect(try alice.outbox().filter { $0.conversation == first }.map(\.seq) == [4])
    }
}

@Suite("Protocol evolution")
struct EvolutionTests {
    /// An entry of a kind this version does not know (written by a newer one) is kept, so
    /// the author's chain continues through it, and is not shown.
    @Test func unknownKindsKeepTheChainGoing() throws {
        let alice = try makeStore(Keys.alice)
        let bob = try makeStore(Keys.bob)
        let (id, _) = try alice.createConversation(with: [Keys.bob.id], now: at(1))

        let draft = try nextDraft(alice, in: id, body: .unknown, now: at(2))
        var content = Confab_V1_EntryContent()
        content.conversationID = Data(id.bytes)
        content.author = Data(Keys.alice.id.bytes)
        content.seq = draft.seq
        content.previous = Data(try #require(draft.previous).bytes)
        content.timestampMs = draft.timestamp
        content.clock = EntryCodec.encodeClock(draft.clock)
        let bytes: [UInt8] = try content.serializedBytes()
        let signature = Keys.alice.sign(EntryDomain.signature + bytes)
        let raw = EntryCodec.encode(
            Entry(
                conversationID: id, author: Keys.alice.id, seq: draft.seq, previous: draft.previous,
                timestamp: draft.timestamp, clock: draft.clock, body: .unknown, content: bytes, signature: signature))
        guard case .appended(let unknown) = try alice.append(raw) else {
            Issue.record("unknown kind not appended")
            return
        }
        #expect(unknown.kind == .unknown)
        let after = try alice.sendMessage("after the new thing", to: id, now: at(3))
        #expect(after.seq == 3)
        #expect(after.previous == unknown.hash)

        #expect(try sync(id, from: alice, to: bob) == 3)
        #expect(try bob.clock(of: id) == VectorClock([Keys.alice.id: 3]))
        #expect(try bob.history(id).map(\.text) == ["after the new thing"])
        #expect(try bob.unreadCount(id) == 1)
    }
}
