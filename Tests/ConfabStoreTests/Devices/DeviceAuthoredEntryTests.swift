import ConfabCrypto
import ConfabModel
import ConfabWire
import Foundation
import Testing

@testable import ConfabStore

/// Entries written by a device count as its person's (Protocol.md §20.11): taken, judged
/// and shown as the person's while the person's list names the device, within its cuts once
/// removed; and no list can make another person's key, or another person's device, its own.
@Suite struct DeviceAuthoredEntryTests {
    let laptop = DeviceKeys.laptop

    /// Alice's conversation with Bob (and `others`), Alice's first message at seq 2, held by
    /// both; Alice's list names her laptop, and Bob holds it when `bobHoldsList`.
    func aliceAndBob(
        others: [NodeID] = [], bobHoldsList: Bool = true
    ) throws -> (alice: ConfabStore, bob: ConfabStore, id: ConversationID) {
        let alice = try makeStore(Keys.alice)
        let bob = try makeStore(Keys.bob)
        try bob.notePeerSeen(Keys.alice.id, suggestedName: "Alice", address: nil)
        let (id, _) = try alice.createConversation(
            with: [Keys.bob.id] + others, firstMessage: "hi", now: at(1))
        try sync(id, from: alice, to: bob)
        _ = try alice.addMyDevice(laptop.id, name: "laptop", now: at(1))
        if bobHoldsList { try offerList(of: alice, to: bob) }
        return (alice, bob, id)
    }

    func offerList(of owner: ConfabStore, to store: ConfabStore) throws {
        guard case .taken = try store.offerDeviceList(try owner.encodedDeviceList(of: owner.me), of: owner.me) else {
            Issue.record("the list was not taken")
            return
        }
    }

    func appended(_ bytes: [UInt8], by store: ConfabStore) throws -> Bool {
        if case .appended = try store.append(bytes) { return true }
        return false
    }

    @Test func aLaptopsMessageIsAlicesForBobAndMineForAlice() throws {
        let (alice, bob, id) = try aliceAndBob()
        var log = DeviceLog(laptop, in: id)
        let message = try log.message("from the laptop", keyFrom: alice, seenBy: alice, at: at(2))
        #expect(try appended(message, by: bob))
        let shown = try #require(try bob.history(id).last)
        #expect(shown.text == "from the laptop" && shown.authorName == "Alice" && !shown.isMine)
        #expect(try appended(message, by: alice))
        let mine = try #require(try alice.history(id).last)
        #expect(mine.text == "from the laptop" && mine.isMine && mine.authorName == "You")
        #expect(try alice.myDevices() == [Keys.alice.id, laptop.id])
        // Bob answers after reading it: his clock names the laptop, which is Alice's there.
        _ = try bob.sendMessage("got it", to: id, now: at(3))
        try sync(id, from: bob, to: alice)
        #expect(try alice.history(id).last?.text == "got it")
    }

    @Test func aKeyNoListNamesIsRefusedAsANonMember() throws {
        let (alice, bob, id) = try aliceAndBob()
        var listed = DeviceLog(laptop, in: id)
        #expect(try appended(listed.message("listed", keyFrom: alice, seenBy: alice, at: at(2)), by: bob))
        var unlisted = DeviceLog(DeviceKeys.stranger, in: id)
        try expectAppendRejected(
            unlisted.message("nobody's", keyFrom: alice, seenBy: alice, at: at(2)), by: bob, .notParticipant)
    }

    @Test func aDeviceOfSomeoneNotInTheConversationIsRefused() throws {
        let (alice, bob, id) = try aliceAndBob()
        let mallory = try makeStore(Keys.mallory)
        _ = try mallory.addMyDevice(DeviceKeys.mallorysPhone.id, name: "phone", now: at(1))
        try offerList(of: mallory, to: bob)
        var listed = DeviceLog(laptop, in: id)
        #expect(try appended(listed.message("listed", keyFrom: alice, seenBy: alice, at: at(2)), by: bob))
        var phone = DeviceLog(DeviceKeys.mallorysPhone, in: id)
        try expectAppendRejected(
            phone.message("mallory's", keyFrom: alice, seenBy: alice, at: at(2)), by: bob, .notParticipant)
    }

    /// Mallory's list names Alice's laptop and Bob's own key. Neither is taken from them:
    /// a member key is that member itself, and only a member's list names a device in a
    /// conversation; where two members' lists name one key, it is nobody's.
    @Test func anotherPersonsListCapturesNeitherADeviceNorAPersonKey() throws {
        let (alice, bob, id) = try aliceAndBob()
        let mallory = try makeStore(Keys.mallory)
        _ = try mallory.addMyDevice(laptop.id, name: "laptop", now: at(1))
        _ = try mallory.addMyDevice(Keys.bob.id, name: "bob", now: at(1))
        try offerList(of: mallory, to: bob)
        try offerList(of: mallory, to: alice)
        // Mallory is not in Alice's conversation with Bob: the laptop is Alice's there.
        var log = DeviceLog(laptop, in: id)
        #expect(try appended(log.message("mine, not mallory's", keyFrom: alice, seenBy: alice, at: at(2)), by: bob))
        #expect(try bob.history(id).last?.authorName == "Alice")

        // In a group of the three, Bob's leave is Bob's, not a removal by Mallory.
        let (group, _) = try alice.createConversation(
            with: [Keys.bob.id, Keys.mallory.id], firstMessage: "all three", now: at(3))
        try sync(group, from: alice, to: bob)
        _ = try bob.leave(group, now: at(4))
        try sync(group, from: bob, to: alice)
        #expect(try alice.participants(of: group) == [Keys.alice.id, Keys.mallory.id])
        // There both lists name the laptop: it is nobody's.
        var inGroup = DeviceLog(laptop, in: group)
        try expectAppendRejected(
            inGroup.message("whose?", keyFrom: alice, seenBy: alice, at: at(5)), by: alice, .notParticipant)
    }

    @Test func aRemovedDevicesEntryPastItsCutIsRefusedWhateverItsDate() throws {
        let (alice, bob, id) = try aliceAndBob(bobHoldsList: false)
        var log = DeviceLog(laptop, in: id)
        let first = try log.message("before", keyFrom: alice, seenBy: alice, at: at(10))
        #expect(try appended(first, by: alice))
        // Written later, dated before the removal, and never reaching Alice before it.
        let second = try log.message("after", keyFrom: alice, seenBy: alice, at: at(1))
        let removal = try alice.removeMyDevice(laptop.id, now: at(20))
        guard case .remove(_, let cuts) = removal.change else {
            Issue.record("not a removal")
            return
        }
        #expect(cuts == [DeviceCut(conversation: id, lastSeq: 1)])
        try offerList(of: alice, to: bob)
        #expect(try appended(first, by: bob))
        try expectAppendRejected(second, by: bob, .notParticipant)
        try expectAppendRejected(second, by: alice, .notParticipant)
    }

    @Test func aRemovedDevicesEntryInAConversationNoCutNamesIsRefused() throws {
        let (alice, bob, id) = try aliceAndBob(bobHoldsList: false)
        let (other, _) = try alice.createConversation(
            with: [Keys.bob.id], title: "other", firstMessage: "two", now: at(2))
        try sync(other, from: alice, to: bob)
        var inFirst = DeviceLog(laptop, in: id)
        let cut = try inFirst.message("in the first", keyFrom: alice, seenBy: alice, at: at(3))
        #expect(try appended(cut, by: alice))
        var inOther = DeviceLog(laptop, in: other)
        let uncut = try inOther.message("in the other", keyFrom: alice, seenBy: alice, at: at(3))
        _ = try alice.removeMyDevice(laptop.id, now: at(4))
        try offerList(of: alice, to: bob)
        #expect(try appended(cut, by: bob))
        try expectAppendRejected(uncut, by: bob, .notParticipant)
    }

    @Test func anEntryArrivingBeforeTheListIsRefusedThenTakenOnceTheListIsHeld() throws {
        let (alice, bob, id) = try aliceAndBob(bobHoldsList: false)
        var log = DeviceLog(laptop, in: id)
        let message = try log.message("early", keyFrom: alice, seenBy: alice, at: at(2))
        let rejection = try expectAppendRejected(message, by: bob, .notParticipant)
        #expect(rejection?.isSessionError == false, "an honest peer forwards it: the session goes on")
        try offerList(of: alice, to: bob)
        #expect(try appended(message, by: bob))
        #expect(try bob.history(id).last?.authorName == "Alice")
    }

    @Test func aReadReceiptByADeviceIsItsPersonsAndByAnyOtherKeyChangesNothing() throws {
        let (alice, bob, id) = try aliceAndBob()
        _ = try bob.sendMessage("one", to: id, now: at(2))
        _ = try bob.sendMessage("two", to: id, now: at(3))
        try sync(id, from: bob, to: alice)
        let seen = try alice.clock(of: id)
        var seenOne = seen
        seenOne[Keys.bob.id] = seen[Keys.bob.id] - 1
        func status(_ text: String) throws -> DeliveryStatus? {
            try bob.history(id).first { $0.text == text }?.status
        }
        #expect(try status("one") != .read)
        var log = DeviceLog(laptop, in: id)
        #expect(
            try appended(
                log.write(seenBy: alice, at: at(4)) { _ in .receipt(delivered: seenOne, read: seenOne) }, by: bob))
        #expect(try status("one") == .read)
        let before = try status("two")
        #expect(before != .read)
        var stranger = DeviceLog(DeviceKeys.stranger, in: id)
        try expectAppendRejected(
            stranger.write(seenBy: alice, at: at(5)) { _ in .receipt(delivered: seen, read: seen) }, by: bob,
            .notParticipant)
        #expect(try status("two") == before)
    }

    @Test func aLaptopChangesAlicesGroupAsAliceAndABobsPhoneCannotRemoveAlice() throws {
        let (alice, bob, id) = try aliceAndBob()
        var log = DeviceLog(laptop, in: id)
        let add = try log.members(
            add: [Keys.carol.id], sealedTo: [Keys.alice.id, Keys.bob.id, Keys.carol.id], seenBy: alice, at: at(2))
        #expect(try appended(add, by: bob))
        #expect(try bob.participants(of: id) == [Keys.alice.id, Keys.bob.id, Keys.carol.id])
        // Alice is the admin: her laptop removes as she would.
        let remove = try log.members(
            remove: [Keys.carol.id], sealedTo: [Keys.alice.id, Keys.bob.id], seenBy: bob, at: at(3))
        #expect(try appended(remove, by: bob))
        #expect(try bob.participants(of: id) == [Keys.alice.id, Keys.bob.id])
        // Bob is not: his phone, counted as Bob, may not remove Alice.
        _ = try bob.addMyDevice(DeviceKeys.bobsPhone.id, name: "phone", now: at(3))
        #expect(try appended(add, by: alice))
        #expect(try appended(remove, by: alice))
        try offerList(of: bob, to: alice)
        var phone = DeviceLog(DeviceKeys.bobsPhone, in: id)
        try expectAppendRejected(
            phone.members(remove: [Keys.alice.id], sealedTo: [Keys.bob.id], seenBy: alice, at: at(4)), by: alice,
            .badMembership)
        // …but may leave for him (its refused entry was never held: its log starts again).
        phone = DeviceLog(DeviceKeys.bobsPhone, in: id)
        let leave = try phone.write(seenBy: alice, at: at(5)) { _ in .members(MembersBody(remove: [Keys.bob.id])) }
        #expect(try appended(leave, by: alice))
        #expect(try alice.participants(of: id) == [Keys.alice.id])
    }
}
