import ConfabModel
import ConfabStore
import ConfabWire
import Testing

@testable import ConfabSync

/// The "persons naming it" rule of Protocol.md §20.9: a node sends a peer the list of every
/// person whose list names the peer, so that a removed device learns of its removal. A list
/// is a claim by its signer alone: Mallory's list naming Carol's key gets Carol Mallory's own
/// list, and nothing else Mallory's claim could reach — no list of anyone Mallory meets.
@Suite struct DeviceListNamingLieTests {
    /// The persons whose lists `to` was sent by `from`, in order.
    func lists(_ harness: SyncHarness, from: SyncHarness.Node, to: SyncHarness.Node) -> [NodeID] {
        harness.log.filter { $0.from == from.id && $0.to == to.id }.compactMap { sent in
            if case .deviceList(let person, _) = sent.message { person } else { nil }
        }
    }

    @Test func carolIsSentMallorysListNamingHerAndNoListOfAnyoneMalloryKnows() throws {
        let (harness, alice, bob, carol) = try SyncHarness.trio()
        let mallory = try SyncHarness.Node(name: "mallory", seed: 0x4D)
        let laptop = try SyncHarness.Node(name: "laptop", seed: 0x1A)
        harness.add(mallory)
        harness.add(laptop)
        // Mallory's list claims Carol's key as her phone; Alice has a laptop of her own.
        _ = try mallory.store.addMyDevice(carol.id, name: "phone")
        _ = try alice.store.addMyDevice(laptop.id, name: "laptop")
        // Bob meets Mallory and Alice in a group, and Carol in a conversation of her own: he
        // holds both lists, and Carol is a person here, whatever Mallory's list says.
        _ = try bob.store.createConversation(with: [mallory.id, alice.id], title: "m", firstMessage: "x")
        _ = try bob.store.createConversation(with: [carol.id], firstMessage: "y")
        harness.connect(alice, bob)
        harness.connect(mallory, bob)
        try harness.run()
        #expect(try bob.store.deviceList(of: alice.id).count == 1)
        #expect(try bob.store.deviceList(of: mallory.id).count == 1)
        // Mallory, in a conversation with Alice here, is sent Alice's list: lists flow.
        #expect(lists(harness, from: bob, to: mallory).contains(alice.id))

        harness.connect(carol, bob)
        try harness.run()
        #expect(lists(harness, from: bob, to: carol) == [mallory.id])
    }
}
