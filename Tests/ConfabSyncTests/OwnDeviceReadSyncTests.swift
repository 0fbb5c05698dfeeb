import ConfabModel
import ConfabStore
import ConfabWire
import Testing

@testable import ConfabSync

/// Reading on one of a person's devices is reading on all (Protocol.md §20.14), over the
/// sync engine: the laptop's read receipt reaches Alice's desktop in the session between
/// them, clears its count there, and reaches Bob as Alice's one read.
@Suite struct OwnDeviceReadSyncTests {
    @Test func theLaptopsReadClearsTheDesktopsCountAndBobSeesOneRead() throws {
        let (harness, alice, bob, _) = try SyncHarness.trio()
        let laptop = try SyncHarness.Node(name: "laptop", seed: 0x1A)
        harness.add(laptop)
        let (id, _) = try bob.store.createConversation(with: [alice.id], firstMessage: "one")
        // Linked first, so that Alice's Hello to Bob brings her list (§20.9).
        _ = try alice.store.addMyDevice(laptop.id, name: "laptop")
        harness.connect(alice, bob)
        try harness.run()
        try laptop.store.takeLink(
            person: alice.id, list: try alice.store.deviceList(of: alice.id).entries.map(DeviceEntryCodec.encode),
            displayName: "Alice", keys: try alice.store.epochKeys())
        harness.connect(alice, laptop)
        try harness.run()
        try harness.wrote(try bob.store.sendEach(["two"], to: id), at: bob)
        try harness.run()
        #expect(try laptop.store.texts(id) == ["one", "two"])
        #expect(try alice.store.unreadCount(id) == 2)
        #expect(try laptop.store.unreadCount(id) == 2)

        let receipt = try #require(try laptop.store.markRead(id))
        try harness.wrote([receipt], at: laptop)
        try harness.run()
        #expect(try alice.store.unreadCount(id) == 0)
        #expect(try alice.store.markRead(id) == nil)
        #expect(try bob.store.history(id).filter { !$0.isSystemLine }.allSatisfy { $0.status == .read })
        let alicesReads =
            try bob.store.entries(in: id, author: laptop.id, after: 0)
            + bob.store.entries(in: id, author: alice.id, after: 0)
        let reads = try alicesReads.map(EntryCodec.decodeUnverified).filter {
            if case .receipt(_, let read) = $0.body { !read.entries.isEmpty } else { false }
        }
        #expect(reads.count == 1)
        #expect(harness.misbehavior.isEmpty)
    }
}
