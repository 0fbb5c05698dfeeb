import ConfabCrypto
import ConfabModel
import ConfabWire
import Foundation
import Testing

@testable import ConfabStore

/// Rooms in the store (Protocol.md §18): joined by name, open to any writer, clocks of a
/// few authors, and nothing a peer sends makes a node hold a room it did not join.
@Suite struct RoomStoreTests {
    private let network = NetworkKey.random()
    private var general: RoomGenesis { RoomGenesis(name: RoomName(exactly: "general")!, network: network) }

    @Test func twoPeopleWhoJoinTheSameNameMeetInOneRoom() throws {
        let alice = try makeStore(Keys.alice)
        let bob = try makeStore(Keys.bob)
        let id = try alice.joinRoom(general, now: at(0))
        #expect(try bob.joinRoom(general, now: at(1)) == id)
        _ = try alice.sendMessage("hello room", to: id, now: at(2))
        #expect(try sync(id, from: alice, to: bob) == 1)
        let history = try bob.history(id)
        #expect(history.map(\.text) == ["hello room"])
        #expect(try bob.conversation(id)?.title == "#general")
        _ = try bob.sendMessage("hi alice", to: id, now: at(3))
        try sync(id, from: bob, to: alice)
        #expect(try alice.history(id).map(\.text) == ["hello room", "hi alice"])
        // Nobody writes receipts in a room: the status stops at "sent".
        #expect(try bob.acknowledgeDelivery(id, now: at(4)) == nil)
    }

    @Test func anotherNetworkHasAnotherRoomOfTheSameName() {
        let other = RoomGenesis(name: RoomName(exactly: "general")!, network: NetworkKey.random())
        #expect(other.conversationID != general.conversationID)
        #expect(other.author != general.author)
        #expect(other.create.content != general.create.content)
        // Every node makes the same create, byte for byte.
        #expect(RoomGenesis(name: general.name, network: network).create.content == general.create.content)
        #expect(RoomGenesis(name: general.name, network: network).create.signature == general.create.signature)
    }

    @Test func aRoomOfMoreWritersThanAGroupMayHaveKeepsEachClockSmallAndTheOrderCausal() throws {
        let stores = try (0..<70).map { _ in try makeStore(SigningKeyPair.generate()) }
        let reader = try makeStore(Keys.carol)
        let id = try reader.joinRoom(general, now: at(0))
        var previous: ConfabStore?
        for (index, store) in stores.enumerated() {
            try store.joinRoom(general, now: at(0))
            if let previous { try sync(id, from: previous, to: store) }
            _ = try store.sendMessage("message \(index)", to: id, now: at(index))
            previous = store
        }
        try sync(id, from: stores.last!, to: reader)
        #expect(try reader.clock(of: id).width == 71)
        // Each answered the one before it: the order is the order they were written in.
        #expect(try reader.history(id, limit: 200).map(\.text) == (0..<70).map { "message \($0)" })
        for raw in try reader.entries(in: id, author: stores.last!.me, after: 0) {
            let entry = try EntryCodec.decode(raw)
            #expect(entry.clock.width <= 2 + Limits.maxRoomClockOthers)
        }
    }

    @Test func aRoomCreateFromAPeerIsNotTakenByANodeThatDidNotJoin() throws {
        let alice = try makeStore(Keys.alice)
        let bob = try makeStore(Keys.bob)
        let id = try alice.joinRoom(general, now: at(0))
        _ = try alice.sendMessage("hello", to: id, now: at(1))
        let batch = try missingEntries(id, from: alice, to: bob)
        let results = try bob.append(batch: batch, now: at(2), invitations: [id])
        #expect(results.allSatisfy { (try? $0.get()) == nil })
        #expect(try bob.conversation(id) == nil)
        // A relay does not keep rooms either: nobody it serves joined them through it.
        _ = try bob.append(batch: batch, now: at(2), keepsOthers: true)
        #expect(try bob.conversation(id) == nil)
    }

    /// The lie: anyone on the network can derive the room's own key and sign with it. What
    /// it signs beyond the create is refused, and proves no fork against anyone.
    @Test func whatTheRoomsOwnKeySignsIsRefusedWithoutAForkProof() throws {
        let alice = try makeStore(Keys.alice)
        let id = try alice.joinRoom(general, now: at(0))
        let forged = EntryCodec.sign(
            EntryDraft(
                conversationID: id, seq: 1, previous: nil, timestamp: 5, clock: VectorClock(),
                body: .room(RoomName(exactly: "general")!)),
            with: general.signing)
        let second = EntryCodec.sign(
            EntryDraft(
                conversationID: id, seq: 2, previous: general.create.hash, timestamp: 5,
                clock: VectorClock([general.author: 1]), body: .message(sealed: [UInt8](repeating: 1, count: 60))),
            with: general.signing)
        for entry in [forged, second] {
            #expect(throws: AppendRejection.self) { try alice.append(EntryCodec.encode(entry), now: at(1)) }
        }
        #expect(try alice.forkProofs(in: [id]).isEmpty)
        #expect(try alice.append(EntryCodec.encode(general.create), now: at(2)) == .duplicate)
    }

    /// The lie: an author who names many others in a room entry's clock to move it in the
    /// order; and a members entry or a receipt, which a room has no use for.
    @Test func aRoomEntryNamingTooManyAuthorsOrChangingMembersIsRefused() throws {
        let writers = try (0..<(Limits.maxRoomClockOthers + 1)).map { _ in try makeStore(SigningKeyPair.generate()) }
        let mallory = try makeStore(Keys.mallory)
        let id = try mallory.joinRoom(general, now: at(0))
        for (index, writer) in writers.enumerated() {
            try writer.joinRoom(general, now: at(0))
            _ = try writer.sendMessage("w\(index)", to: id, now: at(index))
            try sync(id, from: writer, to: mallory)
        }
        var clock = try mallory.clock(of: id)
        clock[Keys.mallory.id] = 0
        let key = SecureBytes(general.key.unsafeCopy)
        let wide = EntryCodec.sign(
            EntryDraft(
                conversationID: id, seq: 1, previous: nil, timestamp: 100, clock: clock,
                body: .message(
                    sealed: try ConversationCipher.sealMessage(
                        MessageContent(text: "first!"), key: key, conversationID: id, author: Keys.mallory.id, seq: 1))),
            with: Keys.mallory)
        let receiver = try makeStore(Keys.alice)
        try receiver.joinRoom(general, now: at(0))
        try sync(id, from: mallory, to: receiver)
        let rejection = #expect(throws: AppendRejection.self) {
            try receiver.append(EntryCodec.encode(wide), now: at(200))
        }
        #expect(rejection?.category == .badClock)
        #expect(rejection?.isSessionError == false)
        let members = EntryCodec.sign(
            EntryDraft(
                conversationID: id, seq: 1, previous: nil, timestamp: 100,
                clock: VectorClock([general.author: 1]), body: .receipt(delivered: VectorClock(), read: VectorClock())),
            with: Keys.mallory)
        let refused = #expect(throws: AppendRejection.self) {
            try receiver.append(EntryCodec.encode(members), now: at(200))
        }
        #expect(refused?.category == .badMembership)
    }

    /// Anyone may write in a room, and blocking someone hides what they write there as
    /// everywhere (their entries are still stored, so the logs stay whole).
    @Test func aBlockedWritersMessagesAreNotShownInTheRoom() throws {
        let alice = try makeStore(Keys.alice)
        let mallory = try makeStore(Keys.mallory)
        let bob = try makeStore(Keys.bob)
        let id = try alice.joinRoom(general, now: at(0))
        for store in [mallory, bob] { try store.joinRoom(general, now: at(0)) }
        _ = try mallory.sendMessage("buy my stuff", to: id, now: at(1))
        _ = try bob.sendMessage("hello", to: id, now: at(2))
        try alice.savePeer(Keys.mallory.id, name: "mallory")
        try alice.setTrust(Keys.mallory.id, .blocked)
        try sync(id, from: mallory, to: alice)
        try sync(id, from: bob, to: alice)
        #expect(try alice.history(id).map(\.text) == ["hello"])
        #expect(try alice.clock(of: id)[Keys.mallory.id] == 1)
    }

    @Test func leavingForgetsTheRoomAndJoiningAgainFetchesItsHistory() throws {
        let alice = try makeStore(Keys.alice)
        let bob = try makeStore(Keys.bob)
        let id = try alice.joinRoom(general, now: at(0))
        try bob.joinRoom(general, now: at(0))
        _ = try alice.sendMessage("before", to: id, now: at(1))
        try sync(id, from: alice, to: bob)
        try bob.leaveRoom(id)
        #expect(try bob.conversation(id) == nil)
        let left = try bob.read { db in
            try ConfabStore.tablesOfConversations(db).filter { table in
                try Int.fetchOne(
                    db, sql: "SELECT count(*) FROM \(table) WHERE conversationId = ?", arguments: [id.bytes])
                    != 0
            }
        }
        #expect(left.isEmpty, "rows of the room left in \(left)")
        #expect(try bob.read { try ConfabStore.tablesOfConversations($0) }.contains("conversation_fts"))
        #expect(try bob.joinedRooms().isEmpty)
        // Entries of a room left are not taken.
        _ = try alice.sendMessage("while away", to: id, now: at(2))
        let offered = try bob.append(batch: try missingEntries(id, from: alice, to: bob), now: at(2))
        #expect(offered.allSatisfy { (try? $0.get()) == nil })
        try bob.joinRoom(general, now: at(3))
        #expect(try sync(id, from: alice, to: bob) == 2)
        #expect(try bob.history(id).map(\.text) == ["before", "while away"])
    }
}
