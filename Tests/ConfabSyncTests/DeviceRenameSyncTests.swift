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
        let laptop = try SyncHarness.Node(name: "laptop", seed: 0x1A)
        harness.add(laptop)
        _ = try alice.store.addMyDevice(laptop.id, name: "laptop")
        try laptop.store.takeLink(
            person: alice.id, list: alice.store.deviceList(of: alice.id).entries.map(DeviceEntryCodec.encode),
            displayName: "Alice", keys: [])
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
        #expect(try laptop.store.deviceList(of: alice.id).devices.map(\.name) == ["desktop", "work laptop"])
        #expect(
            try bob.store.history(id).compactMap(\.systemLine).contains {
                $0.hasPrefix("Alice renamed a device: laptop → work laptop")
            })
        #expect(harness.misbehavior.isEmpty)
    }
}
