import ConfabModel
import ConfabStore
import ConfabWire
import Testing

@testable import ConfabSync

/// A conversation Alice's laptop starts (Protocol.md §20.11) over the sync engine: Bob and
/// Alice's desktop get it from the laptop, a relay of this version carries it, and a node
/// whose Hello lacks `device-lists` — which would decode the create as malformed and end the
/// session — is offered none of it, though it is a participant.
@Suite struct DeviceCreateSyncTests {
    @Test func aLaptopsConversationReachesBobAndTheDesktopAndNoNodeOfAnEarlierVersion() throws {
        let (harness, alice, bob, carol) = try SyncHarness.trio()
        let laptop = try SyncHarness.Node(name: "laptop", seed: 0x1A)
        let relay = try SyncHarness.Node(name: "relay", seed: 0x2E, role: .relay)
        let oldRelay = try SyncHarness.Node(name: "old relay", seed: 0x2F, role: .relay)
        for node in [laptop, relay, oldRelay] { harness.add(node) }
        _ = try alice.store.addMyDevice(laptop.id, name: "laptop")
        try laptop.store.takeLink(
            person: alice.id, list: try alice.store.deviceList(of: alice.id).entries.map(DeviceEntryCodec.encode),
            displayName: "Alice", keys: try alice.store.epochKeys())
        let oldFeatures = SessionCodec.features.filter { $0 != SessionCodec.deviceListsFeature }
        harness.connect(laptop, bob)
        harness.connect(laptop, alice)
        harness.connect(laptop, relay)
        harness.connect(laptop, oldRelay, secondFeatures: oldFeatures)
        harness.connect(laptop, carol, secondFeatures: oldFeatures)
        try harness.run()

        let (group, _) = try laptop.store.createConversation(
            with: [bob.id, carol.id], firstMessage: "from the laptop")
        let (bobOnly, _) = try alice.store.createConversation(
            with: [bob.id, carol.id], firstMessage: "from the desktop")
        try harness.wroteElsewhere([group], at: laptop)
        try harness.wroteElsewhere([bobOnly], at: alice)
        try harness.run()

        // The positive event first: Bob and the desktop took it as Alice's.
        #expect(try bob.store.participants(of: group) == [alice.id, bob.id, carol.id])
        #expect(try bob.store.history(group).last?.authorName == "Alice")
        #expect(try alice.store.history(group).last?.isMine == true)
        #expect(try relay.store.allClocks()[group] != nil)
        // Carol, of an earlier version, is still in session and got the desktop's group, not
        // the laptop's; neither did the old relay.
        #expect(try carol.store.allClocks()[bobOnly] != nil)
        #expect(try carol.store.allClocks()[group] == nil)
        #expect(try oldRelay.store.allClocks()[group] == nil)
        #expect(harness.misbehavior.isEmpty)
    }
}
