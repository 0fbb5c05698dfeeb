import ConfabCrypto
import ConfabModel
import ConfabStore
import Foundation
import Testing

@testable import ConfabSync
@testable import ConfabWire

/// Device lists in sessions (Protocol.md §20.9): who is sent which list, how a list taken
/// spreads, and what a peer that lies about someone's list gets for it.
@Suite struct DeviceListSyncTests {
    let harness: SyncHarness
    let alice: SyncHarness.Node
    let bob: SyncHarness.Node
    let carol: SyncHarness.Node
    let dave: SyncHarness.Node

    init() throws {
        (harness, alice, bob, carol) = try SyncHarness.trio()
        dave = try SyncHarness.Node(name: "dave", seed: 4)
        harness.add(dave)
    }

    /// A machine's key, of no node here.
    static func device(_ seed: UInt8) throws -> NodeID {
        NodeID(try SigningKeyPair(seed: [UInt8](repeating: seed, count: 32)).publicKey)
    }

    /// `node`'s own list after it adds a device for each seed, encoded as it is sent.
    func ownList(of node: SyncHarness.Node, adding seeds: [UInt8]) throws -> [[UInt8]] {
        for seed in seeds { _ = try node.store.addMyDevice(try Self.device(seed), name: "machine \(seed)") }
        return try node.store.deviceList(of: node.id).entries.map(DeviceEntryCodec.encode)
    }

    /// The lists delivered to `node`, in order: who sent it, whose it is, how long it is.
    func lists(to node: SyncHarness.Node) -> [(from: NodeID, person: NodeID, count: Int)] {
        harness.log.compactMap { delivered -> (from: NodeID, person: NodeID, count: Int)? in
            guard delivered.to == node.id, case .deviceList(let person, let entries) = delivered.message else {
                return nil
            }
            return (delivered.from, person, entries.count)
        }
    }

    @Test func aPeerWithoutTheFeatureIsSentNoList() throws {
        _ = try alice.store.createConversation(with: [bob.id, carol.id, dave.id], firstMessage: "hi")
        _ = try ownList(of: alice, adding: [0x40])
        let carols = try ownList(of: carol, adding: [0x50])
        #expect(try alice.store.offerDeviceList(carols, of: carol.id) != .same)
        let older = SessionCodec.features.filter { $0 != SessionCodec.deviceListsFeature }
        harness.connect(alice, bob, secondFeatures: older)
        harness.connect(alice, dave)
        try harness.run()
        #expect(lists(to: bob).isEmpty)
        #expect(try bob.store.deviceList(of: carol.id).isEmpty)
        // The same node, to a peer that reads lists: both.
        #expect(Set(lists(to: dave).map(\.person)) == [alice.id, carol.id])
        // Dave met Carol only once the conversation the lists came ahead of was stored.
        #expect(try dave.store.deviceList(of: carol.id).count == 1)
        #expect(try dave.store.deviceList(of: alice.id).count == 1)
    }

    @Test func onlyAPeerThatMeetsCarolHereIsSentHerList() throws {
        _ = try alice.store.createConversation(with: [bob.id, carol.id], firstMessage: "with Carol")
        _ = try alice.store.createConversation(with: [dave.id], firstMessage: "without her")
        let carols = try ownList(of: carol, adding: [0x50, 0x51])
        _ = try alice.store.offerDeviceList(carols, of: carol.id)
        harness.connect(alice, bob)
        harness.connect(alice, dave)
        try harness.run()
        let toBob = lists(to: bob).filter { $0.person == carol.id }
        #expect(toBob.map(\.from) == [alice.id])
        #expect(toBob.map(\.count) == [2])
        #expect(try bob.store.deviceList(of: carol.id).count == 2)
        #expect(!lists(to: dave).contains { $0.person == carol.id })
        #expect(try dave.store.deviceList(of: carol.id).isEmpty)
    }

    @Test func aListTakenGoesOnToWhoMeetsThePersonAndNotBack() throws {
        _ = try alice.store.createConversation(with: [bob.id, carol.id, dave.id], firstMessage: "all of us")
        harness.connect(alice, bob)
        harness.connect(alice, dave)
        try harness.run()
        harness.disconnect(alice, bob)
        // Bob learnt Carol's list elsewhere, and brings it to Alice in his next session.
        let carols = try ownList(of: carol, adding: [0x50])
        _ = try bob.store.offerDeviceList(carols, of: carol.id)
        let before = harness.log.count
        harness.connect(alice, bob)
        try harness.run()
        #expect(lists(to: alice).map(\.from) == [bob.id])
        #expect(try alice.store.deviceList(of: carol.id).count == 1)
        let after = harness.log[before...].filter { $0.message.isDeviceList }
        #expect(after.map(\.from) == [bob.id, alice.id])
        #expect(after.map(\.to) == [alice.id, dave.id])
        #expect(try dave.store.deviceList(of: carol.id).count == 1)
    }

    @Test func aListOfCarolSignedByAnotherKeyEndsTheSession() throws {
        _ = try alice.store.createConversation(with: [bob.id, carol.id], firstMessage: "hi")
        let bobs = try ownList(of: bob, adding: [0x60])
        let carols = try ownList(of: carol, adding: [0x50])
        // Bob's own list, said to be Carol's; and Carol's entry signed again by Bob.
        let envelope = try Confab_V1_SignedDeviceEntry(serializedBytes: carols[0])
        var resigned = envelope
        resigned.signature = Data(bob.keys.sign(DeviceEntryCodec.signatureDomain + [UInt8](envelope.content)))
        let resignedBytes: [UInt8] = try resigned.serializedBytes()
        for lie in [bobs, [resignedBytes]] {
            harness.connect(alice, bob)
            try harness.run()
            harness.send(.deviceList(person: carol.id, entries: lie), from: bob, to: alice)
            try harness.run()
            #expect(!harness.isConnected(alice.id, bob.id))
            #expect(try alice.store.deviceList(of: carol.id).isEmpty)
        }
        #expect(harness.misbehavior.filter { $0.contains("alice closed bob: sent an invalid device list") }.count == 2)
    }

    @Test func aListBeforeHelloIsMisbehaviorAndStoresNothing() throws {
        let carols = try ownList(of: carol, adding: [0x50])
        alice.engine.peerConnected(bob.id)
        let output = try alice.engine.handle(.deviceList(person: carol.id, entries: carols), from: bob.id)
        #expect(output.misbehavior == "device list before hello")
        #expect(try alice.store.deviceList(of: carol.id).isEmpty)
    }

    /// Anyone can make keys and sign lists of them: a valid list of a person nobody here
    /// meets is not stored, and is forgotten with the session that brought it; one of a
    /// person met here, sent in the same session, is stored, which shows the path worked.
    @Test func aListOfAPersonNobodyHereMeetsIsNotStored() throws {
        _ = try alice.store.createConversation(with: [bob.id, carol.id], firstMessage: "hi")
        let stranger = try SyncHarness.Node(name: "stranger", seed: 9)
        let strangers = try ownList(of: stranger, adding: [0x70])
        let carols = try ownList(of: carol, adding: [0x50])
        harness.connect(alice, bob)
        try harness.run()
        harness.send(.deviceList(person: stranger.id, entries: strangers), from: bob, to: alice)
        harness.send(.deviceList(person: carol.id, entries: carols), from: bob, to: alice)
        try harness.run()
        #expect(try alice.store.deviceList(of: carol.id).count == 1)
        #expect(harness.misbehavior.isEmpty)
        #expect(try alice.store.deviceList(of: stranger.id).isEmpty)
        // Met later, in a conversation of Alice's own: the list of a session gone is not taken.
        harness.disconnect(alice, bob)
        let (id, _) = try alice.store.createConversation(with: [stranger.id], firstMessage: "who are you?")
        let written = try alice.store.entries(in: id, author: alice.id, after: 0).map { try EntryCodec.decode($0) }
        #expect(written.contains { $0.kind == .create })
        try harness.wrote(written, at: alice)
        try harness.run()
        #expect(try alice.store.deviceList(of: stranger.id).isEmpty)
    }

    @Test func anOlderListChangesNothingAndGoesNowhere() throws {
        _ = try alice.store.createConversation(with: [bob.id, carol.id, dave.id], firstMessage: "hi")
        harness.connect(alice, bob)
        harness.connect(alice, dave)
        try harness.run()
        // Taken while Dave's session was open, not through it: Dave does not hold it yet.
        let carols = try ownList(of: carol, adding: [0x50, 0x51])
        _ = try alice.store.offerDeviceList(carols, of: carol.id)
        harness.send(.deviceList(person: carol.id, entries: Array(carols.prefix(1))), from: bob, to: alice)
        try harness.run()
        #expect(harness.misbehavior.isEmpty)
        #expect(harness.isConnected(alice.id, bob.id))
        #expect(try alice.store.deviceList(of: carol.id).count == 2)
        #expect(lists(to: dave).isEmpty)
    }

    @Test func aForkedListKeepsTheHeldOneAndIsRecorded() throws {
        _ = try alice.store.createConversation(with: [bob.id, carol.id, dave.id], firstMessage: "hi")
        harness.connect(alice, bob)
        harness.connect(alice, dave)
        try harness.run()
        let carols = try ownList(of: carol, adding: [0x50])
        _ = try alice.store.offerDeviceList(carols, of: carol.id)
        let held = try alice.store.deviceList(of: carol.id)
        // Carol signed another seq 1, and a seq 2 on it: longer, but a fork all the same.
        var other = DeviceList(person: carol.id)
        for seed: UInt8 in [0x70, 0x71] {
            let entry = try DeviceListWriter.add(
                try Self.device(seed), name: "other \(seed)", to: other, person: carol.keys, timestamp: 1)
            try other.append(entry)
        }
        harness.send(
            .deviceList(person: carol.id, entries: other.entries.map(DeviceEntryCodec.encode)), from: bob, to: alice)
        try harness.run()
        #expect(harness.misbehavior.isEmpty)
        #expect(try alice.store.deviceList(of: carol.id) == held)
        #expect(try alice.store.deviceListForks(of: carol.id).map(\.seq) == [1])
        #expect(lists(to: dave).isEmpty)
    }

    /// A sender keeps to its pace: what is over it waits for the next minute, then goes.
    @Test func aSenderSendsAtMostItsPaceAMinute() throws {
        let count = SyncEngine.deviceListsSentPerMinute + 1
        let machine = try Self.device(0x30)
        var persons: [NodeID] = []
        for index in 0..<count {
            let person = try SigningKeyPair(seed: [UInt8](repeating: 0x80 + UInt8(index), count: 32))
            let entry = try DeviceListWriter.add(
                machine, name: "machine", to: DeviceList(person: NodeID(person.publicKey)), person: person,
                timestamp: 1)
            _ = try alice.store.offerDeviceList([DeviceEntryCodec.encode(entry)], of: NodeID(person.publicKey))
            persons.append(NodeID(person.publicKey))
        }
        _ = try alice.store.createConversation(with: [bob.id] + persons, firstMessage: "everyone")
        harness.connect(alice, bob)
        try harness.run()
        #expect(lists(to: bob).count == SyncEngine.deviceListsSentPerMinute)
        try harness.tick(alice, by: DeviceListPace.window)
        #expect(Set(lists(to: bob).map(\.person)) == Set(persons))
        for person in persons { #expect(try bob.store.deviceList(of: person).count == 1) }
    }

    @Test func listsOverTheRateAreDroppedUnread() throws {
        _ = try alice.store.createConversation(with: [bob.id, carol.id], firstMessage: "hi")
        harness.connect(alice, bob)
        try harness.run()
        let carols = try ownList(of: carol, adding: [0x50])
        let list = SessionMessage.deviceList(person: carol.id, entries: carols)
        var dropped = 0
        for _ in 0..<SyncEngine.deviceListsReceivedPerMinute {
            let output = try alice.engine.handle(list, from: bob.id)
            #expect(output.misbehavior == nil)
            dropped += output.droppedDeviceLists
        }
        #expect(dropped == 0)
        #expect(try alice.store.deviceList(of: carol.id).count == 1)
        // Over the rate, not even a lie is read.
        let bobs = try ownList(of: bob, adding: [0x60])
        let lie = SessionMessage.deviceList(person: carol.id, entries: bobs)
        for _ in 0..<5 {
            let output = try alice.engine.handle(lie, from: bob.id)
            #expect(output.misbehavior == nil)
            dropped += output.droppedDeviceLists
        }
        #expect(dropped == 5)
        // A minute on, lists are read again.
        alice.clock.advance(by: DeviceListPace.window)
        let read = try alice.engine.handle(lie, from: bob.id)
        #expect(read.droppedDeviceLists == 0)
        #expect(read.misbehavior != nil)
    }
}

extension SessionMessage {
    fileprivate var isDeviceList: Bool {
        if case .deviceList = self { return true }
        return false
    }
}
