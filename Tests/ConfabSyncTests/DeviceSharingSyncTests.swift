import ConfabModel
import ConfabStore
import Testing

@testable import ConfabSync

/// A session with a device is offered what its person is (Protocol.md §20.11, §12 step 2):
/// Bob, holding Alice's list, announces Alice's conversations to her laptop, which fetches
/// them as it would an invitation, and nothing of a conversation Alice is not in.
@Suite struct DeviceSharingSyncTests {
    @Test func alicesLaptopIsSentHerConversationsAndNoOther() throws {
        let (harness, alice, bob, carol) = try SyncHarness.trio()
        let laptop = try SyncHarness.Node(name: "laptop", seed: 0x1A)
        harness.add(laptop)
        let (withAlice, _) = try bob.store.createConversation(with: [alice.id], firstMessage: "for alice")
        let (withCarol, _) = try bob.store.createConversation(with: [carol.id], firstMessage: "for carol")
        _ = try alice.store.addMyDevice(laptop.id, name: "laptop")
        harness.connect(alice, bob)
        try harness.run()
        #expect(try bob.store.deviceList(of: alice.id).count == 1)
        harness.connect(bob, laptop)
        try harness.run()
        #expect(try laptop.store.clock(of: withAlice) == bob.store.clock(of: withAlice))
        #expect(try !laptop.store.clock(of: withAlice).entries.isEmpty)
        #expect(try laptop.store.clock(of: withCarol).entries.isEmpty)
        #expect(harness.misbehavior.isEmpty)
    }
}
