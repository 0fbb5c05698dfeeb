import ConfabCrypto
import ConfabModel
import ConfabWire
import Foundation
import Testing

@testable import ConfabStore

/// A person is one peer however many machines they use (issue 33): a key that the person's
/// signed list lists is that person's, never a peer of its own — but a list is its signer's
/// word only, so it never makes someone who is a person here into the signer's device.
@Suite struct DeviceOwnerTests {
    static let laptop = try! SigningKeyPair(seed: [UInt8](repeating: 0x1C, count: 32))

    /// Bob, in a conversation with Alice, holding Alice's list with her laptop.
    func bobHoldingAlicesList() throws -> ConfabStore {
        let alice = try makeStore(Keys.alice)
        _ = try alice.addMyDevice(Self.laptop.id, name: "laptop", now: at(1))
        let bob = try makeStore(Keys.bob)
        try bob.savePeer(Keys.alice.id, name: "Alice")
        _ = try bob.createConversation(with: [Keys.alice.id], firstMessage: "hi", now: at(2))
        _ = try bob.offerDeviceList(
            try alice.deviceList(of: Keys.alice.id).entries.map(DeviceEntryCodec.encode), of: Keys.alice.id)
        return bob
    }

    @Test func aListedDeviceIsItsPersonAndNoPeerOfItsOwn() throws {
        let bob = try bobHoldingAlicesList()
        #expect(try bob.deviceOwners() == [Self.laptop.id: DeviceOwner(person: Keys.alice.id, name: "laptop")])
        // The laptop says it is "Alice", as Alice's machines do: no second Alice, no warning.
        let conflict = try bob.notePeerSeen(
            Self.laptop.id, suggestedName: "Alice", address: "127.0.0.1:7001", now: at(3))
        #expect(conflict == nil)
        #expect(try bob.peer(Self.laptop.id) == nil)
        #expect(try bob.peers().map(\.name) == ["Alice"])
        #expect(try bob.peer(Keys.alice.id)?.lastSeenAt == at(3))
    }

    @Test func aListNamingSomeoneWhoIsAPersonHereMakesThemNobodysDevice() throws {
        // Mallory lists Carol's key as her "phone"; Bob has a conversation with Carol.
        var mallorysList = DeviceList(person: Keys.mallory.id)
        try mallorysList.append(
            try DeviceListWriter.add(
                Keys.carol.id, name: "phone", to: mallorysList, person: Keys.mallory, timestamp: 1))
        let bob = try makeStore(Keys.bob)
        _ = try bob.createConversation(
            with: [Keys.carol.id, Keys.mallory.id], title: "t", firstMessage: "hi", now: at(1))
        _ = try bob.offerDeviceList(mallorysList.entries.map(DeviceEntryCodec.encode), of: Keys.mallory.id)
        #expect(try bob.deviceAuthors().names(Keys.carol.id))
        #expect(try bob.deviceOwners().isEmpty)
        _ = try bob.notePeerSeen(Keys.carol.id, suggestedName: "Carol", address: nil, now: at(2))
        #expect(try bob.peer(Keys.carol.id)?.name == "Carol")
    }

    @Test func aPeerAddedByHandOrVerifiedStaysItsOwnPerson() throws {
        let bob = try bobHoldingAlicesList()
        try bob.savePeer(Self.laptop.id, name: "Lap")
        #expect(try bob.deviceOwners().isEmpty)
    }

    @Test func aKeyTwoListsClaimIsNobodysDevice() throws {
        let bob = try bobHoldingAlicesList()
        var mallorysList = DeviceList(person: Keys.mallory.id)
        try mallorysList.append(
            try DeviceListWriter.add(
                Self.laptop.id, name: "mine", to: mallorysList, person: Keys.mallory, timestamp: 1))
        _ = try bob.createConversation(with: [Keys.mallory.id], firstMessage: "hi", now: at(3))
        _ = try bob.offerDeviceList(mallorysList.entries.map(DeviceEntryCodec.encode), of: Keys.mallory.id)
        #expect(try bob.deviceOwners().isEmpty)
    }
}

/// A verified person whose devices changed is shown so, as a key change is (issue 33).
@Suite struct VerifiedDevicesChangedTests {
    @Test func aVerifiedPeerWhoLinksADeviceIsFlaggedUntilVerifiedAgain() throws {
        let alice = try makeStore(Keys.alice)
        let bob = try makeStore(Keys.bob)
        try bob.savePeer(Keys.alice.id, name: "Alice")
        _ = try bob.createConversation(with: [Keys.alice.id], firstMessage: "hi", now: at(1))
        try bob.setTrust(Keys.alice.id, .verified)
        #expect(try bob.peer(Keys.alice.id)?.warning == nil)

        _ = try alice.addMyDevice(DeviceOwnerTests.laptop.id, name: "laptop", now: at(2))
        _ = try bob.offerDeviceList(
            try alice.deviceList(of: Keys.alice.id).entries.map(DeviceEntryCodec.encode), of: Keys.alice.id)
        let flagged = try #require(try bob.peer(Keys.alice.id))
        #expect(flagged.trust == .verified)
        #expect(flagged.devicesChangedSinceVerified == true)
        #expect(flagged.warning?.contains("devices changed") == true)
        #expect(try bob.peers().first { $0.id == Keys.alice.id }?.devicesChangedSinceVerified == true)

        try bob.setTrust(Keys.alice.id, .verified)
        #expect(try bob.peer(Keys.alice.id)?.warning == nil)
    }
}

/// Whom a session speaks for when lists are shared (Protocol.md §20.9): a peer that is a
/// person here in its own right is itself, whatever another person's list claims.
@Suite struct DeviceListSharingLieTests {
    @Test func mallorysListNamingCarolGetsCarolNoListOfMallorysConversations() throws {
        let alice = try makeStore(Keys.alice)
        _ = try alice.addMyDevice(DeviceOwnerTests.laptop.id, name: "laptop", now: at(1))
        var mallorysList = DeviceList(person: Keys.mallory.id)
        try mallorysList.append(
            try DeviceListWriter.add(Keys.carol.id, name: "phone", to: mallorysList, person: Keys.mallory, timestamp: 1)
        )
        let bob = try makeStore(Keys.bob)
        _ = try bob.createConversation(
            with: [Keys.mallory.id, Keys.alice.id], title: "m", firstMessage: "x", now: at(2))
        _ = try bob.createConversation(with: [Keys.carol.id], firstMessage: "y", now: at(2))
        _ = try bob.offerDeviceList(
            try alice.deviceList(of: Keys.alice.id).entries.map(DeviceEntryCodec.encode), of: Keys.alice.id)
        _ = try bob.offerDeviceList(mallorysList.entries.map(DeviceEntryCodec.encode), of: Keys.mallory.id)
        // Mallory herself is told of Alice's list (they share a conversation here) …
        #expect(try bob.deviceListPersons(sharedWith: Keys.mallory.id).contains(Keys.alice.id))
        // … and Carol, whom Mallory's list claims, is not: Carol is a member here herself.
        #expect(try !bob.deviceListPersons(sharedWith: Keys.carol.id).contains(Keys.alice.id))
        #expect(try !bob.sharesConversation(with: Keys.alice.id, peer: Keys.carol.id))
    }
}
