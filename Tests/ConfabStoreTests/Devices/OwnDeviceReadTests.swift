import ConfabCrypto
import ConfabModel
import ConfabWire
import Foundation
import Testing

@testable import ConfabStore

/// Reading on one of a person's devices is reading on all of them (Protocol.md §20.14): the
/// read receipt a device writes moves its person's read marks on every other device, which
/// then counts nothing unread and writes no receipt of its own for the same read. A receipt
/// of anyone else moves nothing, nor does one of a removed device past its cut.
@Suite struct OwnDeviceReadTests {
    let laptopKey = DeviceKeys.laptop

    /// Bob's conversation with Alice (and `others`), held by Bob, Alice's desktop and her
    /// laptop, linked with the conversation's keys; Bob holds Alice's list.
    func bobAndAlicesTwoMachines(
        others: [NodeID] = []
    ) throws -> (desktop: ConfabStore, laptop: ConfabStore, bob: ConfabStore, id: ConversationID) {
        let desktop = try makeStore(Keys.alice)
        let bob = try makeStore(Keys.bob)
        try bob.notePeerSeen(Keys.alice.id, suggestedName: "Alice", address: nil)
        let (id, _) = try desktop.createConversation(with: [Keys.bob.id] + others, firstMessage: "hi", now: at(1))
        try sync(id, from: desktop, to: bob)
        _ = try desktop.addMyDevice(laptopKey.id, name: "laptop", now: at(1))
        let list = try desktop.encodedDeviceList(of: Keys.alice.id)
        let offered = try bob.offerDeviceList(list, of: Keys.alice.id)
        let taken = if case .taken = offered { true } else { false }
        try #require(taken, "Bob did not take Alice's list: \(offered)")
        let laptop = try makeStore(laptopKey)
        try laptop.takeLink(person: Keys.alice.id, list: list, displayName: "Alice", keys: try desktop.epochKeys())
        try sync(id, from: desktop, to: laptop)
        return (desktop, laptop, bob, id)
    }

    /// Bob's messages reach both of Alice's machines.
    func bobWrites(_ texts: [String], _ bob: ConfabStore, to stores: [ConfabStore], in id: ConversationID) throws {
        for (index, text) in texts.enumerated() { _ = try bob.sendMessage(text, to: id, now: at(10 + index)) }
        for store in stores { try sync(id, from: bob, to: store) }
    }

    @Test func readingOnTheLaptopClearsTheDesktopsCountAndOneReceiptIsThePersons() throws {
        let (desktop, laptop, bob, id) = try bobAndAlicesTwoMachines()
        try bobWrites(["one", "two"], bob, to: [desktop, laptop], in: id)
        #expect(try desktop.unreadCount(id) == 2)
        #expect(try laptop.unreadCount(id) == 2)

        let receipt = try #require(try laptop.markRead(id, now: at(20)))
        #expect(receipt.author == laptopKey.id)
        try sync(id, from: laptop, to: desktop)
        #expect(try desktop.unreadCount(id) == 0)
        #expect(try desktop.totalUnread() == 0)
        // The person's receipt already says so: the desktop opening the chat writes none.
        #expect(try desktop.markRead(id, now: at(21)) == nil)
        try sync(id, from: laptop, to: bob)
        #expect(try bob.history(id).filter { $0.text == "one" || $0.text == "two" }.allSatisfy { $0.status == .read })

        // And the other way: read on the desktop, cleared on the laptop, which writes nothing.
        try bobWrites(["three"], bob, to: [desktop, laptop], in: id)
        #expect(try laptop.unreadCount(id) == 1)
        #expect(try desktop.markRead(id, now: at(30)) != nil)
        try sync(id, from: desktop, to: laptop)
        #expect(try laptop.unreadCount(id) == 0)
        #expect(try laptop.markRead(id, now: at(31)) == nil)
    }

    /// A laptop linked after the desktop read takes the reads with the history: the desktop's
    /// receipts come with its log.
    @Test func aNewlyLinkedLaptopStartsWithWhatTheDesktopRead() throws {
        let desktop = try makeStore(Keys.alice)
        let bob = try makeStore(Keys.bob)
        let (id, _) = try desktop.createConversation(with: [Keys.bob.id], firstMessage: "hi", now: at(1))
        try sync(id, from: desktop, to: bob)
        for (index, text) in ["one", "two", "three"].enumerated() {
            _ = try bob.sendMessage(text, to: id, now: at(2 + index))
        }
        try sync(id, from: bob, to: desktop)
        _ = try desktop.markRead(id, now: at(10))
        _ = try bob.sendMessage("unread", to: id, now: at(11))
        try sync(id, from: bob, to: desktop)
        #expect(try desktop.unreadCount(id) == 1)
        _ = try desktop.addMyDevice(laptopKey.id, name: "laptop", now: at(12))
        let laptop = try makeStore(laptopKey)
        try laptop.takeLink(
            person: Keys.alice.id, list: try desktop.encodedDeviceList(of: Keys.alice.id), displayName: "Alice",
            keys: try desktop.epochKeys())
        try sync(id, from: desktop, to: laptop)
        #expect(try laptop.history(id).count == 5)
        #expect(try laptop.unreadCount(id) == 1)
    }

    @Test func aReadElsewhereEndsAMarkUnreadAndAnOlderReceiptLeavesIt() throws {
        let (desktop, laptop, bob, id) = try bobAndAlicesTwoMachines()
        try bobWrites(["one"], bob, to: [desktop, laptop], in: id)
        _ = try laptop.markRead(id, now: at(20))
        try sync(id, from: laptop, to: desktop)
        try desktop.setFlag(.markedUnread, true, on: id)
        // Nothing new read since: the flag the person just set stays.
        #expect(try desktop.conversation(id)?.isMarkedUnread == true)
        try bobWrites(["two"], bob, to: [desktop, laptop], in: id)
        _ = try laptop.markRead(id, now: at(30))
        try sync(id, from: laptop, to: desktop)
        #expect(try desktop.conversation(id)?.isMarkedUnread == false)
        #expect(try desktop.unreadCount(id) == 0)
    }

    /// A person's own messages call for no receipt from its other devices: Alice's message
    /// from her desktop reaching her laptop is not news to tell Bob, and the receipts the
    /// laptop writes for Bob's messages do not name her desktop's entries.
    @Test func myOtherDevicesMessagesCallForNoReceipt() throws {
        let (desktop, laptop, bob, id) = try bobAndAlicesTwoMachines()
        _ = try desktop.sendMessage("from the desktop", to: id, now: at(10))
        try sync(id, from: desktop, to: laptop)
        #expect(try laptop.acknowledgeDelivery(id, now: at(11)) == nil)
        #expect(try laptop.markRead(id, now: at(12)) == nil)
        try bobWrites(["one"], bob, to: [laptop], in: id)
        let receipt = try #require(try laptop.acknowledgeDelivery(id, now: at(20)))
        guard case .receipt(let delivered, _) = receipt.body else {
            Issue.record("not a receipt")
            return
        }
        #expect(delivered[Keys.alice.id] == 0 && delivered[laptopKey.id] == 0)
        #expect(delivered[Keys.bob.id] == (try bob.clock(of: id))[Keys.bob.id])
    }

    /// Carol's receipt says she read Bob's messages: that is Carol's read, never Alice's.
    /// Fails when every receipt moves the read marks, whoever's person wrote it.
    @Test func anotherPersonsReceiptMovesNoneOfMyReadMarks() throws {
        let (desktop, laptop, bob, id) = try bobAndAlicesTwoMachines(others: [Keys.carol.id])
        let carol = try makeStore(Keys.carol)
        try sync(id, from: desktop, to: carol)
        try bobWrites(["one", "two"], bob, to: [desktop, laptop, carol], in: id)
        let carolsReceipt = try #require(try carol.markRead(id, now: at(20)))
        #expect(carolsReceipt.author == Keys.carol.id)
        for store in [desktop, laptop] { try sync(id, from: carol, to: store) }
        #expect(try desktop.unreadCount(id) == 2)
        #expect(try laptop.unreadCount(id) == 2)
        // The path works for the person's own device in the same conversation.
        _ = try laptop.markRead(id, now: at(21))
        try sync(id, from: laptop, to: desktop)
        #expect(try desktop.unreadCount(id) == 0)
    }

    /// A laptop removed from Alice's devices reads nothing for her afterwards: its receipt
    /// past its cut is no longer Alice's, and is refused (§20.11).
    @Test func aRemovedDevicesLaterReceiptIsRefusedAndMovesNothing() throws {
        let (desktop, laptop, bob, id) = try bobAndAlicesTwoMachines()
        try bobWrites(["one", "two"], bob, to: [desktop, laptop], in: id)
        _ = try desktop.removeMyDevice(laptopKey.id, now: at(20))
        let late = try #require(try laptop.markRead(id, now: at(21)))
        let raw = try #require(try laptop.entries(in: id, author: laptopKey.id, after: late.seq - 1, limit: 1).first)
        try expectAppendRejected(raw, by: desktop, .notParticipant)
        #expect(try desktop.unreadCount(id) == 2)
    }
}
