import ConfabCrypto
import ConfabModel
import ConfabWire
import Foundation
import Testing

@testable import ConfabStore

/// Once a node holds a proof that an author forked its log, that log stops growing here
/// (Protocol.md §7.1), so another member's clock naming more of it can never be backed by
/// entries held here: it is believed only up to what is held (§7 step 4).
@Suite struct ForkedAuthorClockTests {
    let alice: ConfabStore
    let id: ConversationID

    /// Alice's group with Bob and Carol; Carol signed two different seq 1, both at Alice.
    init() throws {
        alice = try makeStore(Keys.alice)
        (id, _) = try alice.createConversation(with: [Keys.bob.id, Keys.carol.id], firstMessage: "hi", now: at(1))
        let (store, conversation) = (alice, id)
        let clock = try store.clock(of: conversation)
        func carols(_ text: String) throws -> [UInt8] {
            EntryCodec.encode(
                EntryCodec.sign(
                    EntryDraft(
                        conversationID: conversation, seq: 1, previous: nil, timestamp: at(2).millisecondsSince1970,
                        clock: clock,
                        body: try sealedMessage(text, store, in: conversation, author: Keys.carol.id, seq: 1)),
                    with: Keys.carol))
        }
        try store.append(try carols("one thing"))
        #expect(throws: AppendRejection.self) { try store.append(try carols("another")) }
        #expect(try store.forkedAuthors(in: conversation).map(\.author) == [Keys.carol.id])
    }

    private func bobs(_ text: String, carol: UInt64) throws -> [UInt8] {
        EntryCodec.encode(
            EntryCodec.sign(
                EntryDraft(
                    conversationID: id, seq: 1, previous: nil, timestamp: at(3).millisecondsSince1970,
                    clock: VectorClock([Keys.alice.id: 2, Keys.carol.id: carol]),
                    body: try sealedMessage(text, alice, in: id, author: Keys.bob.id, seq: 1)),
                with: Keys.bob))
    }

    @Test func aClockNamingMoreOfAForkedLogIsTakenNotKeptWaiting() throws {
        // Bob holds Carol's other branch, two entries long: Alice will never hold its seq 2.
        guard case .appended = try alice.append(try bobs("from bob", carol: 2)) else {
            Issue.record("bob's entry was not stored")
            return
        }
        #expect(try alice.texts(id) == ["hi", "one thing", "from bob"])
        // Alice's own clock names only what she holds of Carol's log.
        let next = try alice.sendMessage("from alice", to: id, now: at(4))
        #expect(next.clock[Keys.carol.id] == 1)
    }

    @Test func aForkedLogClaimedFarBeyondWhatIsHeldPinsNothing() throws {
        // A member says it saw a million of Carol's entries: counted as the one held here,
        // so its message does not sort below what Alice writes after reading it.
        try alice.append(try bobs("from bob", carol: 1_000_000))
        _ = try alice.sendMessage("after bob's", to: id, now: at(4))
        #expect(try alice.texts(id) == ["hi", "one thing", "from bob", "after bob's"])
    }

    @Test func anAuthorWhoseLogIsNotForkedStillWaitsForWhatItsClockNames() throws {
        let rejection = try expectAppendRejected(
            EntryCodec.encode(
                EntryCodec.sign(
                    EntryDraft(
                        conversationID: id, seq: 1, previous: nil, timestamp: at(3).millisecondsSince1970,
                        clock: VectorClock([Keys.alice.id: 3]),
                        body: try sealedMessage("too early", alice, in: id, author: Keys.bob.id, seq: 1)),
                    with: Keys.bob)), by: alice, .missingDependency)
        #expect(rejection?.isRecoverable == true)
    }
}

extension ConfabStore {
    fileprivate func texts(_ conversation: ConversationID) throws -> [String] {
        try history(conversation, limit: 1000).compactMap(\.text)
    }
}
