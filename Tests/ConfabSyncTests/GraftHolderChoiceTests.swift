import ConfabModel
import ConfabWire
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
}
