import ConfabCrypto
import ConfabModel
import ConfabWire
import Foundation
import Testing

@testable import ConfabStore

/// A device renamed (Protocol.md §20.4, §8.1): written to the person's own list through the
/// store, told in every conversation with the person as "renamed a device: old → new", once
/// per list entry, and no reason to verify a verified person again.
@Suite struct DeviceRenameStoreTests {
    static let laptop = try! SigningKeyPair(seed: [UInt8](repeating: 0x1C, count: 32))

    func share(_ from: ConfabStore, to store: ConfabStore) throws -> DeviceListOffer {
        try store.offerDeviceList(
            try from.deviceList(of: Keys.alice.id).entries.map(DeviceEntryCodec.encode), of: Keys.alice.id)
    }

    var fingerprint: String { Self.laptop.id.fingerprint.split(separator: " ").prefix(2).joined(separator: " ") }

    @Test func aRenameWritesTheListAndKeepsTheDevicesAndKey() throws {
        let alice = try makeStore(Keys.alice)
        _ = try alice.addMyDevice(Self.laptop.id, name: "laptop", now: at(1))
        let before = try alice.deviceList(of: Keys.alice.id)
        let entry = try alice.renameMyDevice(Self.laptop.id, name: "  work   laptop ", now: at(2))
        #expect(entry.change == .rename(device: Self.laptop.id, name: "work laptop"))
        let after = try alice.deviceList(of: Keys.alice.id)
        #expect(after.devices.map(\.name) == [nil, "work laptop"])
        #expect(after.encryptionKey == before.encryptionKey)
        _ = try alice.renameMyDevice(Keys.alice.id, name: "desktop", now: at(3))
        #expect(try alice.deviceList(of: Keys.alice.id).devices.map(\.name) == ["desktop", "work laptop"])
        // A device that is not listed has no name to change; nothing is written.
        #expect(throws: DeviceListError.self) { try alice.renameMyDevice(Keys.carol.id, name: "x", now: at(4)) }
        #expect(try alice.deviceListCount(of: Keys.alice.id) == 3)
    }

    @Test func aRenameIsALineWithBothNamesOncePerEntry() throws {
        let alice = try makeStore(Keys.alice)
        let bob = try makeStore(Keys.bob)
        try bob.savePeer(Keys.alice.id, name: "Alice")
        let (direct, _) = try bob.createConversation(with: [Keys.alice.id], firstMessage: "hi", now: at(1))
        _ = try alice.addMyDevice(Self.laptop.id, name: "laptop", now: at(2))
        _ = try share(alice, to: bob)

        _ = try alice.renameMyDevice(Self.laptop.id, name: "work laptop", now: at(3))
        _ = try alice.renameMyDevice(Keys.alice.id, name: "desktop", now: at(4))
        #expect(try share(alice, to: bob) == .taken(try alice.deviceList(of: Keys.alice.id)))
        let person = Keys.alice.id.fingerprint.split(separator: " ").prefix(2).joined(separator: " ")
        let expected = [
            "Alice linked a new device: laptop (\(fingerprint))",
            "Alice renamed a device: laptop → work laptop (\(fingerprint))",
            "Alice named a device: desktop (\(person))",
        ]
        #expect(try bob.history(direct).compactMap(\.systemLine) == expected)
        let renamed = try #require(try bob.deviceLines(of: Keys.alice.id, listSeqs: 2...2).first?.device)
        #expect(renamed.change == .renamed && renamed.previousName == "laptop" && renamed.deviceName == "work laptop")

        // The same list again writes nothing more.
        #expect(try share(alice, to: bob) == .same)
        #expect(try bob.history(direct).compactMap(\.systemLine) == expected)

        // A device removed after a rename is named as it was last.
        _ = try alice.removeMyDevice(Self.laptop.id, now: at(5))
        _ = try share(alice, to: bob)
        #expect(
            try bob.history(direct).compactMap(\.systemLine).contains(
                "Alice removed a device: work laptop (\(fingerprint))"))
    }

    @Test func aRenameDoesNotAskToVerifyAgainButALinkStillDoes() throws {
        let alice = try makeStore(Keys.alice)
        let bob = try makeStore(Keys.bob)
        try bob.savePeer(Keys.alice.id, name: "Alice")
        _ = try bob.createConversation(with: [Keys.alice.id], firstMessage: "hi", now: at(1))
        _ = try alice.addMyDevice(Self.laptop.id, name: "laptop", now: at(2))
        _ = try share(alice, to: bob)
        try bob.setTrust(Keys.alice.id, .verified)

        _ = try alice.renameMyDevice(Self.laptop.id, name: "work laptop", now: at(3))
        #expect(try share(alice, to: bob) != .same)
        #expect(try bob.deviceListCount(of: Keys.alice.id) == 2)
        #expect(try bob.peer(Keys.alice.id)?.devicesChangedSinceVerified == nil)
        #expect(try bob.peer(Keys.alice.id)?.warning == nil)

        let phone = try SigningKeyPair(seed: [UInt8](repeating: 0x1D, count: 32))
        _ = try alice.addMyDevice(phone.id, name: "phone", now: at(4))
        _ = try share(alice, to: bob)
        #expect(try bob.peer(Keys.alice.id)?.devicesChangedSinceVerified == true)
    }
}
