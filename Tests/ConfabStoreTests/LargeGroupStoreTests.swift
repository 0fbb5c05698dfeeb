import ConfabCrypto
import ConfabModel
import ConfabWire
import Foundation
import Testing

@testable import ConfabStore

/// Large groups in the store (Protocol.md §19): past 64 members a group's entries name a few
/// authors, its keys are wrapped in 32 bytes each, an add derives the next key and wraps it
/// to the added keys alone, and only the creator changes who is in it.
@Suite struct LargeGroupStoreTests {
    /// Alice's large group of Bob, Carol and `strangers` made-up keys, Carol last, with a first
    /// message, held by Bob and Carol too.
    private func group(
        strangers: Int, large: Bool = true
    ) throws -> (alice: ConfabStore, bob: ConfabStore, carol: ConfabStore, id: ConversationID) {
        let alice = try makeStore(Keys.alice)
        let bob = try makeStore(Keys.bob)
        let carol = try makeStore(Keys.carol)
        let others = (0..<strangers).map { _ in NodeID(SigningKeyPair.generate().publicKey) }
        let (id, _) = try alice.createConversation(
            with: [Keys.bob.id] + others + [Keys.carol.id], title: "everyone", firstMessage: "all hands",
            large: large, now: at(0))
        try sync(id, from: alice, to: bob)
        // Carol may come in by an add after the create: the create alone does not name her.
        try sync(id, from: alice, to: carol, invited: true)
        return (alice, bob, carol, id)
    }

    private func texts(_ store: ConfabStore, _ id: ConversationID) throws -> [String] {
        try store.history(id, limit: 100).compactMap(\.text)
    }

    private func entries(_ store: ConfabStore, _ id: ConversationID, by author: NodeID) throws -> [Entry] {
        try store.entries(in: id, author: author, after: 0, limit: 1000).map { try EntryCodec.decode($0) }
    }

    /// The store owner's next entry with `body`, its clock as its own authoring would make it
    /// and then changed by `clock`, signed and not stored.
    private func forged(
        by store: ConfabStore, in id: ConversationID, body: (UInt64) throws -> EntryBody,
        clock change: (inout VectorClock) -> Void = { _ in }
    ) throws -> [UInt8] {
        let position = try store.writer.read { db in try store.nextPosition(in: id, db: db) }
        var clock = position.clock
        change(&clock)
        let draft = EntryDraft(
            conversationID: id, seq: position.seq, previous: position.previous, timestamp: at(9).millisecondsSince1970,
            clock: clock, body: try body(position.seq))
        return EntryCodec.encode(EntryCodec.sign(draft, with: store.identity))
    }

    @Test func aGroupOfMoreThan64IsLargeAndEveryMemberReadsIt() throws {
        let (alice, bob, carol, id) = try group(strangers: 597)
        #expect(try alice.isLargeGroup(id))
        #expect(try carol.participants(of: id).count == 600)
        #expect(try texts(bob, id) == ["all hands"])
        // Carol came in by the add written right after the create, past its 512.
        #expect(try texts(carol, id) == ["all hands"])
        for entry in try entries(alice, id, by: Keys.alice.id) {
            #expect(EntryCodec.encode(entry).count <= Limits.maxEntryBytes)
        }
        _ = try carol.sendMessage("from the back of the room", to: id, now: at(1))
        try sync(id, from: carol, to: alice)
        #expect(try texts(alice, id) == ["all hands", "from the back of the room"])
        let written = try #require(try entries(alice, id, by: Keys.carol.id).last)
        #expect(written.clock.width <= 2 + Limits.maxRoomClockOthers)
        // Nobody writes receipts in a large group: "sent" is as far as a status goes.
        #expect(try carol.acknowledgeDelivery(id, now: at(2)) == nil)
    }

    @Test func anAddWrapsOnlyTheAddedKeysAndTheyReadFromTheirAddOn() throws {
        let (alice, bob, carol, id) = try group(strangers: 0)
        let dave = try makeStore(Keys.mallory)
        _ = try alice.sendMessage("before dave", to: id, now: at(1))
        let add = try alice.changeMembers(of: id, add: [Keys.mallory.id], now: at(2))
        guard case .members(let body) = add.body else { Issue.record("not a members entry"); return }
        #expect(body.wrapped?.count == 1, "only the added key is wrapped to")
        _ = try alice.sendMessage("with dave", to: id, now: at(3))
        for store in [bob, carol] { try sync(id, from: alice, to: store) }
        try sync(id, from: alice, to: dave, invited: true)
        // Bob derived the new key from the one he held.
        #expect(try texts(bob, id) == ["all hands", "before dave", "with dave"])
        // Dave cannot compute the keys before his add.
        #expect(try texts(dave, id) == ["with dave"])
    }

    @Test func aRemovalWrapsAFreshKeyToTheOthersAndTheRemovedCannotRead() throws {
        let (alice, bob, carol, id) = try group(strangers: 0)
        let removal = try alice.changeMembers(of: id, remove: [Keys.carol.id], now: at(1))
        guard case .members(let body) = removal.body else { Issue.record("not a members entry"); return }
        #expect(body.wrapped?.count == 2)
        _ = try alice.sendMessage("without carol", to: id, now: at(2))
        for store in [bob, carol] { try sync(id, from: alice, to: store) }
        #expect(try texts(bob, id).last == "without carol")
        #expect(try !texts(carol, id).contains("without carol"))
        #expect(try bob.participants(of: id) == [Keys.alice.id, Keys.bob.id])
    }

    @Test func afterALeaveTheCreatorRekeysBeforeItsNextMessageAndTheOneWhoLeftReadsNothingMore() throws {
        let (alice, bob, carol, id) = try group(strangers: 0)
        let dave = try makeStore(Keys.mallory)
        _ = try alice.changeMembers(of: id, add: [Keys.mallory.id], now: at(1))
        for store in [bob, carol] { try sync(id, from: alice, to: store) }
        try sync(id, from: alice, to: dave, invited: true)
        let leave = try bob.leave(id, now: at(2))
        try sync(id, from: bob, to: alice)
        let before = try entries(alice, id, by: Keys.alice.id).count
        _ = try alice.sendMessage("bob has gone", to: id, now: at(3))
        let written = try entries(alice, id, by: Keys.alice.id).dropFirst(before)
        #expect(written.count == 2, "a rekey came first")
        let rekey = try #require(written.first)
        guard case .members(let body) = rekey.body else { Issue.record("not a members entry"); return }
        #expect(body.add.isEmpty && body.remove.isEmpty)
        #expect(body.wrapped?.count == 3, "wrapped to Alice, Carol and Dave, not to Bob")
        #expect(rekey.clock[Keys.bob.id] == leave.seq, "names Bob's leave, so later views see it")
        let removal = try alice.changeMembers(of: id, remove: [Keys.mallory.id], now: at(4))
        guard case .members(let removed) = removal.body else { Issue.record("not a members entry"); return }
        #expect(removed.wrapped?.count == 2)
        _ = try alice.sendMessage("just us", to: id, now: at(5))
        for store in [carol, bob, dave] { try sync(id, from: alice, to: store) }
        #expect(try texts(carol, id).suffix(2) == ["bob has gone", "just us"])
        #expect(try !texts(bob, id).contains("bob has gone"))
        #expect(try texts(dave, id).last == "bob has gone")
        #expect(try !texts(dave, id).contains("just us"))
        // Carol's next entry names Alice; its view holds Bob's leave through Alice's changes.
        _ = try carol.sendMessage("ok", to: id, now: at(6))
        try sync(id, from: carol, to: alice)
        #expect(try texts(alice, id).last == "ok")
    }

    @Test func onlyTheCreatorChangesALargeGroup() throws {
        let (alice, bob, carol, id) = try group(strangers: 0)
        #expect(throws: StoreError.self) { try bob.changeMembers(of: id, add: [Keys.mallory.id]) }
        // Bob signs the add himself, with a key of his own wrapped to Mallory.
        let forged = try forged(by: bob, in: id) { seq in
            let key = ConversationCipher.generateKey()
            return .members(
                MembersBody(
                    add: [Keys.mallory.id],
                    keyCommitment: MembershipCipher.epochCommitment(
                        key, conversationID: id, author: Keys.bob.id, seq: seq),
                    wrapped: try LargeGroupCipher.wrap(
                        key, to: [Keys.mallory.id], conversationID: id, author: Keys.bob.id, seq: seq)))
        }
        for store in [alice, carol] {
            let rejection = try expectAppendRejected(forged, by: store, .badMembership)
            #expect(rejection?.isSessionError == false)
        }
    }

    @Test func aFreshKeyWrappedToOtherThanTheMembersAfterIsRefused() throws {
        let (alice, bob, _, id) = try group(strangers: 0)
        // Alice removes Carol but wraps the fresh key three times: someone else gets it.
        let forged = try forged(by: alice, in: id) { seq in
            let key = ConversationCipher.generateKey()
            return .members(
                MembersBody(
                    remove: [Keys.carol.id],
                    keyCommitment: MembershipCipher.epochCommitment(
                        key, conversationID: id, author: Keys.alice.id, seq: seq),
                    wrapped: try LargeGroupCipher.wrap(
                        key, to: [Keys.alice.id, Keys.bob.id, Keys.mallory.id], conversationID: id,
                        author: Keys.alice.id, seq: seq)))
        }
        try expectAppendRejected(forged, by: bob, .badMembership)
    }

    @Test func sealedKeysOrReceiptsInALargeGroupAndWrapsInASmallOneAreRefused() throws {
        let (alice, bob, _, id) = try group(strangers: 0)
        let sealed = try forged(by: alice, in: id) { seq in
            let epoch = try MembershipCipher.makeEpoch(
                for: [Keys.alice.id, Keys.bob.id], conversationID: id, author: Keys.alice.id, seq: seq)
            return .members(
                MembersBody(remove: [Keys.carol.id], keys: epoch.keys, keyCommitment: epoch.commitment))
        }
        try expectAppendRejected(sealed, by: bob, .badMembership)
        let receipt = try forged(by: alice, in: id) { _ in .receipt(delivered: VectorClock(), read: VectorClock()) }
        try expectAppendRejected(receipt, by: bob, .badMembership)

        let (small, smallBob, _, smallID) = try group(strangers: 0, large: false)
        #expect(try !small.isLargeGroup(smallID))
        let wrapped = try forged(by: small, in: smallID) { seq in
            let key = ConversationCipher.generateKey()
            return .members(
                MembersBody(
                    add: [Keys.mallory.id],
                    keyCommitment: MembershipCipher.epochCommitment(
                        key, conversationID: smallID, author: Keys.alice.id, seq: seq),
                    wrapped: try LargeGroupCipher.wrap(
                        key, to: [Keys.mallory.id], conversationID: smallID, author: Keys.alice.id, seq: seq)))
        }
        try expectAppendRejected(wrapped, by: smallBob, .badMembership)
    }

    @Test func aMemberCannotStepBackToAnEarlierEpoch() throws {
        let (alice, bob, _, id) = try group(strangers: 12)
        _ = try alice.changeMembers(of: id, remove: [Keys.carol.id], now: at(1))
        try sync(id, from: alice, to: bob)
        _ = try bob.sendMessage("seen the removal", to: id, now: at(2))
        // Bob's next entry claims it saw Alice only up to her create: back before the removal.
        let backdated = try forged(by: bob, in: id, body: { _ in .unsend(target: 1) }) { clock in
            clock[Keys.alice.id] = 1
        }
        try sync(id, from: bob, to: alice)
        try expectAppendRejected(backdated, by: alice, .badClock)
    }
}
