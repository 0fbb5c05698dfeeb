import ConfabCrypto
import ConfabModel
import Foundation
import Testing

@testable import ConfabStore
@testable import ConfabWire

/// Reactions (Protocol.md §4.5, "react"): any member on any message, shown with counts and
/// who; per reactor, message and emoji the reactor's latest entry wins on every node; a
/// reaction that names nothing held, or lies, changes nothing and ends no session.
@Suite("Reactions")
struct ReactionTests {
    private func group() throws -> (alice: ConfabStore, bob: ConfabStore, mallory: ConfabStore, id: ConversationID) {
        try aliceBobMallory(firstMessage: "pizza tonight?")
    }

    private let pizza = MessageRef(author: Keys.alice.id, seq: 2)

    /// What a store shows under alice's first message: "emoji count reactors…" per group.
    private func shown(_ store: ConfabStore, _ id: ConversationID, _ ref: MessageRef? = nil) throws -> [String] {
        let ref = ref ?? pizza
        let message = try #require(try store.message(id, author: ref.author, seq: ref.seq))
        return message.reactions.map { group in
            "\(group.emoji) \(group.count) " + group.reactors.map(\.id.shortHex).joined(separator: ",")
        }
    }

    /// A react entry of `store`'s owner sealing `plaintext` as is (a lie of its choosing).
    private func forged(
        _ store: ConfabStore, in id: ConversationID, _ reaction: ReactionContent, now: Date = at(30)
    ) throws -> [UInt8] {
        let seq = try store.clock(of: id)[store.me] + 1
        let sealed = try ConversationCipher.sealReaction(
            reaction, key: try conversationKey(store, id), conversationID: id, author: store.me, seq: seq)
        return EntryCodec.encode(
            EntryCodec.sign(try nextDraft(store, in: id, body: .react(sealed: sealed), now: now), with: store.identity))
    }

    @Test func reactionsShowUnderTheMessageWithCountsAndWhoReactedOnEveryNode() throws {
        let (alice, bob, mallory, id) = try group()
        _ = try bob.react("👍", to: pizza, in: id, now: at(10))
        try sync(id, from: bob, to: mallory)
        _ = try mallory.react("👍", to: pizza, in: id, now: at(11))
        _ = try mallory.react("❤", to: pizza, in: id, now: at(12))
        for store in [alice, bob] { try sync(id, from: mallory, to: store) }
        try sync(id, from: bob, to: alice)
        let expected = [
            "👍 2 \(Keys.bob.id.shortHex),\(Keys.mallory.id.shortHex)", "❤️ 1 \(Keys.mallory.id.shortHex)",
        ]
        for store in [alice, bob, mallory] { #expect(try shown(store, id) == expected) }
        // Names as each node knows them, me as "You"; whether I am among them.
        let atBob = try #require(try bob.message(id, author: Keys.alice.id, seq: 2))
        #expect(atBob.reactions.first?.reactors.first?.name == "You")
        #expect(atBob.reactions.map(\.includesMe) == [true, false])
        #expect(try alice.history(id).count == 1, "a reaction is not a message of its own")
        // My own message can be reacted to as well.
        _ = try alice.react("🎉", to: pizza, in: id, now: at(13))
        #expect(try shown(alice, id).last == "🎉 1 \(Keys.alice.id.shortHex)")
    }

    @Test func theReactorsLatestEntryWinsWhateverTheArrivalOrderOrClock() throws {
        let (alice, bob, mallory, id) = try group()
        _ = try bob.react("👍", to: pizza, in: id, now: at(40))
        _ = try bob.react("👍", to: pizza, in: id, removed: true, now: at(30))
        _ = try bob.react("👍", to: pizza, in: id, now: at(20))  // wall clocks going backwards
        _ = try bob.react("👍", to: pizza, in: id, removed: true, now: at(10))
        _ = try bob.react("😂", to: pizza, in: id, now: at(5))
        let entries = try missingEntries(id, from: bob, to: alice)
        #expect(entries.count == 5)
        _ = try alice.append(batch: entries)
        // Mallory gets the last ones first (a gap, refused and retried by sync), then all.
        _ = try mallory.append(batch: Array(entries.suffix(2)))
        #expect(try shown(mallory, id).isEmpty)
        _ = try mallory.append(batch: entries)
        for store in [alice, bob, mallory] {
            #expect(try shown(store, id) == ["😂 1 \(Keys.bob.id.shortHex)"], "added, taken back, added, taken back")
        }
    }

    @Test func theStoreRefusesWhatWouldChangeNothing() throws {
        let (alice, bob, _, id) = try group()
        for emoji in ["", "👍👍", "ok", "1", " 👍", "\u{202E}👍", String(repeating: "👍\u{200D}", count: 20) + "👍"] {
            #expect(throws: StoreError.self, "\(emoji.unicodeScalars.map(\.value))") {
                try bob.react(emoji, to: pizza, in: id)
            }
        }
        #expect(throws: StoreError.self, "no such message") {
            try bob.react("👍", to: MessageRef(author: Keys.alice.id, seq: 9), in: id)
        }
        #expect(throws: StoreError.self, "nothing to take back") {
            try bob.react("👍", to: pizza, in: id, removed: true)
        }
        _ = try bob.react("👍", to: pizza, in: id)
        #expect(throws: StoreError.self, "twice") { try bob.react("👍", to: pizza, in: id) }
        for emoji in ["😀", "😃", "😄", "😁", "😆", "😅", "🤣"] { _ = try bob.react(emoji, to: pizza, in: id) }
        #expect(throws: StoreError.self, "a ninth") { try bob.react("🙂", to: pizza, in: id) }
        _ = try alice.unsendMessage(2, in: id, now: at(20))
        try sync(id, from: alice, to: bob)
        #expect(throws: StoreError.self, "deleted") { try bob.react("🙂", to: pizza, in: id, removed: false) }
        let deleted = try #require(try bob.message(id, author: Keys.alice.id, seq: 2))
        #expect(deleted.reactions.isEmpty, "a deleted message shows no reactions")
    }

    /// Lies a member can sign: none of them shows, none is refused (they are valid entries
    /// whose meaning is sealed), so no session ends and every node keeps the same log.
    @Test func aLyingReactionChangesNothingAndEndsNoSession() throws {
        let (alice, bob, mallory, id) = try group()
        let receipt = try #require(try bob.markRead(id, now: at(3)))
        try sync(id, from: bob, to: alice)
        try sync(id, from: bob, to: mallory)
        // Another conversation where Alice has a message at the seq her next one here
        // will have: a reference is to this conversation's log only.
        let (other, _) = try alice.createConversation(with: [Keys.mallory.id], firstMessage: "elsewhere", now: at(4))
        _ = try alice.sendMessage("elsewhere again", to: other, now: at(5))
        try sync(other, from: alice, to: mallory)
        let aliceNext = try alice.clock(of: id)[alice.me] + 1
        #expect(try mallory.message(other, author: alice.me, seq: aliceNext) != nil)
        let lies: [(String, ReactionContent)] = [
            (
                "a message not written yet here (one of another conversation)",
                ReactionContent(target: .init(author: alice.me, seq: aliceNext), emoji: "👍", removed: false)
            ),
            ("a receipt", ReactionContent(target: .init(author: bob.me, seq: receipt.seq), emoji: "👍", removed: false)),
            ("no seq at all", ReactionContent(target: .init(author: alice.me, seq: 999), emoji: "👍", removed: false)),
            ("text, not an emoji", ReactionContent(target: pizza, emoji: "lol", removed: false)),
            ("two emoji", ReactionContent(target: pizza, emoji: "👍👍", removed: false)),
            ("a control character", ReactionContent(target: pizza, emoji: "\u{1B}[2J", removed: false)),
        ]
        let relay = try makeStore(Keys.relay)
        try sync(id, from: alice, to: relay, asRelay: true)
        try sync(id, from: bob, to: relay, asRelay: true)
        for (index, (what, lie)) in lies.enumerated() {
            let bytes = try forged(mallory, in: id, lie, now: at(30 + index))
            for (store, asRelay) in [(mallory, false), (alice, false), (bob, false), (relay, true)] {
                let result = try #require(try store.append(batch: [bytes], keepsOthers: asRelay).first)
                guard case .success(.appended) = result else {
                    Issue.record("\(what): \(result)")
                    continue
                }
            }
        }
        // Garbage that does not open.
        let garbage = EntryCodec.encode(
            EntryCodec.sign(
                try nextDraft(mallory, in: id, body: .react(sealed: [UInt8](repeating: 7, count: 60)), now: at(50)),
                with: mallory.identity))
        for store in [mallory, alice, bob] { #expect(isAppended(try store.append(garbage))) }
        for store in [alice, bob, mallory] {
            for message in try store.history(id) { #expect(message.reactions.isEmpty, "\(message.id)") }
        }
        for store in [alice, mallory] {
            for message in try store.history(other) { #expect(message.reactions.isEmpty) }
        }
        // Alice's next message is not reacted to by the reaction that named it in advance.
        _ = try alice.sendMessage("next", to: id, now: at(60))
        try sync(id, from: alice, to: bob)
        #expect(try shown(bob, id, MessageRef(author: alice.me, seq: aliceNext)).isEmpty)
    }

    @Test func eachReactorHasAtMostEightEmojiOnAMessageEverywhere() throws {
        let (alice, _, mallory, id) = try group()
        let emoji = ["😀", "😃", "😄", "😁", "😆", "😅", "🤣", "🙂", "🙃"]
        var entries: [[UInt8]] = []
        for (index, one) in emoji.enumerated() {
            let bytes = try forged(
                mallory, in: id, ReactionContent(target: pizza, emoji: one, removed: false), now: at(20 + index))
            #expect(isAppended(try mallory.append(bytes)))
            entries.append(bytes)
        }
        _ = try alice.append(batch: entries)
        for store in [alice, mallory] {
            #expect(try shown(store, id).map { String($0.prefix { $0 != " " }) } == Array(emoji.prefix(8)))
        }
    }

    @Test func aRelayKeepsReactionsItCannotRead() throws {
        let (alice, bob, _, id) = try group()
        let relay = try makeStore(Keys.relay)
        try sync(id, from: alice, to: relay, asRelay: true)
        _ = try bob.react("👍", to: pizza, in: id, now: at(10))
        #expect(try sync(id, from: bob, to: relay, asRelay: true) == 1)
        let carolLike = try makeStore(Keys.mallory)
        try sync(id, from: relay, to: carolLike)
        #expect(try shown(carolLike, id) == ["👍 1 \(Keys.bob.id.shortHex)"])
    }
}

func isAppended(_ outcome: AppendOutcome) -> Bool {
    if case .appended = outcome { return true }
    return false
}
