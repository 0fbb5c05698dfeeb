import ConfabModel
import ConfabStore
import ConfabWire
import Testing

@testable import ConfabSync

/// The person's settings over the sync engine (Protocol.md §20.15): a pin on Alice's desktop
/// reaches her laptop in their session, a mute on the laptop reaches the desktop; Bob, in
/// session with both, is never offered her personal conversation, nor is a relay whose
/// Hello lacks `device-lists` (a node of an earlier version), while a current relay carries
/// it.
@Suite struct PersonalSettingsSyncTests {
    @Test func settingsTravelBetweenAlicesMachinesAndNobodyElseIsOfferedThem() throws {
        let (harness, alice, bob, _) = try SyncHarness.trio()
        let laptop = try SyncHarness.Node(name: "laptop", seed: 0x1A)
        let relay = try SyncHarness.Node(name: "relay", seed: 0x2E, role: .relay)
        let oldRelay = try SyncHarness.Node(name: "old relay", seed: 0x2F, role: .relay)
        for node in [laptop, relay, oldRelay] { harness.add(node) }
        let (id, _) = try bob.store.createConversation(with: [alice.id], firstMessage: "one")
        _ = try alice.store.addMyDevice(laptop.id, name: "laptop")
        let personal = try #require(try alice.store.ensurePersonalConversation())
        harness.connect(alice, bob)
        try harness.run()
        try laptop.store.takeLink(
            person: alice.id, list: try alice.store.deviceList(of: alice.id).entries.map(DeviceEntryCodec.encode),
            displayName: "Alice", keys: try alice.store.epochKeys())
        harness.connect(alice, laptop)
        harness.connect(laptop, bob)
        harness.connect(alice, relay)
        harness.connect(
            alice, oldRelay, secondFeatures: SessionCodec.features.filter { $0 != SessionCodec.deviceListsFeature })
        try harness.run()
        #expect(try laptop.store.personalConversation() == personal)

        try alice.store.setFlag(.pinned, true, on: id)
        try harness.wroteElsewhere([personal], at: alice)
        try harness.run()
        #expect(try laptop.store.conversation(id)?.isPinned == true)

        try laptop.store.setFlag(.muted, true, on: id)
        try harness.wroteElsewhere([personal], at: laptop)
        try harness.run()
        #expect(try alice.store.conversation(id)?.isMuted == true)

        // The relay of this version carries it (sealed); Bob and the old relay never hear of it.
        #expect(try relay.store.allClocks()[personal] != nil)
        #expect(try bob.store.allClocks()[personal] == nil)
        #expect(try oldRelay.store.allClocks()[personal] == nil)
        #expect(try oldRelay.store.allClocks()[id] != nil, "the old relay carries Alice's other conversations")
        #expect(try bob.store.conversation(id)?.isPinned == false)
        #expect(harness.misbehavior.isEmpty)
    }
}
