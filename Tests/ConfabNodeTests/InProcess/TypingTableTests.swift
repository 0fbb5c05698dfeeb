import ConfabClient
import ConfabModel
import NIOCore
import Testing

@testable import ConfabNode

/// What a peer's typing messages can make a node show, and hold, in virtual time.
@Suite struct TypingTableTests {
    let bob = NodeID(bytes: [UInt8](repeating: 2, count: 32))!
    let carol = NodeID(bytes: [UInt8](repeating: 3, count: 32))!
    let start = NIODeadline.uptimeNanoseconds(1_000_000_000_000)

    func key(_ n: UInt8, _ peer: NodeID) -> TypingTable.Key {
        .init(conversation: ConversationID(bytes: [UInt8](repeating: n, count: 16))!, peer: peer)
    }

    @Test func shownOnceRefreshedAndEndedByTheTimeoutOrAStop() {
        var table = TypingTable()
        let first = table.start(key(1, bob), now: start)
        #expect(first == (true, []))
        // A refresh is no news, and moves the end.
        let refresh = table.start(key(1, bob), now: start + .seconds(3))
        #expect(refresh == (false, []))
        let early = table.expire(now: start + .seconds(7))
        #expect(early.isEmpty)
        let late = table.expire(now: start + .seconds(8))
        #expect(late == [key(1, bob)])
        #expect(table.isEmpty)
        _ = table.start(key(1, bob), now: start)
        let stopped = table.stop(key(1, bob))
        let again = table.stop(key(1, bob))
        #expect(stopped && !again)
    }

    @Test func aPeerIsShownInAtMostFourConversationsTheOldestGivingWay() {
        var table = TypingTable()
        for n: UInt8 in 1...4 { _ = table.start(key(n, bob), now: start + .seconds(Int64(n))) }
        _ = table.start(key(9, carol), now: start)
        let (shown, displaced) = table.start(key(5, bob), now: start + .seconds(5))
        #expect(shown && displaced == [key(1, bob)])
        #expect(table.expiries.count == 5)
        #expect(table.expiries.keys.filter { $0.peer == bob }.count == 4)
    }

    @Test func aFloodIsDroppedBeyondTheRateAndLoggedOnce() {
        var table = TypingTable()
        let burst = (0..<Int(TypingTable.burst)).map { _ in table.admit(bob, now: start) }
        #expect(burst.allSatisfy { $0 == .admitted })
        let over = [table.admit(bob, now: start), table.admit(bob, now: start)]
        #expect(over == [.dropped(first: true), .dropped(first: false)])
        // Another peer has a bucket of its own.
        let other = table.admit(carol, now: start)
        #expect(other == .admitted)
        // Refilled at 2 a second.
        let later = [
            table.admit(bob, now: start + .milliseconds(600)), table.admit(bob, now: start + .milliseconds(600)),
        ]
        #expect(later == [.admitted, .dropped(first: false)])
    }

    @Test func aSessionEndingEndsItsPeersIndicationsAndItsBudget() {
        var table = TypingTable()
        _ = table.start(key(1, bob), now: start)
        _ = table.start(key(2, bob), now: start)
        _ = table.start(key(1, carol), now: start)
        for _ in 0...Int(TypingTable.burst) { _ = table.admit(bob, now: start) }
        let gone = table.peerGone(bob)
        #expect(gone == [key(1, bob), key(2, bob)].sorted())
        #expect(table.expiries.keys.map(\.peer) == [carol])
        let fresh = table.admit(bob, now: start)
        #expect(fresh == .admitted)
        let all = table.removeAll()
        #expect(all == [key(1, carol)])
    }
}

/// How often a node says "typing".
@Suite struct TypingPacerTests {
    let conversation = ConversationID(bytes: [UInt8](repeating: 1, count: 16))!
    let start = ContinuousClock.now

    @Test func aStartAtMostEveryThreeSecondsAndAStopOnlyAfterAStart() {
        var pacer = TypingPacer()
        let said = [
            pacer.shouldSignal(false, in: conversation, now: start),
            pacer.shouldSignal(true, in: conversation, now: start),
            pacer.shouldSignal(true, in: conversation, now: start + .seconds(2.9)),
            pacer.shouldSignal(true, in: conversation, now: start + .seconds(3)),
            pacer.shouldSignal(false, in: conversation, now: start + .seconds(4)),
            pacer.shouldSignal(false, in: conversation, now: start + .seconds(4)),
            // After a stop, typing again is said at once.
            pacer.shouldSignal(true, in: conversation, now: start + .seconds(4.1)),
        ]
        #expect(said == [false, true, false, true, true, false, true])
    }

    /// My message ends my indication at every receiver: a stop after it says nothing, and
    /// typing again is news at once (no pacing against the start before the message).
    @Test func myMessageEndsTheStartSoAStopAfterItIsNotSaid() {
        var pacer = TypingPacer()
        let other = ConversationID(bytes: [UInt8](repeating: 2, count: 16))!
        let said = [
            pacer.shouldSignal(true, in: conversation, now: start),
            pacer.shouldSignal(true, in: other, now: start),
        ]
        pacer.messageWritten(in: conversation)
        let after = [
            pacer.shouldSignal(false, in: conversation, now: start + .seconds(0.1)),
            pacer.shouldSignal(true, in: conversation, now: start + .seconds(0.2)),
            // Another conversation's start is untouched: its stop is still said.
            pacer.shouldSignal(false, in: other, now: start + .seconds(0.3)),
        ]
        #expect(said == [true, true] && after == [false, true, true])
    }

    /// The node's own pacing lets a client's start through that comes a little early by
    /// the node's clock.
    @Test func theNodeLetsAClientPacedAtThreeSecondsThrough() {
        var client = TypingPacer()
        var node = TypingPacer(interval: TypingPacer.enforcedInterval)
        var passed: [Bool] = []
        for second in stride(from: 0.0, through: 12, by: 0.5) {
            let now = start + .seconds(second)
            // The first request took 200 ms to reach the node, the others 10 ms.
            if client.shouldSignal(true, in: conversation, now: now) {
                passed.append(
                    node.shouldSignal(true, in: conversation, now: now + .milliseconds(second == 0 ? 200 : 10)))
            }
        }
        #expect(passed == [true, true, true, true, true])
    }

    @Test func atMostSixtyFourConversationsAtOnce() {
        var pacer = TypingPacer()
        let all = (0..<TypingPacer.maxConversations).map { n in
            pacer.shouldSignal(
                true, in: ConversationID(bytes: [UInt8](repeating: 9, count: 15) + [UInt8(n)])!, now: start)
        }
        #expect(all.allSatisfy { $0 })
        let full = pacer.shouldSignal(true, in: conversation, now: start + .seconds(1))
        // Starts older than a receiver's timeout ended everywhere: they make room.
        let room = pacer.shouldSignal(true, in: conversation, now: start + .seconds(6))
        #expect(!full && room)
    }
}
