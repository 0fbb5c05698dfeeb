import ConfabModel
import ConfabWire
import Testing

@testable import ConfabSync

/// A request's clock is the peer's word about what it holds (Protocol.md §12 step 3): where
/// it says less than this node took it to hold, what it lacks is sent again.
@Suite struct RequestClockTests {
    /// Alice's entries to Bob are lost, and Bob then claims (wrongly) to hold them; his
    /// request later says what he truly holds, and is answered from there.
    @Test func aRequestThatSaysThePeerHoldsLessThanThoughtIsAnsweredFromThere() throws {
        let (harness, alice, bob, _) = try SyncHarness.trio()
        let (id, _) = try alice.store.createConversation(with: [bob.id])
        harness.connect(alice, bob)
        try harness.run()
        #expect(try bob.store.clock(of: id)[alice.id] == 1)
        harness.loses = { from, to, message in
            if from == alice.id, to == bob.id, case .entries = message { return true }
            return false
        }
        let written = try alice.store.sendEach(["one", "two", "three"], to: id)
        try harness.wrote(written, at: alice)
        try harness.run()
        harness.loses = nil
        #expect(try bob.store.texts(id).isEmpty, "the entries were lost on the way")
        let held = try bob.store.clock(of: id)
        var claimed = held
        claimed[alice.id] = 4
        harness.send(.clocks([.init(conversation: id, clock: claimed)]), from: bob, to: alice)
        try harness.runWithoutTimers()
        // Past the resend interval, Bob asks with what he holds.
        alice.clock.advance(by: SyncEngine.resendInterval + .seconds(1))
        harness.send(.request([.init(conversation: id, clock: held)]), from: bob, to: alice)
        try harness.runWithoutTimers()
        #expect(try bob.store.texts(id) == ["one", "two", "three"])
    }
}

/// The stuck node of the LAN benches, as far as it is understood: a member gets the end of
/// an author's log (a second commit) but not its start (the first), and must get the start
/// by asking, from the author or from another holder.
@Suite struct LostStartTests {
    @Test func aMemberThatMissedTheStartOfALogGetsItByAsking() throws {
        let (harness, alice, bob, carol) = try SyncHarness.trio()
        let (id, _) = try alice.store.createConversation(with: [bob.id, carol.id], large: true)
        for (a, b) in [(alice, bob), (alice, carol), (bob, carol)] { harness.connect(a, b) }
        try harness.run()
        #expect(try carol.store.clock(of: id)[alice.id] == 1)
        // Carol's copies of Alice's first commit are lost, from everyone.
        var lost = true
        harness.loses = { _, to, message in
            guard lost, to == carol.id, case .entries(let entries) = message else { return false }
            return entries.contains { (try? EntryCodec.decodeUnverified($0))?.kind == .message }
        }
        let first = try alice.store.sendMessages((1...16).map { "first \($0)" }, to: id)
        try harness.wrote(first, at: alice)
        try harness.runWithoutTimers()
        lost = false
        let second = try alice.store.sendMessages((17...20).map { "second \($0)" }, to: id)
        try harness.wrote(second, at: alice)
        try harness.run()
        let held = try carol.store.texts(id).count
        #expect(held == 20, "\(held) of 20")
    }
}
