import ConfabModel
import ConfabStore
import ConfabWire
import Testing

@testable import ConfabSync

/// Removing a device over the sync engine (Protocol.md §20.13): the list and the rekeys that
/// the remover wrote in another process reach Bob; Bob's next message is sealed under the
/// rekey; the laptop, meeting Bob and the desktop again, learns its removal from the list
/// they send, and is sent nothing more of its person's conversation.
@Suite struct DeviceRemovalSyncTests {
    @Test func theListAndTheRekeysReachBobAndTheLaptopLearnsItWasRemoved() throws {
        let (harness, alice, bob, _) = try SyncHarness.trio()
        let laptop = try harness.linkedLaptop(of: alice)
        // Bob holds Alice's list first, so he seals her key to E, which the laptop opens.
        harness.connect(alice, bob)
        try harness.run()
        let (id, _) = try bob.store.createConversation(with: [alice.id], firstMessage: "before")
        try harness.wroteElsewhere([id], at: bob)
        harness.connect(alice, laptop)
        try harness.run()
        #expect(try laptop.store.history(id).compactMap(\.text) == ["before"])
        harness.disconnect(alice, laptop)

        let outcome = try alice.store.removeDevice(laptop.id)
        #expect(outcome.rekeyed == [id])
        try harness.listGrewElsewhere(at: alice)
        try harness.wroteElsewhere(Set(outcome.rekeyed), at: alice)
        try harness.run()
        #expect(try bob.store.deviceList(of: alice.id) == alice.store.deviceList(of: alice.id))
        #expect(try bob.store.clock(of: id) == alice.store.clock(of: id), "Bob holds the rekey")
        try harness.wrote([try bob.store.sendMessage("after", to: id)], at: bob)
        try harness.run()
        #expect(try alice.store.history(id).compactMap(\.text) == ["before", "after"])

        #expect(try laptop.store.myDeviceRemoval() == nil)
        harness.connect(bob, laptop)
        harness.connect(alice, laptop)
        try harness.run()
        // It holds the list that removed it, from its peers, and knows it.
        #expect(try laptop.store.deviceList(of: alice.id) == alice.store.deviceList(of: alice.id))
        #expect(try laptop.store.myDeviceRemoval()?.person == alice.id)
        // Neither peer sends it what was written after: it is nobody's device now.
        #expect(try laptop.store.clock(of: id)[bob.id] < bob.store.clock(of: id)[bob.id])
        #expect(try laptop.store.history(id).compactMap(\.text) == ["before"])
        #expect(throws: StoreError.self) { _ = try laptop.store.sendMessage("still here", to: id) }
        #expect(harness.misbehavior.isEmpty)
    }
}
