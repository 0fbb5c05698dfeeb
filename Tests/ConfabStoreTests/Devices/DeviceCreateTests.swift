import ConfabCrypto
import ConfabModel
import ConfabWire
import Foundation
import Testing

@testable import ConfabStore

/// A linked device starts conversations and groups in its person's name (Protocol.md
/// §20.11): the person first among the participants, the device no participant, its create
/// taken only where exactly one held list — that of the person it lists first — names the
/// device now. The person is the conversation's admin, as if the person key had made it.
@Suite struct DeviceCreateTests {
    let laptopKey = DeviceKeys.laptop

    struct Machines {
        let desktop: ConfabStore
        let laptop: ConfabStore
        let bob: ConfabStore
        let carol: ConfabStore
    }

    /// Alice's desktop and her linked laptop; Bob and Carol hold Alice's list when `listed`.
    func machines(listed: Bool = true) throws -> Machines {
        let desktop = try makeStore(Keys.alice)
        _ = try desktop.addMyDevice(laptopKey.id, name: "laptop", now: at(1))
        let laptop = try makeStore(laptopKey)
        try laptop.takeLink(
            person: Keys.alice.id, list: try desktop.encodedDeviceList(of: Keys.alice.id), displayName: "Alice",
            keys: try desktop.epochKeys())
        let bob = try makeStore(Keys.bob)
        let carol = try makeStore(Keys.carol)
        for store in [bob, carol] where listed { try offerList(of: desktop, to: store) }
        return Machines(desktop: desktop, laptop: laptop, bob: bob, carol: carol)
    }

    func offerList(of owner: ConfabStore, to store: ConfabStore) throws {
        guard case .taken = try store.offerDeviceList(try owner.encodedDeviceList(of: owner.me), of: owner.me) else {
            Issue.record("the list was not taken")
            return
        }
    }

    @Test func theLaptopStartsAConversationThatIsAlicesEverywhere() throws {
        let m = try machines()
        let (id, _) = try m.laptop.createConversation(with: [Keys.bob.id], firstMessage: "from the laptop", now: at(2))
        #expect(try m.laptop.participants(of: id) == [Keys.alice.id, Keys.bob.id])
        try sync(id, from: m.laptop, to: m.bob)
        try sync(id, from: m.laptop, to: m.desktop)
        for store in [m.bob, m.desktop] {
            #expect(try store.participants(of: id) == [Keys.alice.id, Keys.bob.id])
        }
        let atBob = try #require(try m.bob.history(id).last)
        #expect(atBob.text == "from the laptop" && atBob.authorName == "Alice" && !atBob.isMine)
        let atDesktop = try #require(try m.desktop.history(id).last)
        #expect(atDesktop.text == "from the laptop" && atDesktop.isMine)
        // Bob answers; the desktop, which never wrote here, reads and answers too.
        _ = try m.bob.sendMessage("hi Alice", to: id, now: at(3))
        try sync(id, from: m.bob, to: m.desktop)
        #expect(try m.desktop.history(id).last?.text == "hi Alice")
        _ = try m.desktop.sendMessage("from the desktop", to: id, now: at(4))
        try sync(id, from: m.desktop, to: m.bob)
        try sync(id, from: m.desktop, to: m.laptop)
        try sync(id, from: m.bob, to: m.laptop)
        #expect(try m.bob.history(id).map(\.authorName) == ["Alice", "You", "Alice"])
        #expect(try m.laptop.history(id).map(\.isMine) == [true, false, true])
    }

    /// A group the laptop starts has Alice as its admin: the laptop, acting for her, removes
    /// a member, and Bob (no admin) cannot.
    @Test func aGroupTheLaptopStartsHasAliceAsItsAdmin() throws {
        let m = try machines()
        let (id, _) = try m.laptop.createConversation(
            with: [Keys.bob.id, Keys.carol.id], title: "lunch", firstMessage: "noon?", now: at(2))
        for store in [m.bob, m.carol, m.desktop] { try sync(id, from: m.laptop, to: store) }
        #expect(try m.carol.conversation(id)?.title == "lunch")
        #expect(throws: (any Error).self) { try m.bob.changeMembers(of: id, remove: [Keys.carol.id], now: at(3)) }
        _ = try m.laptop.changeMembers(of: id, remove: [Keys.carol.id], now: at(4))
        try sync(id, from: m.laptop, to: m.bob)
        try sync(id, from: m.laptop, to: m.desktop)
        #expect(try m.bob.participants(of: id) == [Keys.alice.id, Keys.bob.id])
        #expect(try m.desktop.participants(of: id) == [Keys.alice.id, Keys.bob.id])
    }

    /// Before Bob holds Alice's list the laptop is nobody he knows: its create waits, refused
    /// as a non-member's entry, and is taken once the list comes.
    @Test func aCreateBeforeTheListIsRefusedThenTaken() throws {
        let m = try machines(listed: false)
        let (id, _) = try m.laptop.createConversation(with: [Keys.bob.id], now: at(2))
        let create = try #require(try missingEntries(id, from: m.laptop, to: m.bob).first)
        try expectAppendRejected(create, by: m.bob, .notParticipant)
        try offerList(of: m.desktop, to: m.bob)
        #expect(try sync(id, from: m.laptop, to: m.bob) == 1)
        #expect(try m.bob.participants(of: id) == [Keys.alice.id, Keys.bob.id])
    }

    /// Mallory's phone, listed by Mallory, signs creates that name Bob, or Alice, first: the
    /// first participant's list does not name the phone, so neither is anyone's conversation.
    @Test func aDeviceListingAnotherPersonFirstIsRefused() throws {
        let m = try machines()
        let mallory = try makeStore(Keys.mallory)
        _ = try mallory.addMyDevice(DeviceKeys.mallorysPhone.id, name: "phone", now: at(1))
        try offerList(of: mallory, to: m.bob)
        for participants in [[Keys.bob.id, Keys.mallory.id], [Keys.alice.id, Keys.bob.id]] {
            let lie = try Self.create(by: DeviceKeys.mallorysPhone, participants: participants)
            try expectAppendRejected(lie, by: m.bob, .notParticipant)
        }
        // Listing Mallory first, the same phone's create is Mallory's (a control for the above).
        let honest = try Self.create(by: DeviceKeys.mallorysPhone, participants: [Keys.mallory.id, Keys.bob.id])
        if case .appended = try m.bob.append(honest) {} else { Issue.record("Mallory's own create was refused") }
    }

    /// A list naming a key is no claim on it where two members' lists name it: a create by
    /// such a key is nobody's.
    @Test func aDeviceTwoMembersClaimCreatesNothing() throws {
        let m = try machines()
        let mallory = try makeStore(Keys.mallory)
        _ = try mallory.addMyDevice(laptopKey.id, name: "laptop", now: at(1))
        try offerList(of: mallory, to: m.bob)
        let lie = try Self.create(by: laptopKey, participants: [Keys.alice.id, Keys.bob.id, Keys.mallory.id])
        try expectAppendRejected(lie, by: m.bob, .notParticipant)
    }

    /// A device removed before it wrote a create has no cut in that conversation: whatever
    /// the create's date, it is refused.
    @Test func aRemovedDevicesCreateIsRefused() throws {
        let m = try machines()
        _ = try m.desktop.removeMyDevice(laptopKey.id, now: at(5))
        try offerList(of: m.desktop, to: m.bob)
        let backdated = try Self.create(by: laptopKey, participants: [Keys.alice.id, Keys.bob.id], at: at(1))
        try expectAppendRejected(backdated, by: m.bob, .notParticipant)
    }

    /// A personal create or a large group names its author: by a device, either is malformed.
    @Test func aDevicesPersonalCreateOrLargeGroupIsMalformed() throws {
        let personal = try Self.create(by: laptopKey, participants: [Keys.alice.id], personal: true)
        #expect(throws: WireError.self) { try EntryCodec.decode(personal) }
        let store = try makeStore(Keys.bob)
        try expectAppendRejected(personal, by: store, .undecodable)
        let m = try machines()
        #expect(throws: (any Error).self) {
            try m.laptop.createConversation(with: [Keys.bob.id], large: true, now: at(2))
        }
    }

    /// My other machines are in every conversation I am in: neither a conversation with only
    /// them nor an add of one makes one a member in its own right.
    @Test func myOwnMachinesAreNoOneToTalkTo() throws {
        let m = try machines()
        #expect {
            try m.desktop.createConversation(with: [laptopKey.id], now: at(2))
        } throws: { "\($0)".contains("your own machines") }
        let (id, _) = try m.desktop.createConversation(with: [laptopKey.id, Keys.bob.id], now: at(2))
        #expect(try m.desktop.participants(of: id) == [Keys.alice.id, Keys.bob.id])
        #expect {
            try m.desktop.changeMembers(of: id, add: [laptopKey.id], now: at(3))
        } throws: { "\($0)".contains("one of your own machines") }
        // From the laptop, its person's key is no one else either.
        #expect {
            try m.laptop.createConversation(with: [Keys.alice.id], now: at(4))
        } throws: { "\($0)".contains("your own machines") }
    }

    /// A create signed by `key` naming `participants`, its key sealed to each of them.
    static func create(
        by key: SigningKeyPair, participants: [NodeID], personal: Bool = false, at date: Date = at(2)
    ) throws -> [UInt8] {
        let (nonce, id, conversationKey, commitment) = ConversationGenesis.make(creator: key.id)
        let sealed = try participants.map {
            CreateBody.Participant(
                id: $0,
                sealedKey: try ConversationCipher.sealKey(
                    conversationKey, to: $0, keys: SealingKeys(encryptionKeys: [:])))
        }
        let names = try MembershipCipher.sealNames(
            [], key: conversationKey, conversationID: id, author: key.id, seq: 1)
        return EntryCodec.encode(
            EntryCodec.sign(
                EntryDraft(
                    conversationID: id, seq: 1, previous: nil, timestamp: date.millisecondsSince1970,
                    clock: VectorClock(),
                    body: .create(
                        CreateBody(
                            participants: sealed, sealedTitle: [], nonce: nonce, keyCommitment: commitment,
                            sealedNames: names, personal: personal))),
                with: key))
    }
}
