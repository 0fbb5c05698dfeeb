import ConfabCrypto
import ConfabModel
import ConfabWire
import Foundation
import Testing

@testable import ConfabStore
@testable import ConfabWire

/// Removing a device, whole (Protocol.md §20.13): the list entry, then a rekey of every
/// conversation the person is a member of; the device left behind reads nothing sealed
/// after it, learns it was removed, writes nothing more as its person, and what it writes
/// anyway is refused by every node holding the removal.
@Suite struct DeviceRemovalTests {
    let laptop = DeviceKeys.laptop

    /// Alice's desktop (the person key) with her laptop linked, Bob, and Alice's
    /// conversation with Bob, held by all three; the laptop wrote one message in it.
    func aliceLaptopAndBob() throws -> (
        alice: ConfabStore, laptop: ConfabStore, bob: ConfabStore, id: ConversationID
    ) {
        let alice = try makeStore(Keys.alice)
        let bob = try makeStore(Keys.bob)
        try alice.setDisplayName("Alice")
        try bob.notePeerSeen(Keys.alice.id, suggestedName: "Alice", address: nil)
        _ = try alice.addMyDevice(laptop.id, name: "laptop", now: at(1))
        try offerList(of: alice, to: bob)
        let (id, _) = try alice.createConversation(with: [Keys.bob.id], firstMessage: "hi", now: at(2))
        try sync(id, from: alice, to: bob)
        let laptopStore = try makeStore(laptop)
        try laptopStore.takeLink(
            person: Keys.alice.id, list: try alice.encodedDeviceList(of: Keys.alice.id), displayName: "Alice",
            keys: try alice.epochKeys())
        try sync(id, from: alice, to: laptopStore, invited: true)
        _ = try laptopStore.sendMessage("from the laptop", to: id, now: at(3))
        try sync(id, from: laptopStore, to: alice)
        try sync(id, from: laptopStore, to: bob)
        #expect(try bob.history(id).map(\.text) == ["hi", "from the laptop"])
        return (alice, laptopStore, bob, id)
    }

    func offerList(of owner: ConfabStore, to store: ConfabStore) throws {
        guard case .taken = try store.offerDeviceList(try owner.encodedDeviceList(of: owner.me), of: owner.me) else {
            Issue.record("the list was not taken")
            return
        }
    }

    func epochInForce(_ store: ConfabStore, _ id: ConversationID) throws -> EntryRef? {
        try store.read { db in try store.membershipLog(id, db: db)?.current.epochInForce }
    }

    @Test func removingADeviceRekeysEveryConversationAndOnlyTheRemainingDevicesRead() throws {
        let (alice, laptop, bob, id) = try aliceLaptopAndBob()
        // A small group Bob created, where Alice is no admin (a rekey is any member's), and
        // two large groups: Alice's, which she rekeys, and Bob's, which only Bob may.
        let (group, _) = try bob.createConversation(
            with: [Keys.alice.id, Keys.carol.id], firstMessage: "g", now: at(4))
        let (hers, _) = try alice.createConversation(with: [Keys.bob.id], firstMessage: "L", large: true, now: at(4))
        let (his, _) = try bob.createConversation(with: [Keys.alice.id], firstMessage: "B", large: true, now: at(4))
        try sync(group, from: bob, to: alice)
        try sync(his, from: bob, to: alice)
        let before = try [id, group, hers].map { try epochInForce(alice, $0) }

        let outcome = try alice.removeDevice(laptop.me, now: at(5))
        guard case .remove(let device, let cuts) = outcome.entry.change else {
            Issue.record("not a removal")
            return
        }
        #expect(device == laptop.me && cuts == [DeviceCut(conversation: id, lastSeq: 1)])
        #expect(Set(outcome.rekeyed) == [id, group, hers])
        #expect(outcome.notRekeyed == [his])
        for (conversation, old) in zip([id, group, hers], before) {
            let epoch = try #require(try epochInForce(alice, conversation))
            #expect(epoch != old && epoch.author == Keys.alice.id, "a new epoch of Alice's")
            let raw = try #require(try alice.entries(in: conversation, author: alice.me, after: epoch.seq - 1).first)
            guard case .members(let body) = try EntryCodec.decode(raw).body else {
                Issue.record("the new epoch is not a members entry")
                continue
            }
            #expect(body.add.isEmpty && body.remove.isEmpty, "a rekey")
        }

        // Bob takes the list and the rekey, and writes under the new epoch.
        try offerList(of: alice, to: bob)
        try sync(id, from: alice, to: bob)
        _ = try bob.sendMessage("after the removal", to: id, now: at(6))
        try sync(id, from: bob, to: alice)
        #expect(try alice.history(id).last?.text == "after the removal")

        // The laptop, given the new list and everything, holds the entries and reads none of them.
        guard
            case .taken = try laptop.offerDeviceList(try alice.encodedDeviceList(of: Keys.alice.id), of: Keys.alice.id)
        else {
            Issue.record("the laptop did not take its person's list")
            return
        }
        try sync(id, from: bob, to: laptop)
        #expect(try laptop.clock(of: id) == (try bob.clock(of: id)), "the laptop holds Bob's message")
        #expect(try laptop.history(id).compactMap(\.text) == ["hi", "from the laptop"])
        #expect(try epochInForce(laptop, id) == (try epochInForce(alice, id)))
        let rekey = try #require(try epochInForce(laptop, id))
        let heldKey = try laptop.read { db in
            try [UInt8].fetchOne(
                db, sql: "SELECT key FROM epoch_key WHERE conversationId = ? AND author = ? AND seq = ?",
                arguments: [id.bytes, rekey.author.bytes, rekey.seq])
        }
        #expect(heldKey == nil, "the rekey's key did not open on the removed device")
    }

    @Test func theRemovedDeviceLearnsItAndWritesNothingMoreAsItsPerson() throws {
        let (alice, laptop, _, id) = try aliceLaptopAndBob()
        #expect(try laptop.myDeviceRemoval() == nil)
        _ = try alice.removeDevice(laptop.me, now: at(5))
        #expect(try alice.myDeviceRemoval() == nil, "the person key is never removed")
        _ = try laptop.offerDeviceList(try alice.encodedDeviceList(of: Keys.alice.id), of: Keys.alice.id)
        let removal = try #require(try laptop.myDeviceRemoval())
        #expect(removal.person == Keys.alice.id && removal.personName == "Alice" && removal.removedAt == at(5))
        #expect(removal.message.hasPrefix("This device was removed from Alice's devices (on "))
        let seq = try laptop.clock(of: id)[laptop.me]
        do {
            _ = try laptop.sendMessage("still here?", to: id, now: at(6))
            Issue.record("a removed device wrote as its person")
        } catch let error as StoreError {
            #expect(error.deviceRemoval == removal)
            #expect(error.description.contains("confab init --link CODE"))
        }
        #expect(throws: StoreError.self) { _ = try laptop.createConversation(with: [Keys.bob.id], now: at(6)) }
        #expect(try laptop.clock(of: id)[laptop.me] == seq, "nothing written")
    }

    @Test func anEntryTheRemovedDeviceWritesAnywayIsRefusedByBobAndByTheDesktop() throws {
        let (alice, laptop, bob, id) = try aliceLaptopAndBob()
        // Written before the removal reached the laptop, after its cut: what a thief writes.
        let late = try laptop.sendMessage("sent after the cut", to: id, now: at(4))
        let raw = try #require(try laptop.entries(in: id, author: laptop.me, after: late.seq - 1).first)
        _ = try alice.removeDevice(laptop.me, now: at(5))
        try offerList(of: alice, to: bob)
        try expectAppendRejected(raw, by: bob, .notParticipant)
        try expectAppendRejected(raw, by: alice, .notParticipant)
        #expect(try bob.history(id).compactMap(\.text).contains("from the laptop"), "the entry before the cut stays")
    }

    @Test func theRemovedDeviceCannotListItselfAgain() throws {
        let (alice, laptop, bob, id) = try aliceLaptopAndBob()
        let older = try alice.encodedDeviceList(of: Keys.alice.id)
        _ = try alice.removeDevice(laptop.me, now: at(5))
        try offerList(of: alice, to: bob)
        let held = try bob.deviceList(of: Keys.alice.id)

        // An older list, in which the laptop is still listed, changes nothing.
        #expect(try bob.offerDeviceList(older, of: Keys.alice.id) == .kept)
        // An entry that adds it again, signed by the only key it holds, is not Alice's.
        let readd = forged(
            .add(device: laptop.me, name: "laptop"), continuing: held, claiming: Keys.alice.id,
            signedBy: self.laptop, devicesAfter: 2)
        #expect(throws: DeviceListError.self) {
            _ = try bob.offerDeviceList(try alice.encodedDeviceList(of: Keys.alice.id) + [readd], of: Keys.alice.id)
        }
        // And Alice herself could not: a key ever listed is never added again (§20.4).
        #expect(throws: DeviceListError.self) { _ = try alice.addMyDevice(laptop.me, name: "laptop", now: at(7)) }
        #expect(try bob.deviceList(of: Keys.alice.id) == held)
        try expectAppendRejected(
            try laptopEntry(after: laptop, in: id, seenBy: bob), by: bob, .notParticipant)
    }

    @Test func aMachineThatCannotRekeyEveryConversationRemovesNothing() throws {
        let original = try makeStore(Keys.alice)
        let (id, _) = try original.createConversation(with: [Keys.bob.id], firstMessage: "one", now: at(0))
        _ = try original.sendMessage("two", to: id, now: at(1))
        let log = try original.entries(in: id, author: Keys.alice.id, after: 0)
        // Alice's key restored on a machine that got her create entry and a later entry of
        // hers it cannot take yet: its own log is behind, and a rekey would fork it.
        let restored = try makeStore(Keys.alice)
        try restored.append(log[0])
        try expectAppendRejected(log[2], by: restored, .gap)
        _ = try restored.addMyDevice(laptop.id, name: "laptop", now: at(2))
        let error = try #require(throws: StoreError.self) { _ = try restored.removeDevice(laptop.id, now: at(3)) }
        #expect(error.description.hasPrefix("nothing was removed: this machine does not hold all it wrote"))
        #expect(try restored.deviceList(of: Keys.alice.id).listed.map(\.key) == [laptop.id])
        #expect(try restored.clock(of: id) == VectorClock([Keys.alice.id: 1]))
    }

    @Test func aListOfAliceThatRemovesBobsPhoneIsNotTakenForBob() throws {
        let alice = try makeStore(Keys.alice)
        let bob = try makeStore(Keys.bob)
        _ = try bob.addMyDevice(DeviceKeys.bobsPhone.id, name: "phone", now: at(1))
        try offerList(of: bob, to: alice)
        let bobs = try bob.deviceList(of: Keys.bob.id)
        // Mallory signs a removal of Bob's phone continuing Bob's list: not Bob's signature.
        let forgedRemoval = forged(
            .remove(device: DeviceKeys.bobsPhone.id, cuts: []), continuing: bobs, claiming: Keys.bob.id,
            signedBy: Keys.mallory, devicesAfter: 1)
        let offered = try bob.encodedDeviceList(of: Keys.bob.id) + [forgedRemoval]
        #expect(throws: DeviceListError.self) { _ = try alice.offerDeviceList(offered, of: Keys.bob.id) }
        #expect(try alice.deviceList(of: Keys.bob.id) == bobs)
        #expect(try alice.deviceList(of: Keys.bob.id).isDevice(DeviceKeys.bobsPhone.id))
    }

    /// The laptop's next entry in `id`, signed by its key past what its store holds (its
    /// store refuses to write it): what a removed device that ignores its removal sends.
    func laptopEntry(after laptop: ConfabStore, in id: ConversationID, seenBy store: ConfabStore) throws -> [UInt8] {
        let seq = try laptop.clock(of: id)[laptop.me]
        let previous = try #require(try laptop.entries(in: id, author: laptop.me, after: seq - 1).first)
        var clock = try store.clock(of: id)
        clock[laptop.me] = seq
        let draft = EntryDraft(
            conversationID: id, seq: seq + 1, previous: try EntryCodec.decode(previous).hash,
            timestamp: at(8).millisecondsSince1970, clock: clock,
            body: .message(
                sealed: try ConversationCipher.sealMessage(
                    "I am back", key: SecureBytes([UInt8](repeating: 7, count: 32)), conversationID: id,
                    author: laptop.me, seq: seq + 1)))
        return EntryCodec.encode(EntryCodec.sign(draft, with: self.laptop))
    }

    /// An entry continuing `list` that claims to be `person`'s, signed by `key`: well formed
    /// in every field (a new encryption key, a wrap per device after it), so that only its
    /// signature tells it is not `person`'s.
    func forged(
        _ change: DeviceChange, continuing list: DeviceList, claiming person: NodeID, signedBy key: SigningKeyPair,
        devicesAfter: Int
    ) -> [UInt8] {
        let own = DeviceEntryCodec.sign(
            person: key, seq: UInt64(list.count + 1), previous: list.entries.last?.hash,
            timestamp: at(6).millisecondsSince1970,
            keys: ConfabModel.DeviceKeys(
                encryptionKey: Curve25519KeyPair.generate().publicKey, ephemeral: [UInt8](repeating: 9, count: 32),
                wraps: [UInt8](repeating: 1, count: 32 * devicesAfter)),
            change: change)
        // The person is the content's first field (tag 0x0A, 32 bytes): put the claimed one there.
        var content = own.content
        precondition(content[0] == 0x0A && content[1] == 32)
        content.replaceSubrange(2..<34, with: person.bytes)
        return DeviceEntryCodec.encode(
            DeviceEntry(
                person: person, seq: own.seq, previous: own.previous, timestamp: own.timestamp, keys: own.keys,
                change: change, content: content, signature: key.sign(DeviceEntryCodec.signatureDomain + content)))
    }
}
