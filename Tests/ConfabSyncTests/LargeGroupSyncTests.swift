import ConfabCrypto
import ConfabModel
import ConfabWire
import Testing

@testable import ConfabStore
@testable import ConfabSync

/// Protocol.md §19.6: a large group spreads like a room and is shared like a group. No store
/// writes a large group yet, so each test makes an ordinary group of more than 32 members
/// (so that nobody writes receipts, as nobody does in a large group) and declares it large
/// to the engines, as the node does with what its store says.
@Suite struct LargeGroupSyncTests {
    let harness = SyncHarness()
    /// Members that never connect: they make the group big enough to have no receipts.
    let absent = (0..<Limits.maxParticipantsWithReceipts).map { _ in NodeID(SigningKeyPair.generate().publicKey) }

    func nodes(_ count: Int) throws -> [SyncHarness.Node] {
        let nodes = try (0..<count).map { try SyncHarness.Node(name: "n\($0)", seed: UInt8($0 + 1)) }
        for node in nodes { harness.add(node) }
        return nodes
    }

    /// A group the first node creates with `members` and the absent ones, declared large to
    /// its engine; `holders` take its create from the creator's store, and declare it too.
    func group(
        by creator: SyncHarness.Node, with members: [SyncHarness.Node], heldBy holders: [SyncHarness.Node] = []
    ) throws -> ConversationID {
        let (id, _) = try creator.store.createConversation(with: members.map(\.id) + absent)
        let create = try creator.store.entries(in: id, author: creator.id, after: 0, limit: 1)
        for holder in holders { _ = try holder.store.append(batch: create) }
        for node in [creator] + holders { _ = try node.engine.holdLargeGroups([id]) }
        return id
    }

    /// Whether anything `from` sent `to` named the conversation: a clock, a request or an
    /// entry.
    func anything(of conversation: ConversationID, from: SyncHarness.Node, to: SyncHarness.Node) -> Bool {
        Self.names(conversation, harness.log.filter { $0.from == from.id && $0.to == to.id }.map(\.message))
    }

    static func names(_ conversation: ConversationID, _ messages: [SessionMessage]) -> Bool {
        messages.contains { message in
            switch message {
            case .clocks(let clocks), .request(let clocks): return clocks.contains { $0.conversation == conversation }
            case .entries(let entries):
                return entries.contains { (try? EntryCodec.decodeUnverified($0))?.conversationID == conversation }
            default: return false
            }
        }
    }

    /// Bob, a member that reads large groups, gets the group and Alice's message. Carol, a
    /// member whose Hello lacks `large-groups`, is offered nothing of it: not at the session's
    /// start, not when Alice writes, not when she announces, not on a resync; nor is Dave,
    /// who reads large groups but is no member. Once Carol's node says it reads them, she
    /// gets it all.
    @Test func aLargeGroupGoesOnlyToMembersThatReadLargeGroups() throws {
        let nodes = try nodes(4)
        let (alice, bob, carol, dave) = (nodes[0], nodes[1], nodes[2], nodes[3])
        let id = try group(by: alice, with: [bob, carol])
        let older = SessionCodec.features.filter { $0 != SessionCodec.largeGroupsFeature }
        harness.connect(alice, bob)
        harness.connect(alice, carol, secondFeatures: older)
        harness.connect(alice, dave)
        try harness.run()
        try harness.holdLargeGroups([id], at: bob)
        try harness.wrote([try alice.store.sendMessage("hello large group", to: id)], at: alice)
        try harness.wroteElsewhere([id], at: alice)
        try harness.run()
        #expect(try bob.store.texts(id) == ["hello large group"])
        #expect(!Self.names(id, try alice.engine.resyncAll().pushes[carol.id] ?? []))
        #expect(!Self.names(id, try alice.engine.offer([id]).pushes[carol.id] ?? []))
        #expect(!anything(of: id, from: alice, to: carol), "nothing of it went to Carol")
        #expect(!anything(of: id, from: alice, to: dave), "nothing of it went to Dave")
        #expect(try carol.store.conversations().isEmpty)

        harness.disconnect(alice, carol)
        harness.connect(alice, carol)
        try harness.run()
        #expect(try carol.store.texts(id) == ["hello large group"])
        #expect(harness.misbehavior.isEmpty)
    }

    /// A line of five members, its links lazy: the first message crosses it by announcements
    /// and requests, each of which makes its link eager; the second reaches the end with no
    /// time passing at all: each node passed it on (§18.8, as in a room).
    @Test func theTreeGrowsWhereEntriesWereMissingAndThenCarriesThemAtOnce() throws {
        let line = try nodes(5)
        let id = try group(by: line[0], with: Array(line.dropFirst()), heldBy: Array(line.dropFirst()))
        for (a, b) in zip(line, line.dropFirst()) { harness.connect(a, b) }
        try harness.run()
        try harness.wrote([try line[0].store.sendMessage("first", to: id)], at: line[0])
        try harness.runWithoutTimers()
        #expect(try line[1].store.texts(id).isEmpty, "no link is eager yet")
        try harness.run()
        #expect(try line[4].store.texts(id) == ["first"])
        for (a, b) in zip(line, line.dropFirst()) {
            #expect(a.engine.peers[b.id]?.isEager(id) == true && b.engine.peers[a.id]?.isEager(id) == true)
        }
        try harness.wrote([try line[0].store.sendMessage("down the line", to: id)], at: line[0])
        try harness.runWithoutTimers()
        #expect(try line[4].store.texts(id) == ["first", "down the line"])
        #expect(harness.misbehavior.isEmpty)
    }

    /// Alice, Bob and Carol in a line, eager in a large group and in a room. Carol's `Prune`
    /// naming the group quiets Bob's link with her in the group only: Alice's message in the
    /// room still reaches her at once, the one in the group by announcement and request.
    @Test func aPruneNamingALargeGroupQuietsThatLinkOnly() throws {
        let nodes = try nodes(3)
        let (alice, bob, carol) = (nodes[0], nodes[1], nodes[2])
        let id = try group(by: alice, with: [bob, carol], heldBy: [bob, carol])
        let room = RoomGenesis(name: RoomName(exactly: "general")!, network: .random())
        for node in nodes {
            try node.store.joinRoom(room)
            _ = try node.engine.holdRooms([room.conversationID])
        }
        for (a, b) in [(alice, bob), (bob, carol)] {
            harness.connect(a, b)
            try harness.runWithoutTimers()
            try harness.rooms([room.conversationID], from: a, to: b)
            try harness.rooms([room.conversationID], from: b, to: a)
            try harness.runWithoutTimers()
            for conversation in [id, room.conversationID] {
                a.engine.peers[b.id]?.setLink(conversation, eager: true, at: a.clock.now)
                b.engine.peers[a.id]?.setLink(conversation, eager: true, at: b.clock.now)
            }
        }
        harness.send(.prune([id]), from: carol, to: bob)
        try harness.runWithoutTimers()
        #expect(bob.engine.peers[carol.id]?.isEager(id) == false)
        #expect(bob.engine.peers[carol.id]?.isEager(room.conversationID) == true)
        #expect(bob.engine.peers[alice.id]?.isEager(id) == true)

        try harness.wrote(
            [
                try alice.store.sendMessage("in the group", to: id),
                try alice.store.sendMessage("in the room", to: room.conversationID),
            ], at: alice)
        try harness.runWithoutTimers()
        #expect(try bob.store.texts(id) == ["in the group"])
        #expect(try carol.store.texts(room.conversationID) == ["in the room"])
        #expect(try carol.store.texts(id).isEmpty, "Bob passes nothing of the group on to the peer that pruned him")
        try harness.run()
        #expect(try carol.store.texts(id) == ["in the group"], "announced and asked for instead")
        #expect(harness.misbehavior.isEmpty)
    }

    /// A large group's clocks may name as many authors as a room's, and so may the clock of
    /// a conversation not held here from a peer that reads large groups (it may be inviting
    /// this node to one); from a peer that does not, such a clock ends the session as before.
    @Test func clocksOfALargeGroupMayNameAsManyAuthorsAsARooms() throws {
        let nodes = try nodes(3)
        let (alice, bob, carol) = (nodes[0], nodes[1], nodes[2])
        let id = try group(by: alice, with: [bob], heldBy: [bob])
        harness.connect(alice, bob)
        harness.connect(alice, carol, secondFeatures: [SessionCodec.requestsFeature])
        try harness.run()
        func authors(_ count: Int) -> VectorClock {
            VectorClock(
                Dictionary(uniqueKeysWithValues: (0..<count).map { _ in (NodeID(bytes: Random.bytes(32))!, UInt64(1)) })
            )
        }
        let wide = try alice.engine.handle(.clocks([.init(conversation: id, clock: authors(4000))]), from: bob.id)
        #expect(wide.misbehavior == nil)
        let invitation = try alice.engine.handle(
            .clocks([.init(conversation: .random(), clock: authors(200))]), from: bob.id)
        #expect(invitation.misbehavior == nil)
        #expect(alice.engine.peers[bob.id]?.invited.isEmpty == true, "a wide invitation's clock is not kept")
        let older = try alice.engine.handle(
            .clocks([.init(conversation: .random(), clock: authors(200))]), from: carol.id)
        #expect(older.misbehavior?.contains("more than \(Limits.maxClockWidth) authors") == true)
    }

    /// Dave, added to a large group, is invited by every holder he has a session with and
    /// asks each for it (he holds nothing of it to ask one of). Those requests do not make
    /// the holders' links with him eager: later messages reach him once each, not once per
    /// holder that invited him.
    @Test func aMemberInvitedByEveryHolderGetsEachLaterMessageOnce() throws {
        let nodes = try nodes(4)
        let (alice, bob, carol, dave) = (nodes[0], nodes[1], nodes[2], nodes[3])
        let (id, _) = try alice.store.createConversation(with: [bob.id, carol.id, dave.id], large: true)
        let create = try alice.store.entries(in: id, author: alice.id, after: 0, limit: 1)
        for holder in [bob, carol] { _ = try holder.store.append(batch: create) }
        for node in [alice, bob, carol] { _ = try node.engine.holdLargeGroups([id]) }
        harness.connect(alice, bob)
        harness.connect(bob, carol)
        for holder in [alice, bob, carol] { harness.connect(holder, dave) }
        try harness.run()
        #expect(try dave.store.isLargeGroup(id))
        for (index, text) in ["first", "second", "third"].enumerated() {
            try harness.wrote([try alice.store.sendMessage(text, to: id)], at: alice)
            try harness.run()
            #expect(try dave.store.texts(id).count == index + 1)
        }
        let copies = harness.log.filter { $0.to == dave.id }.reduce(0) { count, item in
            guard case .entries(let entries) = item.message else { return count }
            return count
                + entries.filter {
                    guard let entry = try? EntryCodec.decodeUnverified($0) else { return false }
                    return entry.conversationID == id && entry.kind == .message
                }.count
        }
        #expect(copies == 3, "each message reached Dave once")
    }
}
