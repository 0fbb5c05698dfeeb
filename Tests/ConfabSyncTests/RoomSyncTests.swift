import ConfabCrypto
import ConfabModel
import ConfabWire
import Testing

@testable import ConfabStore
@testable import ConfabSync

/// Protocol.md §18.3–18.4 in the engine: a room is shared with exactly the peers whose
/// `Rooms` named it, and what a peer says of a room is held to the room's bounds.
@Suite struct RoomSyncTests {
    let harness: SyncHarness
    let alice: SyncHarness.Node
    let bob: SyncHarness.Node
    let carol: SyncHarness.Node
    let room: ConversationID

    init() throws {
        (harness, alice, bob, carol) = try SyncHarness.trio()
        let genesis = RoomGenesis(name: RoomName(exactly: "general")!, network: .random())
        room = genesis.conversationID
        for node in [alice, bob, carol] {
            try node.store.joinRoom(genesis)
            _ = try node.engine.holdRooms([room])
        }
        harness.connect(alice, bob)
        harness.connect(alice, carol)
        try harness.run()
    }

    /// Carol holds the room too, but never says so to Alice: Alice sends her nothing of it,
    /// while Bob, who said so, gets Alice's message.
    @Test func aRoomGoesOnlyToPeersThatNamedIt() throws {
        try harness.rooms([room], from: bob, to: alice)
        try harness.rooms([room], from: alice, to: bob)
        try harness.run()
        try harness.wrote([try alice.store.sendMessage("hello room", to: room)], at: alice)
        try harness.run()
        #expect(try bob.store.texts(room) == ["hello room"])
        #expect(try carol.store.texts(room).isEmpty)
        let toCarol = harness.log.filter { $0.from == alice.id && $0.to == carol.id }
        let namesRoom = toCarol.contains { item in
            switch item.message {
            case .clocks(let clocks), .request(let clocks): clocks.contains { $0.conversation == room }
            case .entries(let entries):
                entries.contains { (try? EntryCodec.decodeUnverified($0))?.conversationID == room }
            default: false
            }
        }
        #expect(!namesRoom, "nothing of the room went to carol")
        // A list without the room (she left) stops what goes to Bob as well.
        try harness.rooms([], from: bob, to: alice)
        try harness.wrote([try alice.store.sendMessage("after bob left", to: room)], at: alice)
        try harness.rooms([room], from: carol, to: alice)
        try harness.run()
        #expect(try carol.store.texts(room) == ["hello room", "after bob left"])
        #expect(try bob.store.texts(room) == ["hello room"])
    }

    @Test func roomsBeforeHelloEndTheSession() throws {
        let dave = try SyncHarness.Node(name: "dave", seed: 4)
        alice.engine.peerConnected(dave.id)
        #expect(try alice.engine.peerRooms([room], of: dave.id).misbehavior != nil)
    }

    /// The lie: clocks of a room that add up to more authors than a room may have. 4,000
    /// are taken (a group's clock may name 64), 4,200 end the session.
    @Test func roomClocksNamingMoreThan4096AuthorsEndTheSession() throws {
        try harness.rooms([room], from: bob, to: alice)
        try harness.run()
        func authors(_ count: Int) -> VectorClock {
            VectorClock(
                Dictionary(uniqueKeysWithValues: (0..<count).map { _ in (NodeID(bytes: Random.bytes(32))!, UInt64(1)) })
            )
        }
        let wide = try alice.engine.handle(
            .clocks([.init(conversation: room, clock: authors(4000))]), from: bob.id)
        #expect(wide.misbehavior == nil)
        let wider = try alice.engine.handle(
            .clocks([.init(conversation: room, clock: authors(200), partial: true)]), from: bob.id)
        #expect(wider.misbehavior?.contains("more than \(Limits.maxRoomAuthors) authors") == true)
    }
}
