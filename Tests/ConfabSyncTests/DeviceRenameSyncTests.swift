import ConfabCrypto
import ConfabModel
import ConfabStore
import Foundation
import Testing

@testable import ConfabSync
@testable import ConfabWire

/// A rename over the sync engine (Protocol.md §20.9): written in another process beside
/// Alice's running engine, her list goes at once to Bob and to her laptop, and Bob's
/// `peers` (the store's device owners) names the laptop anew, with a line in their
/// conversation.
@Suite struct DeviceRenameSyncTests {
    @Test func aRenameWrittenElsewhereReachesBobsPeersAndTheLaptop() throws {
        let (harness, alice, bob, _) = try SyncHarness.trio()
        let laptop = try harness.linkedLaptop(of: alice)
        try bob.store.savePeer(alice.id, name: "Alice")
        let (id, _) = try bob.store.createConversation(with: [alice.id], firstMessage: "hi")
        harness.connect(alice, bob)
        harness.connect(alice, laptop)
        try harness.run()
        #expect(try bob.store.deviceOwners()[laptop.id]?.name == "laptop")

        _ = try alice.store.renameMyDevice(laptop.id, name: "work laptop")
        _ = try alice.store.renameMyDevice(alice.id, name: "desktop")
        try harness.listGrewElsewhere(at: alice)
        try harness.run()
        #expect(try bob.store.deviceOwners()[laptop.id] == DeviceOwner(person: alice.id, name: "work laptop"))
        #expect(try bob.store.deviceList(of: alice.id).devices.map(\.name) == ["desktop", "work laptop"])
        #expect(try bob.store.personDeviceNames() == [alice.id: "desktop"])
        #expect(try laptop.store.deviceList(of: alice.id).devices.map(\.name) == ["desktop", "work laptop"])
        #expect(
            try bob.store.history(id).compactMap(\.systemLine).contains {
                $0.hasPrefix("Alice renamed a device: laptop → work laptop")
            })
        #expect(harness.misbehavior.isEmpty)
    }

    /// Carol, who is not Alice, cannot rename Alice's laptop at Bob: Alice's list with a
    /// rename Carol signed is refused whole, the session ends, and Bob's names stay.
    @Test func aRenameSignedByAnotherKeyEndsTheSessionAndChangesNoName() throws {
        let (harness, alice, bob, carol) = try SyncHarness.trio()
        let laptop = try SigningKeyPair(seed: [UInt8](repeating: 0x1A, count: 32))
        _ = try alice.store.addMyDevice(NodeID(laptop.publicKey), name: "laptop")
        _ = try bob.store.createConversation(with: [alice.id, carol.id], firstMessage: "hi")
        harness.connect(alice, bob)
        try harness.run()
        let held = try bob.store.deviceList(of: alice.id)
        #expect(held.devices.map(\.name) == [nil, "laptop"])

        // Alice's own rename, its content signed again by Carol.
        let honest = try DeviceListWriter.rename(
            NodeID(laptop.publicKey), name: "carol's now", in: held, person: alice.keys, timestamp: 1)
        var forged = Confab_V1_SignedDeviceEntry()
        forged.content = Data(honest.content)
        forged.signature = Data(carol.keys.sign(DeviceEntryCodec.signatureDomain + honest.content))
        let lie = held.entries.map(DeviceEntryCodec.encode) + [try forged.serializedBytes()]
        harness.connect(carol, bob)
        try harness.run()
        harness.send(.deviceList(person: alice.id, entries: lie), from: carol, to: bob)
        try harness.run()
        #expect(!harness.isConnected(bob.id, carol.id))
        #expect(harness.misbehavior.contains { $0.contains("bob closed carol: sent an invalid device list") })
        #expect(try bob.store.deviceList(of: alice.id) == held)
        #expect(try bob.store.deviceOwners()[NodeID(laptop.publicKey)]?.name == "laptop")
    }
}
