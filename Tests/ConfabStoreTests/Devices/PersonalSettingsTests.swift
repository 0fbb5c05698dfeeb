import ConfabCrypto
import ConfabModel
import ConfabWire
import Foundation
import Testing

@testable import ConfabStore

/// A person's settings travel between its devices (Protocol.md §20.15): pins, archive, mute,
/// mark unread, deletion, the typing setting and trust, written by each device into the
/// person's personal conversation and taken by the others, the change last in (timestamp,
/// author, seq) order winning everywhere. Nobody else writes there, nobody else is offered
/// it, and no view lists it.
@Suite struct PersonalSettingsTests {
    let laptopKey = DeviceKeys.laptop
    static let phone = try! SigningKeyPair(seed: [UInt8](repeating: 0x5E, count: 32))

    struct Machines {
        let desktop: ConfabStore
        let laptop: ConfabStore
        let bob: ConfabStore
        let id: ConversationID
        let personal: ConversationID
    }

    /// Alice's desktop and laptop, linked as `devices link` links them (the personal
    /// conversation made before the keys are read), both holding her conversation with Bob.
    func alicesTwoMachines() throws -> Machines {
        let desktop = try makeStore(Keys.alice)
        let bob = try makeStore(Keys.bob)
        let (id, _) = try desktop.createConversation(with: [Keys.bob.id], firstMessage: "hi", now: at(1))
        try sync(id, from: desktop, to: bob)
        _ = try desktop.addMyDevice(laptopKey.id, name: "laptop", now: at(1))
        let personal = try #require(try desktop.ensurePersonalConversation(now: at(1)))
        let laptop = try link(laptopKey, to: desktop, conversations: [id, personal])
        return Machines(desktop: desktop, laptop: laptop, bob: bob, id: id, personal: personal)
    }

    func link(_ key: SigningKeyPair, to desktop: ConfabStore, conversations: [ConversationID]) throws -> ConfabStore {
        let store = try makeStore(key)
        try store.takeLink(
            person: Keys.alice.id, list: try desktop.encodedDeviceList(of: Keys.alice.id), displayName: "Alice",
            keys: try desktop.epochKeys())
        for conversation in conversations { try sync(conversation, from: desktop, to: store) }
        return store
    }

    @Test func aPinOnTheDesktopPinsTheLaptop() throws {
        let m = try alicesTwoMachines()
        #expect(try m.laptop.conversation(m.id)?.isPinned == false)
        try m.desktop.setFlag(.pinned, true, on: m.id, now: at(5))
        try sync(m.personal, from: m.desktop, to: m.laptop)
        #expect(try m.laptop.conversation(m.id)?.isPinned == true)
        // The laptop took it and wrote nothing of its own for it.
        #expect(try m.laptop.clock(of: m.personal)[laptopKey.id] == 0)
    }

    @Test func everyFieldChangedOnTheLaptopReachesTheDesktop() throws {
        let m = try alicesTwoMachines()
        try m.laptop.setFlag(.archived, true, on: m.id, now: at(5))
        try m.laptop.setFlag(.muted, true, on: m.id, now: at(6))
        try m.laptop.setFlag(.markedUnread, true, on: m.id, now: at(7))
        try m.laptop.setTypingIndicators(false, now: at(8))
        try m.laptop.setTrust(Keys.bob.id, .verified, now: at(9))
        try sync(m.personal, from: m.laptop, to: m.desktop)
        let summary = try #require(try m.desktop.conversations(.all).first { $0.id == m.id })
        #expect(summary.isArchived && summary.isMuted && summary.isMarkedUnread)
        #expect(try m.desktop.typingIndicators() == false)
        #expect(try m.desktop.peer(Keys.bob.id)?.trust == .verified)

        try m.laptop.setTrust(Keys.bob.id, .blocked, now: at(10))
        try m.laptop.deleteConversation(m.id, now: at(11))
        try sync(m.personal, from: m.laptop, to: m.desktop)
        #expect(try m.desktop.peer(Keys.bob.id)?.trust == .blocked)
        #expect(try m.desktop.conversation(m.id) == nil)
        #expect(try m.desktop.history(m.id).isEmpty)
    }

    /// Both change one setting before either hears of the other: each ends with the value of
    /// the later change, whichever order they take them in.
    @Test func concurrentChangesConverge() throws {
        let m = try alicesTwoMachines()
        try m.desktop.setFlag(.pinned, true, on: m.id, now: at(20))
        try m.laptop.setFlag(.pinned, false, on: m.id, now: at(10))
        try m.laptop.setFlag(.muted, true, on: m.id, now: at(30))
        try m.desktop.setFlag(.muted, false, on: m.id, now: at(25))
        try syncBoth(m.personal, m.desktop, m.laptop)
        for store in [m.desktop, m.laptop] {
            let summary = try #require(try store.conversation(m.id))
            #expect(summary.isPinned == true)
            #expect(summary.isMuted == true)
        }
        // The same time on both: the author key decides, the same way on both.
        try m.desktop.setFlag(.archived, true, on: m.id, now: at(40))
        try m.laptop.setFlag(.archived, false, on: m.id, now: at(40))
        try syncBoth(m.personal, m.desktop, m.laptop)
        let archived = try m.desktop.conversations(.all).first { $0.id == m.id }?.isArchived
        #expect(archived == (laptopKey.id.bytes.lexicographicallyPrecedes(Keys.alice.id.bytes)))
        #expect(try m.laptop.conversations(.all).first { $0.id == m.id }?.isArchived == archived)
    }

    @Test func aNewlyLinkedDeviceGetsEverySetting() throws {
        let m = try alicesTwoMachines()
        try m.desktop.setFlag(.pinned, true, on: m.id, now: at(5))
        try m.laptop.setFlag(.muted, true, on: m.id, now: at(6))
        try m.laptop.setTrust(Keys.bob.id, .verified, now: at(7))
        try m.laptop.setTypingIndicators(false, now: at(8))
        try sync(m.personal, from: m.laptop, to: m.desktop)
        _ = try m.desktop.addMyDevice(Self.phone.id, name: "phone", now: at(9))
        let phone = try link(Self.phone, to: m.desktop, conversations: [m.id, m.personal])
        let summary = try #require(try phone.conversation(m.id))
        #expect(summary.isPinned && summary.isMuted)
        #expect(try phone.peer(Keys.bob.id)?.trust == .verified)
        #expect(try phone.typingIndicators() == false)
    }

    @Test func thePersonalConversationIsListedNowhere() throws {
        let m = try alicesTwoMachines()
        try m.desktop.setFlag(.pinned, true, on: m.id, now: at(5))
        try syncBoth(m.personal, m.desktop, m.laptop)
        for store in [m.desktop, m.laptop] {
            #expect(try store.personalConversation() == m.personal)
            #expect(try store.conversations(.all).map(\.id) == [m.id])
            #expect(try store.conversations(.all, limit: 10).map(\.id) == [m.id])
            #expect(try store.conversation(m.personal) == nil)
            #expect(try store.unreadCount(m.personal) == 0)
            #expect(try store.search("hi").allSatisfy { $0.conversation.id != m.personal })
        }
        #expect(try m.desktop.totalUnread() == 0)
    }

    /// A person with one machine (no list) writes nothing new: its settings stay on it.
    @Test func aPersonOfOneMachineWritesNothing() throws {
        let alice = try makeStore(Keys.alice)
        let (id, _) = try alice.createConversation(with: [Keys.bob.id], now: at(1))
        try alice.setFlag(.pinned, true, on: id, now: at(2))
        try alice.setTypingIndicators(false, now: at(3))
        #expect(try alice.personalConversation() == nil)
        #expect(try alice.allClocks().keys.sorted() == [id])
        #expect(try alice.conversation(id)?.isPinned == true)
    }

    // MARK: Lies

    /// Bob writes a setting into Alice's personal conversation: he is no device of hers, so
    /// it is refused (§20.15; fails when the membership check of §7 step 4 is removed).
    @Test func bobsSettingInAlicesPersonalConversationIsRefused() throws {
        let m = try alicesTwoMachines()
        try m.desktop.setFlag(.pinned, true, on: m.id, now: at(5))
        var clock = VectorClock()
        clock[Keys.alice.id] = 1
        let sealed = try SettingCipher.seal(
            .flag(.pinned, false, of: m.id), key: try conversationKey(m.desktop, m.personal),
            conversationID: m.personal, author: Keys.bob.id, seq: 1)
        let lie = EntryCodec.sign(
            EntryDraft(
                conversationID: m.personal, seq: 1, previous: nil, timestamp: at(50).millisecondsSince1970,
                clock: clock, body: .setting(sealed: sealed)),
            with: Keys.bob)
        for store in [m.desktop, m.laptop] {
            try expectAppendRejected(EntryCodec.encode(lie), by: store, .notParticipant)
            #expect(try store.conversation(m.id)?.isPinned == (store === m.desktop))
        }
    }

    @Test func bobIsNeverOfferedAlicesPersonalConversation() throws {
        let m = try alicesTwoMachines()
        #expect(try m.desktop.sharing(m.personal, with: Keys.bob.id) == .none)
        #expect(try m.desktop.clocks(sharedWith: Keys.bob.id)[m.personal] == nil)
        #expect(try m.desktop.clocks(sharedWith: Keys.bob.id)[m.id] != nil)
        #expect(try m.desktop.sharing(m.personal, with: laptopKey.id) == .everything)
        #expect(try m.desktop.clocks(sharedWith: laptopKey.id)[m.personal] != nil)
    }

    @Test func aPersonalCreateOfTwoParticipantsIsMalformed() throws {
        let (nonce, id, key, commitment) = ConversationGenesis.make(creator: Keys.alice.id)
        let participants = try [Keys.alice.id, Keys.bob.id].map {
            CreateBody.Participant(
                id: $0, sealedKey: try ConversationCipher.sealKey(key, to: $0, keys: SealingKeys(encryptionKeys: [:])))
        }
        for members in [participants, [participants[1]]] {
            let entry = EntryCodec.sign(
                EntryDraft(
                    conversationID: id, seq: 1, previous: nil, timestamp: at(1).millisecondsSince1970,
                    clock: VectorClock(),
                    body: .create(
                        CreateBody(
                            participants: members, sealedTitle: [], nonce: nonce, keyCommitment: commitment,
                            personal: true))),
                with: Keys.alice)
            #expect(throws: WireError.self) { try EntryCodec.decode(EntryCodec.encode(entry)) }
            let store = try makeStore(Keys.bob)
            try expectAppendRejected(EntryCodec.encode(entry), by: store, .undecodable)
        }
    }

    /// The laptop, removed, still writes: its changes past its cut are no longer Alice's.
    @Test func aRemovedDevicesLaterChangesAreRefused() throws {
        let m = try alicesTwoMachines()
        try m.laptop.setFlag(.muted, true, on: m.id, now: at(5))
        try sync(m.personal, from: m.laptop, to: m.desktop)
        #expect(try m.desktop.conversation(m.id)?.isMuted == true)
        _ = try m.desktop.removeMyDevice(laptopKey.id, now: at(20))
        try m.laptop.setFlag(.muted, false, on: m.id, now: at(30))
        let late = try m.laptop.clock(of: m.personal)[laptopKey.id]
        let raw = try #require(
            try m.laptop.entries(in: m.personal, author: laptopKey.id, after: late - 1, limit: 1).first)
        try expectAppendRejected(raw, by: m.desktop, .notParticipant)
        #expect(try m.desktop.conversation(m.id)?.isMuted == true)
    }

    /// A removal rekeys the personal conversation with the others (§20.13), not reported as
    /// a conversation rekeyed: the removed laptop holds the entries written after it and
    /// opens none of them, so the desktop's next pin stays the desktop's.
    @Test func aRemovalRekeysThePersonalConversationAndTheRemovedDeviceTakesNothingAfter() throws {
        let m = try alicesTwoMachines()
        let outcome = try m.desktop.removeDevice(laptopKey.id, now: at(20))
        #expect(outcome.rekeyed == [m.id])
        try m.desktop.setFlag(.pinned, true, on: m.id, now: at(21))
        #expect(try sync(m.personal, from: m.desktop, to: m.laptop) == 2)
        #expect(try m.desktop.conversation(m.id)?.isPinned == true)
        #expect(try m.laptop.conversation(m.id)?.isPinned == false)
    }

    /// A setting is written only in a personal conversation: Alice's desktop writing one into
    /// her conversation with Bob is refused by Bob, changing nothing there.
    @Test func aSettingOutsideAPersonalConversationIsRefused() throws {
        let m = try alicesTwoMachines()
        let draft = try nextDraft(m.desktop, in: m.id, body: .setting(sealed: [UInt8](repeating: 7, count: 60)))
        let entry = EntryCodec.sign(draft, with: Keys.alice)
        try expectAppendRejected(EntryCodec.encode(entry), by: m.bob, .badTarget)
    }

    /// The personal conversation stays Alice's alone: adding Bob to it is refused, even by
    /// her own desktop, and writes nothing.
    @Test func nobodyIsAddedToAPersonalConversation() throws {
        let m = try alicesTwoMachines()
        let before = try m.desktop.clock(of: m.personal)
        let rejection = #expect(throws: AppendRejection.self) {
            try m.desktop.changeMembers(of: m.personal, add: [Keys.bob.id], now: at(5))
        }
        #expect(rejection?.category == .badMembership)
        #expect(try m.desktop.clock(of: m.personal) == before)
        #expect(try m.desktop.participants(of: m.personal) == [Keys.alice.id])
    }
}
