import ConfabCrypto
import ConfabModel
import ConfabTestSupport
import ConfabWire
import Foundation
import Testing

/// A hostile peer completes the real handshake with real `confab up` nodes on loopback and
/// tells one lie about someone else; each test asserts what the victim does instead of
/// believing it (Protocol.md §15).
@Suite(.serialized) struct HostilePeerTests {
    /// Alice and Bob (real nodes that know each other and Mallory) and Mallory (scripted),
    /// with a group of the three created by Alice and taken by Mallory as a member would.
    private struct Group {
        let alice: NodeProcess
        let bob: NodeProcess
        let mallory: HostilePeer
        let id: ConversationID

        static func make(startBob: Bool = true) async throws -> Group {
            let root = try temporaryRoot()
            let discovery = try DiscoveryPort()
            let nodes = try NodeProcess.acquainted(["alice", "bob"], root: root, discovery: discovery)
            let mallory = try HostilePeer(name: "mallory")
            for node in nodes { try node.cli(["peers", "add", mallory.id.hex, "--name", "mallory"]) }
            let (alice, bob) = (nodes[0], nodes[1])
            try alice.cli(["new", "bob", "mallory", "--title", "Plans", "--message", "hi all"])
            let id = try alice.newestConversation()
            try alice.start()
            if startBob { try bob.start() }
            try await mallory.connect(to: alice)
            try await mallory.takeConversation(id, from: alice) { (try? mallory.store.history(id))?.count == 1 }
            return Group(alice: alice, bob: bob, mallory: mallory, id: id)
        }

        func stop() async {
            await mallory.shutdown()
            for node in [alice, bob] { try? node.stop() }
        }
    }

    @Test func aClockClaimingAnotherMembersLogSilencesNobody() async throws {
        let g = try await Group.make(startBob: false)
        defer { Task { await g.stop() } }
        // "Alice has written 99 entries": a lie about Alice, in a validly signed message.
        let poisoned = try g.mallory.message(
            "poison", in: g.id, clock: VectorClock([g.alice.nodeID(): 99]))
        try g.mallory.send(.entries([poisoned]), to: g.alice)
        // Alice cannot check it yet (she holds 2 of her own, not 99) and keeps it aside.
        try await g.alice.waitForLog(
            "entry from \(g.mallory.id.shortHex) not yet applicable: entry's causal clock names "
                + "\(g.alice.key.prefix(8)) at 99")
        let sent = try g.alice.cli(["send", g.id.hex, "still writing"])
        #expect(sent.status == 0, "\(sent.stderr)")
        try g.alice.stop()
        try g.alice.start()
        let again = try g.alice.cli(["send", g.id.hex, "after a restart too"])
        #expect(again.status == 0, "\(again.stderr)")
        #expect(try g.alice.texts(with: g.id.hex) == ["hi all", "still writing", "after a restart too"])
        // Not a session error: an honest peer may forward what it cannot check either.
        #expect(!g.alice.log.contains("closing session with \(g.mallory.id.shortHex)"))
    }

    /// Mallory gives one member seq 1 of its log and the other seq 1 and 2 of another
    /// branch, the longer at Bob or at Alice. Whoever holds the longer one names Mallory's
    /// seq 2 in everything it writes after, which the other will never hold: the proof
    /// must still let both members' messages and receipts through, both ways.
    @Test(arguments: [true, false])
    func aForkIsProvenShownAndNeverSplitsHonestNodes(longerBranchAtBob: Bool) async throws {
        let g = try await Group.make()
        defer { Task { await g.stop() } }
        try await waitUntil(timeout: 30, "bob to hold the group") { try g.bob.texts(with: g.id.hex) == ["hi all"] }
        // Two different seq 1 for two members, and a seq 2 on one branch only.
        let short = try g.mallory.message("the short branch", in: g.id, seq: 1)
        let long = try g.mallory.message("the long branch", in: g.id, seq: 1)
        let longHash = try EntryCodec.decodeUnverified(long).hash
        let longNext = try g.mallory.message("the long branch, more", in: g.id, seq: 2, previous: .some(longHash))
        let (shortAt, longAt) = longerBranchAtBob ? (g.alice, g.bob) : (g.bob, g.alice)
        try await g.mallory.connect(to: g.bob)
        try g.mallory.send(.entries([short]), to: shortAt)
        try g.mallory.send(.entries([long, longNext]), to: longAt)
        for node in [g.alice, g.bob] {
            try await waitUntil(timeout: 30, "\(node.name) to hold the proof") {
                let list = try node.cli(["list", "--json"]).json() as? [[String: Any]]
                return (list?.first?["forkedAuthors"] as? [String]) == [g.mallory.id.hex]
            }
            let history = try node.cli(["history", g.id.hex, "--no-mark-read"]).stdout
            #expect(history.contains("signed two different versions"))
        }
        // Alice and Bob keep their session and keep talking, both ways.
        #expect(try g.alice.cli(["send", g.id.hex, "alice after the proof"]).status == 0)
        #expect(try g.bob.cli(["send", g.id.hex, "bob after the proof"]).status == 0)
        try await waitUntil(timeout: 30, "bob to get alice's message") {
            try g.bob.texts(with: g.id.hex).contains("alice after the proof")
        }
        try await waitUntil(timeout: 30, "alice to get bob's message") {
            try g.alice.texts(with: g.id.hex).contains("bob after the proof")
        }
        // Each one's delivered receipts reach the other: both hold both logs whole.
        func log(of author: NodeProcess, at node: NodeProcess) throws -> (seq: Int, receipts: Int) {
            let database = node.data.appendingPathComponent("confab.sqlite")
            let entries =
                "FROM entry WHERE hex(conversationId) = upper('\(g.id.hex)') AND hex(author) = upper('\(author.key)')"
            return (
                try count("SELECT coalesce(max(seq), 0) \(entries)", in: database),
                try count("SELECT count(*) \(entries) AND kind = 3", in: database)
            )
        }
        try await waitUntil(timeout: 30, "alice and bob to hold each other's receipts") {
            let (alice, bob) = (g.alice, g.bob)
            let bobsAtAlice = try log(of: bob, at: alice)
            let alicesAtBob = try log(of: alice, at: bob)
            let bobsOwn = try log(of: bob, at: bob).seq
            let alicesOwn = try log(of: alice, at: alice).seq
            return bobsAtAlice.receipts > 0 && alicesAtBob.receipts > 0
                && bobsAtAlice.seq == bobsOwn && alicesAtBob.seq == alicesOwn
        }
        // Neither hung up on the other over what it was sent (a duplicate session closed
        // while both dial at once, §10.5, is no such thing).
        for node in [g.alice, g.bob] {
            #expect(!node.log.contains("closing session with"), "\(node.name) closed a session")
        }
        #expect(try g.alice.sessionKeys().contains(g.bob.key))
    }

    @Test func aSquattedIdNeverReplacesTheRealConversation() async throws {
        let g = try await Group.make(startBob: false)
        defer { Task { await g.stop() } }
        // Mallory signs a create of its own for the id Alice's conversation has, and offers
        // it to Bob before Bob has met Alice.
        try g.bob.start(discovery: false)
        try await g.mallory.connect(to: g.bob)
        let key = ConversationCipher.generateKey()
        let members = [g.mallory.id, try g.bob.nodeID()]
        let squat = EntryCodec.sign(
            EntryDraft(
                conversationID: g.id, seq: 1, previous: nil, timestamp: 1_800_000_000_000, clock: VectorClock(),
                body: .create(
                    CreateBody(
                        participants: try members.map {
                            .init(id: $0, sealedKey: try ConversationCipher.sealKey(key, to: $0))
                        },
                        sealedTitle: [], nonce: [UInt8](repeating: 7, count: 16),
                        keyCommitment: ConversationGenesis.keyCommitment(key, conversationID: g.id)))),
            with: g.mallory.keys)
        try g.mallory.send(.clocks([.init(conversation: g.id, clock: VectorClock([g.mallory.id: 1]))]), to: g.bob)
        try g.mallory.send(.entries([EntryCodec.encode(squat)]), to: g.bob)
        // Bob sees through it (the id is not derived from Mallory's key) and hangs up.
        try await g.bob.waitForLog(
            "closing session with \(g.mallory.id.shortHex): sent an invalid entry: malformed conversation id is not "
                + "derived from the creator's key and nonce")
        #expect(try g.bob.cli(["list", "--json"]).stdout.contains(g.id.hex) == false)
        // The real one arrives once Bob meets Alice, and is taken.
        try g.bob.stop()
        try g.bob.start()
        try await waitUntil(timeout: 30, "bob to get alice's conversation") {
            try g.bob.texts(with: g.id.hex) == ["hi all"]
        }
        let list = try #require(try g.bob.cli(["list", "--json"]).json() as? [[String: Any]])
        let names = (list.first?["participants"] as? [[String: Any]])?.compactMap { $0["name"] as? String }
        #expect(Set(names ?? []) == ["alice", "mallory"])
    }

    @Test func aPeerThatSaysItIsARelayIsOfferedNothing() async throws {
        let root = try temporaryRoot()
        let nodes = try NodeProcess.acquainted(["alice", "bob"], root: root, discovery: try DiscoveryPort())
        let alice = nodes[0]
        defer { try? alice.stop() }
        try alice.cli(["send", "bob", "private to bob"])
        let id = try alice.newestConversation()
        try alice.start()
        let eve = try HostilePeer(name: "eve")
        defer { Task { await eve.shutdown() } }
        try await eve.connect(to: alice, role: .relay)
        try eve.send(.want(.init(conversation: id, author: try alice.nodeID(), after: 0)), to: alice)
        try await waitUntil(timeout: 30, "alice to answer eve's hello") {
            try eve.received(from: alice).contains { $0.clocks != nil }
        }
        // Whatever alice would answer to the Want, she would have sent before this.
        try await eve.barrier(with: alice)
        #expect(try eve.announced(by: alice).isEmpty)
        #expect(try !eve.received(from: alice).contains { if case .entries = $0 { true } else { false } })
    }

    @Test func clocksAndReceiptsClaimingTooMuchChangeNoStatus() async throws {
        let g = try await Group.make(startBob: false)
        defer { Task { await g.stop() } }
        let alice = try g.alice.nodeID()
        // Mallory claims to hold far more of Alice's log than exists, then signs a receipt
        // saying it read all of it.
        try g.mallory.send(.clocks([.init(conversation: g.id, clock: VectorClock([alice: 1000]))]), to: g.alice)
        let held = try g.mallory.store.clock(of: g.id)
        let receipt = EntryCodec.sign(
            EntryDraft(
                conversationID: g.id, seq: 1, previous: nil, timestamp: 1_800_000_000_000,
                clock: held.merging(VectorClock([alice: 1000])),
                body: .receipt(delivered: VectorClock([alice: 1000]), read: VectorClock([alice: 1000]))),
            with: g.mallory.keys)
        try g.mallory.send(.entries([EntryCodec.encode(receipt)]), to: g.alice)
        // Alice cannot check the receipt (it names 1000 of her entries; she wrote 2) and
        // keeps it aside; the Clocks before it she has handled too.
        try await g.alice.waitForLog(
            "entry from \(g.mallory.id.shortHex) not yet applicable: entry's causal clock names "
                + "\(g.alice.key.prefix(8)) at 1000")
        // A message written after the lies: nobody has it, so it is not read or delivered,
        // and waiting for delivery times out (exit 3). Its status is read from the store
        // from the first moment: a believed lie would show at once.
        let waited = try g.alice.cli(["send", g.id.hex, "nobody has this", "--wait", "--timeout", "1"])
        #expect(waited.status == 3, "\(waited.stdout) \(waited.stderr)")
        let statuses = try g.alice.statuses(with: g.id.hex)
        #expect(statuses.last != "read" && statuses.last != "delivered", "\(statuses)")
    }

    @Test func aPersonsNodeKeepsNoConversationItIsNotIn() async throws {
        let root = try temporaryRoot()
        let nodes = try NodeProcess.acquainted(["alice", "bob"], root: root, discovery: try DiscoveryPort())
        let alice = nodes[0]
        defer { try? alice.stop() }
        try alice.start()
        let mallory = try HostilePeer(name: "mallory")
        defer { Task { await mallory.shutdown() } }
        try await mallory.connect(to: alice)
        // A conversation between Mallory and a throwaway key, pushed at Alice unannounced.
        let other = SigningKeyPair.generate()
        let (id, _) = try mallory.store.createConversation(with: [NodeID(other.publicKey)], firstMessage: "filler")
        try mallory.send(.entries(try mallory.store.entries(in: id, author: mallory.id, after: 0)), to: alice)
        try await alice.waitForLog(
            "entry from \(mallory.id.shortHex) not stored: a conversation this node is not a participant of")
        let database = alice.data.appendingPathComponent("confab.sqlite")
        #expect(
            try count("SELECT count(*) FROM entry WHERE hex(conversationId) = upper('\(id.hex)')", in: database) == 0)
        // Announced first, it is an invitation (a members entry may add Alice later,
        // Protocol.md §4.8): held, but in no list, and Alice writes nothing in it.
        let (invited, _) = try mallory.store.createConversation(with: [NodeID(other.publicKey)], firstMessage: "bait")
        try mallory.send(
            .clocks([.init(conversation: invited, clock: try mallory.store.clock(of: invited))]), to: alice)
        try mallory.send(.entries(try mallory.store.entries(in: invited, author: mallory.id, after: 0)), to: alice)
        try await waitUntil(timeout: 30, "alice to hold the invitation") {
            try count(
                "SELECT count(*) FROM entry WHERE hex(conversationId) = upper('\(invited.hex)')", in: database) == 2
        }
        let list = try alice.cli(["list", "--all", "--json"])
        #expect(!list.stdout.contains(invited.hex))
        #expect(try alice.cli(["send", invited.hex, "hello?"]).status != 0)
        #expect(
            try count(
                "SELECT count(*) FROM entry WHERE hex(conversationId) = upper('\(invited.hex)') AND author = x'\(alice.key)'",
                in: database) == 0)
        #expect(try mallory.isConnected(to: alice))
    }
}

extension HostilePeerTests {
    /// Mallory, a member but not the admin, signs a removal of Bob, correctly sealed to
    /// those who would stay: Alice's node refuses it (Protocol.md §4.8.3), keeps Bob, and
    /// does not end the session (an honest node may forward what it holds differently).
    @Test func aRemovalByAMemberThatIsNotTheAdminIsRefused() async throws {
        let g = try await Group.make(startBob: false)
        defer { Task { await g.stop() } }
        let alice = try g.alice.nodeID()
        let seq = try g.mallory.store.clock(of: g.id)[g.mallory.id] + 1
        let epoch = try MembershipCipher.makeEpoch(
            for: [alice, g.mallory.id], conversationID: g.id, author: g.mallory.id, seq: seq)
        var clock = try g.mallory.store.clock(of: g.id)
        clock[g.mallory.id] = seq - 1
        let previous =
            seq == 1
            ? nil
            : try g.mallory.store.entries(in: g.id, author: g.mallory.id, after: seq - 2, limit: 1).first
                .map { try EntryCodec.decodeUnverified($0).hash }
        let forged = EntryCodec.sign(
            EntryDraft(
                conversationID: g.id, seq: seq, previous: previous,
                timestamp: Int64(Date().timeIntervalSince1970 * 1000), clock: clock,
                body: .members(
                    MembersBody(remove: [try g.bob.nodeID()], keys: epoch.keys, keyCommitment: epoch.commitment))),
            with: g.mallory.keys)
        try g.mallory.send(.entries([EntryCodec.encode(forged)]), to: g.alice)
        try await g.alice.waitForLog(
            "entry from \(g.mallory.id.shortHex) not stored: entry breaks the membership rules: removes members, "
                + "which only the admin")
        let members = try g.alice.cli(["members", g.id.hex, "--json"])
        let list = try #require(try members.json() as? [String: Any])
        #expect((list["members"] as? [[String: Any]])?.count == 3)
        #expect(try g.mallory.isConnected(to: g.alice))
        #expect(try g.alice.cli(["send", g.id.hex, "bob is still here"]).status == 0)
    }
}
