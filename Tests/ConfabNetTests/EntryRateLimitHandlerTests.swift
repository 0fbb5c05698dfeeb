import ConfabWire
import NIOCore
import NIOEmbedded
import Testing

@testable import ConfabNet

@Suite("EntryRateLimitHandler")
struct EntryRateLimitHandlerTests {
    /// Counts the reads that reach the head of the pipeline.
    final class ReadCounter: ChannelOutboundHandler {
        typealias OutboundIn = Never
        var reads = 0

        func read(context: ChannelHandlerContext) {
            reads += 1
            context.read()
        }
    }

    func channel(_ limiter: EntryRateLimiter) throws -> (EmbeddedChannel, MessageTail, ReadCounter) {
        let tail = MessageTail()
        let counter = ReadCounter()
        let channel = EmbeddedChannel()
        try channel.pipeline.syncOperations.addHandlers([
            counter, EntryRateLimitHandler(limiter: limiter, logger: .init(label: "test")), tail,
        ])
        try channel.activate()
        channel.pipeline.fireUserInboundEventTriggered(SecretHandshakeCompleted(remote: Keys.bob.id))
        return (channel, tail, counter)
    }

    func entries(_ count: Int) -> SessionMessage { .entries(Array(repeating: [1, 2, 3], count: count)) }

    func entryCounts(_ tail: MessageTail) -> [Int] {
        tail.messages.map { message in
            if case .entries(let list) = message { return list.count }
            return 0
        }
    }

    @Test func withinTheBurstEverythingPassesAtOnce() throws {
        let (channel, tail, _) = try channel(EntryRateLimiter(entriesPerSecond: 10, burst: 100))
        for _ in 0..<4 { try channel.writeInbound(entries(25)) }
        #expect(entryCounts(tail) == [25, 25, 25, 25])
    }

    @Test func overTheRateMessagesWaitInOrderUntilTheDebtIsPaid() throws {
        let (channel, tail, _) = try channel(EntryRateLimiter(entriesPerSecond: 10, burst: 10))
        // The first message goes on whole and leaves a debt of 20 entries: 2 s.
        try channel.writeInbound(entries(30))
        try channel.writeInbound(entries(5))
        try channel.writeInbound(SessionMessage.clocks([]))
        #expect(entryCounts(tail) == [30])
        channel.embeddedEventLoop.advanceTime(by: .milliseconds(1999))
        #expect(entryCounts(tail) == [30])
        channel.embeddedEventLoop.advanceTime(by: .milliseconds(1))
        // The Clocks behind the entries never overtakes them.
        #expect(entryCounts(tail) == [30, 5, 0])
        guard case .clocks = tail.messages.last else {
            Issue.record("expected the clocks last, got \(tail.messages)")
            return
        }
    }

    @Test func aPeersBucketIsSharedByItsSessions() throws {
        let limiter = EntryRateLimiter(entriesPerSecond: 10, burst: 10)
        let (first, firstTail, _) = try channel(limiter)
        try first.writeInbound(entries(50))
        #expect(entryCounts(firstTail) == [50])
        // Reconnecting does not refill the bucket.
        let (second, secondTail, _) = try channel(limiter)
        try second.writeInbound(entries(1))
        #expect(secondTail.messages.isEmpty)
        #expect(limiter.pauseCount >= 1)
    }

    @Test func readsStopWhileTooManyEntriesWaitAndResumeOnceTheyGoOn() throws {
        let (channel, tail, counter) = try channel(EntryRateLimiter(entriesPerSecond: 1000, burst: 1000))
        try channel.writeInbound(entries(2000))  // debt: 1000 entries, 1 s
        for _ in 0..<5 { try channel.writeInbound(entries(1000)) }
        let before = counter.reads
        channel.pipeline.read()
        #expect(counter.reads == before, "a read went through while 5000 entries were held")
        // Each second pays for one more message; once fewer than the limit wait, reading resumes.
        channel.embeddedEventLoop.advanceTime(by: .seconds(2))
        #expect(entryCounts(tail).count >= 2)
        #expect(counter.reads == before + 1)
    }

    @Test func readsStopWhileTooManyBytesWaitEvenForFewEntries() throws {
        let (channel, _, counter) = try channel(EntryRateLimiter(entriesPerSecond: 1, burst: 1))
        let large = SessionMessage.entries(Array(repeating: [UInt8](repeating: 7, count: 60_000), count: 8))
        try channel.writeInbound(large)  // passes, leaving a debt
        for _ in 0..<9 { try channel.writeInbound(large) }  // 72 entries, 4.3 MB held
        let before = counter.reads
        channel.pipeline.read()
        #expect(counter.reads == before)
    }

    @Test func readsStopWhileManyMessagesOfOtherKindsWait() throws {
        let (channel, tail, counter) = try channel(EntryRateLimiter(entriesPerSecond: 1, burst: 1))
        try channel.writeInbound(entries(2))  // passes, leaving a debt
        try channel.writeInbound(entries(1))  // waits
        // No entries at all, but each waits behind that one all the same.
        for _ in 0..<1100 { try channel.writeInbound(SessionMessage.clocks([])) }
        #expect(tail.messages.count == 1)
        let before = counter.reads
        channel.pipeline.read()
        #expect(counter.reads == before, "a read went through while 1100 Clocks were held")
    }

    @Test func readsStopWhileLargeMessagesOfOtherKindsWait() throws {
        let (channel, _, counter) = try channel(EntryRateLimiter(entriesPerSecond: 1, burst: 1))
        try channel.writeInbound(entries(2))
        try channel.writeInbound(entries(1))
        let proof = SessionMessage.forkProof(
            first: [UInt8](repeating: 1, count: 65_536), second: [UInt8](repeating: 2, count: 65_536))
        for _ in 0..<40 { try channel.writeInbound(proof) }  // 5 MB held, not one entry
        let before = counter.reads
        channel.pipeline.read()
        #expect(counter.reads == before)
    }

    @Test func theBucketRefillsAtItsRateUpToTheBurst() {
        var bucket = TokenBucket(rate: 100, burst: 50, now: .uptimeNanoseconds(0))
        #expect(bucket.take(50, now: .uptimeNanoseconds(0)) == .zero)
        #expect(bucket.take(10, now: .uptimeNanoseconds(0)) == .milliseconds(100))
        // 1 s later: +100 tokens, capped at the burst of 50.
        #expect(bucket.isFull(now: .uptimeNanoseconds(1_000_000_000)))
        #expect(bucket.take(60, now: .uptimeNanoseconds(1_000_000_000)) == .milliseconds(100))
    }
}
