import ConfabCrypto
import ConfabModel
import ConfabWire
import Foundation
import GRDB
import Testing

@testable import ConfabStore

/// What Alice set on her one machine before she linked a second reaches the second
/// (Protocol.md §20.15, the snapshot): the person key writes it into the personal
/// conversation when it creates it at the link, names of peer keys included.
@Suite struct SettingSnapshotTests {
    let laptopKey = DeviceKeys.laptop
    static let robin = try! SigningKeyPair(seed: [UInt8](repeating: 0x6F, count: 32))

    struct Desktop {
        let store: ConfabStore
        let withBob: ConversationID
        let withCarol: ConversationID
    }

    /// Alice's desktop before any link: Bob named by hand and verified, Carol and Robin
    /// named by their own claims, Mallory blocked before she was ever seen, her two
    /// conversations flagged, typing off.
    func alicesDesktopBeforeLinking() throws -> Desktop {
        let desktop = try makeStore(Keys.alice)
        try desktop.setDisplayName("Alice")
        let (withBob, _) = try desktop.createConversation(with: [Keys.bob.id], firstMessage: "hi", now: at(1))
        let (withCarol, _) = try desktop.createConversation(with: [Keys.carol.id], firstMessage: "hey", now: at(2))
        try desktop.savePeer(Keys.bob.id, name: "Bobby", now: at(3))
        try desktop.setTrust(Keys.bob.id, .verified, now: at(3))
        try desktop.notePeerSeen(Keys.carol.id, suggestedName: "Carol", address: nil, now: at(3))
        try desktop.notePeerSeen(Self.robin.id, suggestedName: "Robin", address: nil, now: at(3))
        try desktop.setTrust(Keys.mallory.id, .blocked, now: at(3))
        try desktop.setFlag(.pinned, true, on: withBob, now: at(4))
        try desktop.setFlag(.muted, true, on: withBob, now: at(4))
        try desktop.setFlag(.archived, true, on: withCarol, now: at(4))
        try desktop.setFlag(.markedUnread, true, on: withCarol, now: at(4))
        try desktop.setTypingIndicators(false, now: at(4))
        #expect(try desktop.personalConversation() == nil)
        return Desktop(store: desktop, withBob: withBob, withCarol: withCarol)
    }

    /// `devices link` as LinkOffer does it: the list entry, then the personal conversation,
    /// then the keys. Returns it.
    func link(_ desktop: ConfabStore, now: Date = at(10)) throws -> ConversationID {
        _ = try desktop.addMyDevice(laptopKey.id, name: "laptop", now: now)
        return try #require(try desktop.ensurePersonalConversation(now: now))
    }

    func newLaptop(of desktop: ConfabStore) throws -> ConfabStore {
        let laptop = try makeStore(laptopKey)
        try laptop.takeLink(
            person: Keys.alice.id, list: try desktop.encodedDeviceList(of: Keys.alice.id), displayName: "Alice",
            keys: try desktop.epochKeys())
        return laptop
    }

    func addedByHand(_ peer: NodeID, in store: ConfabStore) throws -> Bool? {
        try store.writer.read { db in
            try Bool.fetchOne(db, sql: "SELECT addedByHand FROM peer WHERE id = ?", arguments: [peer.bytes])
        }
    }

    @Test func everythingSetBeforeTheFirstLinkIsOnTheNewMachine() throws {
        let d = try alicesDesktopBeforeLinking()
        let personal = try link(d.store)
        let laptop = try newLaptop(of: d.store)
        // The personal conversation first: the flags wait for their conversations.
        for conversation in [personal, d.withBob, d.withCarol] { try sync(conversation, from: d.store, to: laptop) }

        let bob = try #require(try laptop.conversation(d.withBob))
        #expect(bob.isPinned && bob.isMuted && !bob.isArchived && !bob.isMarkedUnread)
        let carol = try #require(try laptop.conversations(.all).first { $0.id == d.withCarol })
        #expect(carol.isArchived && carol.isMarkedUnread && !carol.isPinned && !carol.isMuted)
        #expect(try laptop.typingIndicators() == false)
        #expect(try laptop.peer(Keys.bob.id)?.name == "Bobby")
        #expect(try laptop.peer(Keys.bob.id)?.trust == .verified)
        #expect(try addedByHand(Keys.bob.id, in: laptop) == true)
        #expect(try laptop.peer(Keys.carol.id)?.name == "Carol")
        #expect(try addedByHand(Keys.carol.id, in: laptop) == false)
        #expect(try laptop.peer(Self.robin.id)?.name == "Robin")
        #expect(try laptop.peer(Keys.mallory.id)?.trust == .blocked)
        #expect(try laptop.peer(Keys.mallory.id)?.name == Keys.mallory.id.shortHex)
        // The create and ten settings: two names by hand or claimed and one more claimed,
        // two trusts, four flags, typing. Nothing for what a new machine has already.
        #expect(try laptop.clock(of: personal)[Keys.alice.id] == 11)
    }

    /// The snapshot is written once, with the personal conversation: a later link, or a
    /// second look, writes nothing more (every change since was written when made).
    @Test func aLaterLinkWritesNoSecondSnapshot() throws {
        let d = try alicesDesktopBeforeLinking()
        let personal = try link(d.store)
        let written = try d.store.clock(of: personal)[Keys.alice.id]
        #expect(written == 11)
        _ = try d.store.addMyDevice(PersonalSettingsTests.phone.id, name: "phone", now: at(20))
        #expect(try d.store.ensurePersonalConversation(now: at(20)) == personal)
        #expect(try d.store.clock(of: personal)[Keys.alice.id] == written)
    }

    /// A name by hand made after the link travels as a change of its own.
    @Test func aNameGivenByHandAfterTheLinkTravels() throws {
        let d = try alicesDesktopBeforeLinking()
        let personal = try link(d.store)
        let laptop = try newLaptop(of: d.store)
        try sync(personal, from: d.store, to: laptop)
        try laptop.savePeer(Keys.carol.id, name: "Caz", now: at(30))
        try sync(personal, from: laptop, to: d.store)
        #expect(try d.store.peer(Keys.carol.id)?.name == "Caz")
        #expect(try addedByHand(Keys.carol.id, in: d.store) == true)
        // And renamed back on the desktop, the laptop follows.
        try d.store.savePeer(Keys.carol.id, name: "Carol B", now: at(31))
        try sync(personal, from: d.store, to: laptop)
        #expect(try laptop.peer(Keys.carol.id)?.name == "Carol B")
    }

    // MARK: Lies and claims

    /// A claim never renames a key the new machine already names (§4.8.6): the laptop met
    /// Carol itself before it took the snapshot. A name by hand does rename it: it is the
    /// person's own label (fails when the "no name yet" rule of a claim is removed).
    @Test func aClaimedNameDoesNotRenameAKeyAlreadyNamed() throws {
        let d = try alicesDesktopBeforeLinking()
        try d.store.notePeerSeen(Keys.carol.id, suggestedName: "Caroline", address: nil, now: at(5))
        #expect(try d.store.peer(Keys.carol.id)?.name == "Caroline")
        let personal = try link(d.store)
        let laptop = try newLaptop(of: d.store)
        try laptop.notePeerSeen(Keys.carol.id, suggestedName: "Carol", address: nil, now: at(11))
        try laptop.notePeerSeen(Keys.bob.id, suggestedName: "Bob", address: nil, now: at(11))
        try sync(personal, from: d.store, to: laptop)
        // The snapshot was taken: Bob's name by hand renamed what Bob claimed here.
        #expect(try laptop.peer(Keys.bob.id)?.name == "Bobby")
        #expect(try laptop.peer(Self.robin.id)?.name == "Robin")
        #expect(try laptop.peer(Keys.carol.id)?.name == "Carol")
    }

    /// A claim that another key's name here already has is stored as `name (1a2b3c4d)`
    /// with the warning (§8.1); a name by hand that another key has here is kept apart the
    /// same way, without the warning (it is the person's own). Fails when the collision
    /// check is removed.
    @Test func aNameAnotherKeyHasHereGetsTheKeyForm() throws {
        let d = try alicesDesktopBeforeLinking()
        let personal = try link(d.store)
        let laptop = try newLaptop(of: d.store)
        // Two other keys the laptop met first, going by Robin's and Bob's names.
        try laptop.notePeerSeen(DeviceKeys.stranger.id, suggestedName: "Robin", address: nil, now: at(11))
        try laptop.notePeerSeen(DeviceKeys.mallorysPhone.id, suggestedName: "bobby", address: nil, now: at(11))
        try sync(personal, from: d.store, to: laptop)
        let robin = try #require(try laptop.peer(Self.robin.id))
        #expect(robin.name == "Robin (\(Self.robin.id.shortHex))")
        #expect(robin.claimedName == "Robin" && robin.warning != nil)
        let bob = try #require(try laptop.peer(Keys.bob.id))
        #expect(bob.name == "Bobby (\(Keys.bob.id.shortHex))")
        #expect(bob.claimedName == nil && bob.warning == nil)
        #expect(try laptop.peer(DeviceKeys.stranger.id)?.name == "Robin")
        #expect(try laptop.peer(DeviceKeys.mallorysPhone.id)?.name == "bobby")
    }

    /// A name setting naming the laptop's own key, or its person's, changes nothing there,
    /// though one naming another key in the same batch does (fails when that rule is
    /// removed).
    @Test func aNameForTheNodesOwnKeyOrItsPersonsChangesNothing() throws {
        let d = try alicesDesktopBeforeLinking()
        let personal = try link(d.store)
        let laptop = try newLaptop(of: d.store)
        try sync(personal, from: d.store, to: laptop)
        for (target, byHand) in [
            (laptopKey.id, true), (Keys.alice.id, true), (laptopKey.id, false), (Keys.alice.id, false),
        ] {
            try d.store.write { db in
                try d.store.writeSetting(
                    #require(PersonalSetting.name("Evil", of: target, byHand: byHand)), in: personal, db: db,
                    now: at(40))
            }
        }
        try d.store.savePeer(Keys.carol.id, name: "Carol B", now: at(41))
        #expect(try sync(personal, from: d.store, to: laptop) == 5)
        #expect(try laptop.peer(Keys.carol.id)?.name == "Carol B")
        #expect(try laptop.peer(laptopKey.id) == nil)
        #expect(try laptop.peer(Keys.alice.id)?.name != "Evil")
        #expect(try laptop.peers().allSatisfy { $0.name != "Evil" })
    }

    /// Names that are not as §8.1 stores one, sealed by Alice's own desktop into her
    /// personal conversation: each entry is stored (validly signed) and changes nothing,
    /// while a good one after them names its key (fails when the decoder's name rule is
    /// removed).
    @Test func aNameNotAsStoredChangesNothing() throws {
        let d = try alicesDesktopBeforeLinking()
        let personal = try link(d.store)
        let laptop = try newLaptop(of: d.store)
        try sync(personal, from: d.store, to: laptop)
        let key = try conversationKey(d.store, personal)
        let bad = [
            "", " Eve", "Eve  Smith", "Eve\nSmith", "Eve\u{202E}", "\u{1B}[31mEve",
            String(repeating: "e", count: Limits.maxNameBytes + 1), "1a2b3c4d", "Eve (1a2b3c4d)",
        ]
        for (index, name) in (bad + ["Eve"]).enumerated() {
            let target = index == bad.count ? Keys.relay.id : DeviceKeys.stranger.id
            let draft = try nextDraft(d.store, in: personal, body: .setting(sealed: []), now: at(50 + index))
            let sealed = try sealRaw(
                namePlaintext(target, name), key: key, personal: personal, author: Keys.alice.id, seq: draft.seq)
            let entry = EntryCodec.sign(
                EntryDraft(
                    conversationID: personal, seq: draft.seq, previous: draft.previous, timestamp: draft.timestamp,
                    clock: draft.clock, body: .setting(sealed: sealed)),
                with: Keys.alice)
            for store in [d.store, laptop] {
                let results = try store.append(batch: [EntryCodec.encode(entry)], now: at(60))
                guard case .success(.appended) = results.first else {
                    Issue.record("entry \(index) not stored: \(results)")
                    return
                }
            }
        }
        #expect(try laptop.peer(Keys.relay.id)?.name == "Eve")
        #expect(try laptop.peer(DeviceKeys.stranger.id) == nil)
    }

    /// A name setting in Bob's personal conversation, held by Alice as its relay, names
    /// nothing for her: only her own person's settings are hers.
    @Test func aNameInAnotherPersonsPersonalConversationNamesNothing() throws {
        let d = try alicesDesktopBeforeLinking()
        let bob = try makeStore(Keys.bob)
        _ = try bob.addMyDevice(DeviceKeys.bobsPhone.id, name: "phone", now: at(10))
        let bobsPersonal = try #require(try bob.ensurePersonalConversation(now: at(10)))
        try bob.savePeer(Keys.carol.id, name: "Evil Carol", now: at(11))
        #expect(try sync(bobsPersonal, from: bob, to: d.store, asRelay: true) == 2)
        #expect(try d.store.peer(Keys.carol.id)?.name == "Carol")
    }

    /// `SettingPlaintext` of a name setting, encoded by hand as §20.15 gives it.
    func namePlaintext(_ target: NodeID, _ name: String) -> [UInt8] {
        let name = Array(name.utf8)
        return [0x0A, 0x20] + target.bytes + [0x10, 0x08, 0x18, 0x01, 0x2A] + varint(name.count) + name
    }

    func varint(_ value: Int) -> [UInt8] {
        value < 0x80 ? [UInt8(value)] : [UInt8(value & 0x7F) | 0x80, UInt8(value >> 7)]
    }

    /// Sealed as §20.15 says, under its additional data.
    func sealRaw(
        _ plaintext: [UInt8], key: SecureBytes, personal: ConversationID, author: NodeID, seq: UInt64
    ) throws -> [UInt8] {
        let seqBytes = (0..<8).reversed().map { UInt8(truncatingIfNeeded: seq >> (8 * UInt64($0))) }
        let additionalData = Array("confab/setting/v1".utf8) + [0] + personal.bytes + author.bytes + seqBytes
        return try AEAD.seal(plaintext, key: key, additionalData: additionalData)
    }
}

/// A person of many peers and conversations still links: the snapshot is one entry per
/// setting, in the write that creates the personal conversation, and the new machine takes
/// them all. Prints how long each side took (Protocol.md §20.15 gives the figure).
@Suite struct LargeSettingSnapshotTests {
    @Test func aThousandPeersAndAHundredConversationsReachTheNewMachine() throws {
        let desktop = try makeStore(Keys.alice)
        let peers = (0..<1000).map { _ in NodeID(bytes: Random.bytes(32))! }
        let conversations = (0..<100).map { _ in ConversationID(bytes: Random.bytes(16))! }
        try desktop.writer.write { db in
            for (index, peer) in peers.enumerated() {
                let name = "person \(index)"
                try db.execute(
                    sql:
                        "INSERT INTO peer(id, name, nameSkeleton, trust, addedAt, addedByHand) VALUES (?, ?, ?, ?, 0, ?)",
                    arguments: [
                        peer.bytes, name, NameSkeleton.of(name), index % 5 == 0 ? "verified" : "unverified",
                        index % 2,
                    ])
            }
            for conversation in conversations {
                try db.execute(
                    sql: "INSERT INTO local_state(conversationId, pinned, muted) VALUES (?, 1, 1)",
                    arguments: [conversation.bytes])
            }
        }
        _ = try desktop.addMyDevice(DeviceKeys.laptop.id, name: "laptop", now: at(10))
        let started = Date()
        let personal = try #require(try desktop.ensurePersonalConversation(now: at(10)))
        let written = Date().timeIntervalSince(started)
        // The create, 1,000 names, 200 trusts, 200 flags.
        #expect(try desktop.clock(of: personal)[Keys.alice.id] == 1 + 1000 + 200 + 200)

        let laptop = try makeStore(DeviceKeys.laptop)
        try laptop.takeLink(
            person: Keys.alice.id, list: try desktop.encodedDeviceList(of: Keys.alice.id), displayName: "Alice",
            keys: try desktop.epochKeys())
        let taking = Date()
        // A sync round moves a page of entries at a time.
        var taken = 0
        var appended = 0
        repeat {
            appended = try sync(personal, from: desktop, to: laptop)
            taken += appended
        } while appended > 0
        #expect(taken == 1401)
        print(
            "snapshot of 1,000 peers and 100 conversations: written in \(written) s, "
                + "taken in \(Date().timeIntervalSince(taking)) s")
        #expect(try laptop.peers().filter { $0.name.hasPrefix("person ") }.count == 1000)
        #expect(try laptop.peers().filter { $0.trust == .verified }.count == 200)
        #expect(try laptop.peer(peers[7])?.name == "person 7")
    }
}
