import ConfabModel
import ConfabWire
import NIOConcurrencyHelpers
import Testing

@testable import ConfabSync

/// Whom a node asks for what it lacks (Protocol.md §12.5): among the holders whose requests
/// brought what they claimed, the one asked longest ago, then the one that holds the most of
/// it. In a group, receipts give some peer news every few seconds; asking the peer that
/// sorted first whenever it had news kept a message that another peer held from a node for
/// 12 s in the 1,000-node simulation.
@Suite struct GraftHolderChoiceTests {
    let harness: SyncHarness
    let alice: SyncHarness.Node
    let bob: SyncHarness.Node
    let carol: SyncHarness.Node

    init() throws {
        (harness, alice, bob, carol) = try SyncHarness.trio()
        // The claims below are of the claimants' own logs, which Alice would otherwise wait
        // for them to push (`authorPushWait`); here only whom she asks is in question.
        alice.engine.configuration.authorPushWait = .zero
    }

    /// Alice's peers that sorts first, and the other.
    private var ordered: (first: NodeID, second: NodeID) {
        bob.id < carol.id ? (bob.id, carol.id) : (carol.id, bob.id)
    }

    /// Each second `first` announces `claim(round)` (news every time) and Alice's timer
    /// runs; returns whom Alice asked, round by round.
    private func askedOver(
        rounds: Int, in id: ConversationID, first claim: (Int) -> VectorClock
    ) throws -> [NodeID] {
        var asked: [NodeID] = []
        for round in 1...rounds {
            _ = try alice.engine.handle(.clocks([.init(conversation: id, clock: claim(round))]), from: ordered.first)
            alice.clock.advance(by: .seconds(1))
            let output = try alice.engine.tick()
            for (peer, messages) in output.pushes
            where messages.contains(where: { if case .request = $0 { true } else { false } }) {
                asked.append(peer)
            }
        }
        return asked
    }

    private func setUp() throws -> (ConversationID, VectorClock) {
        harness.connect(alice, bob)
        harness.connect(alice, carol)
        let (id, _) = try alice.store.createConversation(with: [bob.id, carol.id], firstMessage: "hi")
        try harness.run()
        return (id, try alice.store.clock(of: id))
    }

    @Test func aPeerWithNewsEverySecondDoesNotKeepTheRequestFromOneThatHoldsMore() throws {
        let (id, held) = try setUp()
        var more = held
        more[ordered.second] = held[ordered.second] + 3
        _ = try alice.engine.handle(.clocks([.init(conversation: id, clock: more)]), from: ordered.second)
        let asked = try askedOver(rounds: 4, in: id) { round in
            var claim = held
            claim[self.ordered.first] = held[self.ordered.first] + UInt64(round)
            return claim
        }
        #expect(asked.first == ordered.second, "asked \(asked)")
    }

    /// A peer that claims ever more and sends none of it is asked once; after that the peer
    /// whose claim is smaller, but not yet found empty, goes first.
    @Test func aPeerWhoseClaimsNeverArriveIsAskedAfterTheOthers() throws {
        let (id, held) = try setUp()
        var small = held
        small[ordered.second] = held[ordered.second] + 2
        _ = try alice.engine.handle(.clocks([.init(conversation: id, clock: small)]), from: ordered.second)
        let asked = try askedOver(rounds: 4, in: id) { round in
            var claim = held
            claim[self.ordered.first] = held[self.ordered.first] + 1_000_000 * UInt64(round)
            return claim
        }
        #expect(Array(asked.prefix(2)) == [ordered.first, ordered.second], "asked \(asked)")
    }

    /// A member that writes every second, so that something of what it claims always
    /// arrives, and claims far more than it sends, does not take every request: the holders
    /// take turns, and the one that holds what is missing is asked the second time.
    @Test func aMemberThatWritesAndClaimsFarMoreDoesNotTakeEveryRequest() throws {
        let (writer, other) = ordered.first == bob.id ? (bob, carol) : (carol, bob)
        // Dave reaches Alice only through the other.
        let dave = try SyncHarness.Node(name: "dave", seed: 4)
        harness.add(dave)
        harness.connect(alice, bob)
        harness.connect(alice, carol)
        harness.connect(other, dave)
        let (id, _) = try alice.store.createConversation(with: [bob.id, carol.id, dave.id], firstMessage: "hi")
        try harness.run()
        try harness.wrote(try dave.store.sendMessages(["one", "two"], to: id), at: dave)
        try harness.runWithoutTimers()
        _ = try alice.engine.handle(
            .clocks([.init(conversation: id, clock: try other.store.clock(of: id))]), from: other.id)
        for _ in 1...2 {
            try harness.wrote([try writer.store.sendMessage("more", to: id)], at: writer)
            try harness.runWithoutTimers()
            var claim = try writer.store.clock(of: id)
            claim[writer.id] += 1_000
            _ = try alice.engine.handle(.clocks([.init(conversation: id, clock: claim)]), from: writer.id)
            try harness.tick(alice, by: .seconds(1))
        }
        #expect(try alice.store.texts(id).filter { ["one", "two"].contains($0) } == ["one", "two"])
    }
    /// The peers Alice sent a request to in one output.
    private func requested(_ output: SyncOutput) -> [NodeID] {
        output.pushes.compactMap { peer, messages in
            messages.contains(where: { if case .request = $0 { true } else { false } }) ? peer : nil
        }
    }

    /// Dave, out of Alice's reach, writes `count` messages that Bob and Carol both claim;
    /// Alice asks one of them. Returns Dave's entries, how many of his Alice held before
    /// them, whom she asked and the other holder.
    private func daveWritesAndAliceAsks(
        _ count: Int
    ) throws -> (id: ConversationID, dave: NodeID, log: [[UInt8]], before: UInt64, asked: NodeID, other: NodeID) {
        let dave = try SyncHarness.Node(name: "dave", seed: 4)
        harness.add(dave)
        harness.connect(alice, bob)
        harness.connect(alice, carol)
        harness.connect(alice, dave)
        let (id, _) = try alice.store.createConversation(with: [bob.id, carol.id, dave.id], firstMessage: "hi")
        try harness.run()
        harness.disconnect(alice, dave)
        let before = try alice.store.clock(of: id)
        _ = try dave.store.sendEach((1...count).map { "line \($0)" }, to: id)
        let log = try dave.store.entries(in: id, author: dave.id, after: before[dave.id])
        let claim = try dave.store.clock(of: id)
        for holder in [bob, carol] {
            _ = try alice.engine.handle(.clocks([.init(conversation: id, clock: claim)]), from: holder.id)
        }
        alice.clock.advance(by: .seconds(1))
        let first = requested(try alice.engine.tick())
        #expect(first.count == 1)
        let asked = try #require(first.first)
        return (id, dave.id, log, before[dave.id], asked, asked == bob.id ? carol.id : bob.id)
    }

    /// On a loaded machine an answer of hundreds of entries takes seconds to arrive and be
    /// stored. While what the asked peer claimed keeps coming from it, the other holder is
    /// not asked (it would send the same entries again); once a second passes with nothing
    /// of it, it is.
    @Test func anAnswerStillComingKeepsTheNextHolderWaiting() throws {
        let (id, dave, log, before, asked, other) = try daveWritesAndAliceAsks(6)
        for entry in log.prefix(4) {
            _ = try alice.engine.handle(.entries([entry]), from: asked)
            alice.clock.advance(by: .milliseconds(900))
            #expect(requested(try alice.engine.tick()).isEmpty)
        }
        #expect(try alice.store.clock(of: id)[dave] == before + 4)
        alice.clock.advance(by: .seconds(1))
        #expect(requested(try alice.engine.tick()) == [other])
    }

    /// The lie: a holder that sends one claimed entry every 0.9 s, to be the only one asked,
    /// keeps the other from being asked for 10 s at most.
    @Test func aHolderThatTricklesItsAnswerHoldsOffTheOthersForTenSecondsAtMost() throws {
        let (_, _, log, _, asked, other) = try daveWritesAndAliceAsks(30)
        var next: [NodeID] = []
        var elapsed = Duration.zero
        for entry in log where next.isEmpty {
            _ = try alice.engine.handle(.entries([entry]), from: asked)
            alice.clock.advance(by: .milliseconds(900))
            elapsed += .milliseconds(900)
            next = requested(try alice.engine.tick())
        }
        #expect(next == [other])
        #expect(elapsed >= .seconds(10) && elapsed < .seconds(11), "\(elapsed)")
    }

    /// With more than 64 KiB of messages waiting in its own inbox, what a node lacks is most
    /// likely among them: it asks nobody until they are handled, or the lack is 10 s old.
    @Test func aNodeWithMessagesWaitingInItsInboxAsksOnceTheyAreHandled() throws {
        let (id, held) = try setUp()
        let waiting = NIOLockedValueBox(100_000)
        alice.engine.configuration.backlog = { waiting.withLockedValue { $0 } }
        var claim = held
        claim[bob.id] = held[bob.id] + 3
        _ = try alice.engine.handle(.clocks([.init(conversation: id, clock: claim)]), from: bob.id)
        for _ in 1...9 {
            alice.clock.advance(by: .seconds(1))
            #expect(requested(try alice.engine.tick()).isEmpty)
        }
        waiting.withLockedValue { $0 = 0 }
        alice.clock.advance(by: .milliseconds(500))
        #expect(requested(try alice.engine.tick()) == [bob.id])
        // And a lack that lasts is asked for even while the inbox stays full.
        waiting.withLockedValue { $0 = 100_000 }
        var more = claim
        more[carol.id] = held[carol.id] + 2
        _ = try alice.engine.handle(.clocks([.init(conversation: id, clock: more)]), from: carol.id)
        alice.clock.advance(by: .seconds(1))
        #expect(requested(try alice.engine.tick()) == [carol.id])
    }
}
