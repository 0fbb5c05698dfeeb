import ConfabModel
import ConfabStore
import Testing

@testable import ConfabSync

/// What the engine sends a peer, decided from values alone: eager push or invitation,
/// lazy announcement, and the entries that go within the windows (Protocol.md §12 step 3,
/// §12.5). No store, no session: each decision is read off the plan.
@Suite struct OutboundPlanTests {
    let me = NodeID(bytes: [UInt8](repeating: 1, count: 32))!
    let bob = NodeID(bytes: [UInt8](repeating: 2, count: 32))!
    let carol = NodeID(bytes: [UInt8](repeating: 3, count: 32))!

    /// `count` entries of `author` from `from`, each `size` bytes, their clock sums as given.
    func log(from: UInt64 = 1, _ count: Int, sums: [UInt64]? = nil, size: Int = 10) -> [SequencedEntry] {
        (0..<count).map { index in
            let seq = from + UInt64(index)
            return SequencedEntry(
                seq: seq, clockSum: sums?[index] ?? seq,
                raw: [UInt8](repeating: UInt8(truncatingIfNeeded: seq), count: size))
        }
    }

    func plan(
        held: VectorClock, firstUnsent: UInt64? = nil, theirs: VectorClock? = nil, sent: VectorClock? = nil,
        written: UInt64? = nil, onlyMine: Bool = false, window: Int = 1024, batchSize: Int = 256,
        byteRoom: Int = 1 << 20, idle: Bool = true
    ) -> OutboundPlan {
        OutboundPlan(
            me: me, held: held, firstUnsent: firstUnsent, theirs: theirs, sent: sent, written: written,
            onlyMine: onlyMine, window: window, batchSize: batchSize, byteRoom: byteRoom, idle: idle)
    }

    static func allSigned(_ entries: [(author: NodeID, raw: [UInt8])]) -> Int { entries.count }

    // MARK: A room's eager tree (§18.8)

    /// Passing on Bob's entries 7–8 to a peer known to hold his 1–3: only 7–8 go (the peer
    /// may hold 4–6 from another link), Carol's are not offered at all, and 4–6 stay unsent,
    /// so that a request for them is answered.
    @Test func passingOnSendsOnlyTheNewEntriesAndLeavesTheGapUnsent() {
        let plan = OutboundPlan(
            me: me, held: VectorClock([bob: 8, carol: 5]), firstUnsent: nil, theirs: VectorClock([bob: 3]),
            sent: nil, written: nil, onlyMine: false, relaying: [bob: 6], window: 1024, batchSize: 256,
            byteRoom: 1 << 20, idle: true)
        #expect(plan.reads.map(\.author) == [bob])
        let offer = plan.offer([bob: log(from: 7, 2)], signedPrefix: Self.allSigned)
        #expect(offer.entries.map(\.raw.first) == [7, 8])
        #expect(offer.sent[bob] == 3)
        // No gap: what was sent moves on as usual.
        let contiguous = OutboundPlan(
            me: me, held: VectorClock([bob: 8]), firstUnsent: nil, theirs: VectorClock([bob: 6]), sent: nil,
            written: nil, onlyMine: false, relaying: [bob: 6], window: 1024, batchSize: 256, byteRoom: 1 << 20,
            idle: true)
        #expect(contiguous.offer([bob: log(from: 7, 2)], signedPrefix: Self.allSigned).sent[bob] == 8)
    }

    // MARK: Eager or lazy

    @Test func myNewEntriesGoAtOnceToAMemberThatKnowsTheConversation() {
        let held = VectorClock([me: 3, bob: 2])
        #expect(OutboundPlan.eager(sharing: .everything, held: held, inviting: false, heardOf: false) == .entries)
        #expect(OutboundPlan.eager(sharing: .everything, held: held, inviting: true, heardOf: true) == .entries)
        #expect(OutboundPlan.eager(sharing: .none, held: held, inviting: true, heardOf: false) == .nothing)
    }

    @Test func aMemberThatMayBeNewIsInvitedWithTheClockItMayHave() {
        let held = VectorClock([me: 5, bob: 4])
        #expect(
            OutboundPlan.eager(sharing: .everything, held: held, inviting: true, heardOf: false) == .invite(held))
        // A former member's clock stops at its removal.
        let cap = VectorClock([me: 2, bob: 4])
        #expect(
            OutboundPlan.eager(sharing: .upTo(cap), held: held, inviting: true, heardOf: false)
                == .invite(VectorClock([me: 2, bob: 4])))
    }

    @Test func aGrownConversationIsAnnouncedOnlyToPeersThatMayLackIt() {
        let held = VectorClock([me: 1, bob: 6])
        #expect(OutboundPlan.announcement(sharing: .everything, held: held, theirs: nil, announced: nil) == held)
        // The sender of the entries holds them; a peer told this clock last is not told again.
        #expect(
            OutboundPlan.announcement(
                sharing: .everything, held: held, theirs: VectorClock([me: 1, bob: 7]), announced: nil) == nil)
        #expect(OutboundPlan.announcement(sharing: .everything, held: held, theirs: nil, announced: held) == nil)
        #expect(OutboundPlan.announcement(sharing: .none, held: held, theirs: nil, announced: nil) == nil)
        // An older clock announced is no reason to keep quiet about the newer one.
        #expect(
            OutboundPlan.announcement(
                sharing: .everything, held: held, theirs: VectorClock([bob: 2]), announced: VectorClock([bob: 5]))
                == held)
    }

    // MARK: Windows

    @Test func whatThePeerHoldsOrWasSentIsNotReadAgain() {
        let plan = plan(
            held: VectorClock([me: 10, bob: 4, carol: 3]), theirs: VectorClock([me: 4, bob: 4]),
            sent: VectorClock([me: 7]), written: 7)
        // 3 of mine in flight (sent 7, held there 4): a window of 1024 leaves 1021.
        #expect(
            plan.reads == [
                .init(author: me, after: 7, limit: 1021, held: 10),
                .init(author: carol, after: 0, limit: 1024, held: 3),
            ])
    }

    @Test func theEagerPathReadsMyLogAlone() {
        let plan = plan(held: VectorClock([me: 2, bob: 9]), onlyMine: true)
        #expect(plan.reads == [.init(author: me, after: 0, limit: 1024, held: 2)])
    }

    @Test func anAuthorWithAFullWindowInFlightWaits() {
        // 8 in flight of a window of 8: nothing more; 5 in flight: 3 more, within 4 batches.
        let full = plan(
            held: VectorClock([bob: 20]), theirs: VectorClock([bob: 2]), sent: VectorClock([bob: 10]), window: 8)
        #expect(full.reads.isEmpty)
        let room = plan(
            held: VectorClock([bob: 20]), theirs: VectorClock([bob: 5]), sent: VectorClock([bob: 10]), window: 8)
        #expect(room.reads == [.init(author: bob, after: 10, limit: 3, held: 20)])
        let batches = plan(held: VectorClock([bob: 5000]), window: 4096, batchSize: 2)
        #expect(batches.reads == [.init(author: bob, after: 0, limit: 8, held: 5000)])
    }

    @Test func myEntriesNobodyTookAreOfferedWhateverThePeersClockClaims() {
        // The peer claims my log up to 9; seqs from 6 are still in my outbox and were never
        // written to it this session: they go again, from 6.
        let claimed = plan(held: VectorClock([me: 9]), firstUnsent: 6, theirs: VectorClock([me: 9]), written: 0)
        #expect(claimed.reads == [.init(author: me, after: 5, limit: 1024, held: 9)])
        // Written to it already this session: its clock counts.
        let written = plan(held: VectorClock([me: 9]), firstUnsent: 6, theirs: VectorClock([me: 9]), written: 9)
        #expect(written.reads.isEmpty)
    }

    @Test func entriesGoInDisplayOrderAcrossAuthors() {
        let plan = plan(held: VectorClock([me: 2, bob: 2]))
        let offer = plan.offer(
            [me: log(2, sums: [1, 4]), bob: log(2, sums: [2, 3])], signedPrefix: Self.allSigned)
        #expect(offer.entries.map(\.author) == [me, bob, bob, me])
        #expect(offer.sent == VectorClock([me: 2, bob: 2]) && offer.written == 2 && !offer.starved)
        #expect(offer.bytes == 40)
    }

    @Test func anAuthorCutByItsWindowHoldsBackWhatMayDependOnTheRest() {
        // Bob's read stops at 2 of 5 (window 2): Carol's entry summed above bob's last read
        // may depend on bob's third, so it waits.
        let plan = plan(held: VectorClock([bob: 5, carol: 2]), window: 2)
        let offer = plan.offer(
            [bob: log(2, sums: [1, 2]), carol: log(2, sums: [2, 3])], signedPrefix: Self.allSigned)
        #expect(offer.entries.map(\.author) == [bob, bob, carol])
        #expect(offer.sent == VectorClock([bob: 2, carol: 1]) && offer.written == nil)
    }

    @Test func nothingAboveWhatThePeerMayHaveGoesEvenWhenReadBeyondIt() {
        // A former member lagging behind its removal (bob's log capped at 3): the read may
        // return more of the log, and what was written after the removal is not offered.
        let plan = plan(held: VectorClock([bob: 3]))
        let offer = plan.offer([bob: log(6)], signedPrefix: Self.allSigned)
        #expect(offer.sent == VectorClock([bob: 3]) && offer.entries.count == 3)
    }

    @Test func aHoleInALogStopsThatAuthor() {
        let plan = plan(held: VectorClock([bob: 4]))
        let offer = plan.offer([bob: log(2) + log(from: 4, 1)], signedPrefix: Self.allSigned)
        #expect(offer.sent == VectorClock([bob: 2]) && offer.entries.count == 2)
    }

    @Test func theByteWindowStarvesWhatDoesNotFitButNeverTheFirstEntryOfAnIdlePeer() {
        let tight = plan(held: VectorClock([bob: 3]), byteRoom: 25)
        let offer = tight.offer([bob: log(3)], signedPrefix: Self.allSigned)
        #expect(offer.entries.count == 2 && offer.starved && offer.sent == VectorClock([bob: 2]))
        let huge = plan(held: VectorClock([bob: 1]), byteRoom: 5)
        #expect(huge.offer([bob: log(1)], signedPrefix: Self.allSigned).entries.count == 1)
        let busy = plan(held: VectorClock([bob: 1]), byteRoom: 5, idle: false)
        let waiting = busy.offer([bob: log(1)], signedPrefix: Self.allSigned)
        #expect(waiting.entries.isEmpty && waiting.starved && waiting.bytes == 0)
    }

    @Test func anUnsignedTopIsCutBackAndWaits() {
        let plan = plan(held: VectorClock([me: 4]))
        let offer = plan.offer([me: log(4)]) { _ in 2 }
        #expect(offer.entries.count == 2 && offer.starved)
        #expect(offer.sent == VectorClock([me: 2]) && offer.written == 2 && offer.bytes == 20)
    }
}
