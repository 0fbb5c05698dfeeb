import ConfabCrypto
import ConfabModel
import ConfabWire
import Foundation
import Testing

@testable import ConfabStore

/// Keys sealed to a person (Protocol.md §20.12): a writer that holds a person's device list
/// seals that person's conversation keys to the list's encryption key, which each of the
/// person's devices unwraps from the list, and a removed device does not get the next one.
@Suite struct PersonKeySealingTests {
    static let laptop = try! SigningKeyPair(seed: [UInt8](repeating: 0x1A, count: 32))

    /// Alice's store with the laptop in her list, and Bob's holding that list.
    func aliceWithALaptop() throws -> (alice: ConfabStore, bob: ConfabStore) {
        let alice = try makeStore(Keys.alice)
        _ = try alice.addMyDevice(Self.laptop.id, name: "laptop", now: at(1))
        let bob = try makeStore(Keys.bob)
        let encoded = try alice.deviceList(of: Keys.alice.id).entries.map(DeviceEntryCodec.encode)
        guard case .taken = try bob.offerDeviceList(encoded, of: Keys.alice.id) else {
            throw StoreError.invalidInput("Bob did not take Alice's list")
        }
        return (alice, bob)
    }

    func create(_ id: ConversationID, in store: ConfabStore) throws -> CreateBody {
        let raw = try #require(try store.entries(in: id, author: store.me, after: 0).first)
        guard case .create(let body) = try EntryCodec.decode(raw).body else {
            throw StoreError.invalidInput("the first entry is not a create")
        }
        return body
    }

    func sealedKey(for member: NodeID, in body: CreateBody) throws -> [UInt8] {
        try #require(body.participants.first { $0.id == member }).sealedKey
    }

    @Test func aPersonWithAListHeldIsSealedToItsEncryptionKeyAndEachDeviceOpensIt() throws {
        let (alice, bob) = try aliceWithALaptop()
        let (id, _) = try bob.createConversation(with: [Keys.alice.id], title: "plans", firstMessage: "hi", now: at(2))
        let sealed = try sealedKey(for: Keys.alice.id, in: try create(id, in: bob))
        // Not to Alice's own key any more: a device that is not Alice could not open that.
        #expect(throws: CryptoError.self) { try ConversationCipher.openKey(sealed, with: Keys.alice) }
        let list = try alice.deviceList(of: Keys.alice.id)
        let laptopKeys = OpeningKeys(member: Keys.alice.id, exchangeKeys: list.encryptionKeyPairs(for: Self.laptop))
        let opened = try #require(ConversationCipher.openKey(sealed, with: laptopKeys))
        #expect(opened.isEqual(to: try conversationKey(bob, id)))
        // Mallory's own key, or the laptop's key used as an identity, opens nothing.
        #expect(ConversationCipher.openKey(sealed, with: OpeningKeys(identity: Keys.mallory)) == nil)
        #expect(ConversationCipher.openKey(sealed, with: OpeningKeys(identity: Self.laptop)) == nil)

        // Alice's own node, which holds the person key, reads it through her list's key.
        try sync(id, from: bob, to: alice)
        #expect(try conversationKey(alice, id).isEqual(to: try conversationKey(bob, id)))
        #expect(try alice.history(id).map(\.text) == ["hi"])
    }

    @Test func aPersonWithoutAListIsSealedToItsOwnKeyAsBefore() throws {
        let bob = try makeStore(Keys.bob)
        let carol = try makeStore(Keys.carol)
        let (id, _) = try bob.createConversation(with: [Keys.carol.id], firstMessage: "hi", now: at(2))
        let sealed = try sealedKey(for: Keys.carol.id, in: try create(id, in: bob))
        #expect(try ConversationCipher.openKey(sealed, with: Keys.carol).isEqual(to: try conversationKey(bob, id)))
        try sync(id, from: bob, to: carol)
        #expect(try carol.history(id).map(\.text) == ["hi"])
    }

    @Test func aRemovedDeviceOpensTheKeysOfBeforeItsRemovalAndNotTheNextEpoch() throws {
        let (alice, bob) = try aliceWithALaptop()
        let (id, _) = try bob.createConversation(with: [Keys.alice.id], firstMessage: "before", now: at(2))
        try sync(id, from: bob, to: alice)
        _ = try alice.removeMyDevice(Self.laptop.id, now: at(3))
        let removed = try alice.deviceList(of: Keys.alice.id)
        guard case .taken = try bob.offerDeviceList(removed.entries.map(DeviceEntryCodec.encode), of: Keys.alice.id)
        else {
            Issue.record("Bob did not take the list with the removal")
            return
        }
        // Bob starts a new epoch (adding Carol) once he holds the removal.
        let change = try bob.changeMembers(of: id, add: [Keys.carol.id], now: at(4))
        guard case .members(let members) = change.body else {
            Issue.record("not a members entry")
            return
        }
        let sealed = try #require(members.keys.first { $0.id == Keys.alice.id }).sealedKey
        let laptopKeys = OpeningKeys(
            member: Keys.alice.id, exchangeKeys: removed.encryptionKeyPairs(for: Self.laptop))
        // The laptop still holds the encryption key of its day: the create's key opens...
        let first = try sealedKey(for: Keys.alice.id, in: try create(id, in: bob))
        #expect(ConversationCipher.openKey(first, with: laptopKeys) != nil)
        // ...but not the key of the epoch written after the removal was held.
        #expect(ConversationCipher.openKey(sealed, with: laptopKeys) == nil)
        // Alice, who holds the new encryption key, reads what comes next.
        _ = try bob.sendMessage("after", to: id, now: at(5))
        try sync(id, from: bob, to: alice)
        #expect(try alice.history(id).compactMap(\.text) == ["before", "after"])
    }

    @Test func aLargeGroupWrapsToTheEncryptionKeyBoundToThePersonKey() throws {
        let (alice, bob) = try aliceWithALaptop()
        let (id, _) = try bob.createConversation(
            with: [Keys.alice.id, Keys.carol.id], firstMessage: "hello all", large: true, now: at(2))
        let body = try create(id, in: bob)
        let wrapped = try #require(body.wrapped)
        let index = try #require(body.participants.firstIndex { $0.id == Keys.alice.id })
        let commitment = { ConversationGenesis.keyCommitment($0, conversationID: id) }
        func opens(_ keys: OpeningKeys) -> Bool {
            LargeGroupCipher.open(
                wrapped, index: index, with: keys, commitment: commitment, expected: body.keyCommitment,
                conversationID: id, author: Keys.bob.id, seq: 1) != nil
        }
        let list = try alice.deviceList(of: Keys.alice.id)
        #expect(opens(OpeningKeys(member: Keys.alice.id, exchangeKeys: list.encryptionKeyPairs(for: Self.laptop))))
        #expect(!opens(OpeningKeys(identity: Keys.alice)))
        // The wrap is bound to Alice's key: the same encryption key read as another member fails.
        #expect(!opens(OpeningKeys(member: Keys.carol.id, exchangeKeys: list.encryptionKeyPairs(for: Self.laptop))))
        try sync(id, from: bob, to: alice)
        #expect(try alice.history(id).map(\.text) == ["hello all"])
    }
}
