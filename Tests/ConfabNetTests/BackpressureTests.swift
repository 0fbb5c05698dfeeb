import ConfabCrypto
import ConfabModel
import ConfabWire
import NIOCore
import NIOEmbedded
import Testing

@testable import ConfabNet

/// Every queue a peer can fill has a bound: what waits for the node and what waits for the
/// peer.
@Suite("Back-pressure")
struct BackpressureTests {
    /// Counts the reads that reach the head of the pipeline.
    final class ReadCounter: ChannelOutboundHandler {
        typealias OutboundIn = Never
        var reads = 0

        func read(context: ChannelHandlerContext) {
            reads += 1
            context.read()
        }
    }

    func core() -> SessionCore {
        SessionCore(
            configuration: SessionConfiguration(identity: Keys.alice, networkKey: .default, logger: quietLogger()),
            delegate: RecordingDelegate())
    }

    // MARK: What waits for the node

    func gated(_ limit: InboxLimit, pool: InboxPool? = nil) throws -> (EmbeddedChannel, SessionInbox, ReadCounter) {
        let inbox = SessionInbox(limit: limit, pool: pool)
        let counter = ReadCounter()
        let channel = EmbeddedChannel()
        try channel.pipeline.syncOperations.addHandlers([counter, InboxLimitHandler(inbox: inbox)])
        try channel.activate()
        return (channel, inbox, counter)
    }

    @Test func readingStopsAtTheInboxLimitAndResumesOnceTheNodeCatchesUp() throws {
        let (channel, inbox, counter) = try gated(InboxLimit(messages: 4, bytes: 1 << 20))
        let message = SessionMessage.want(
            .init(conversation: ConversationID(bytes: [UInt8](repeating: 1, count: 16))!, author: Keys.bob.id, after: 0)
        )
        for _ in 0..<3 { inbox.delivered(message) }
        channel.read()
        #expect(counter.reads == 1, "under the limit, reading goes on")
        inbox.delivered(message)
        channel.read()
        channel.read()
        #expect(counter.reads == 1, "a read went through with 4 messages unconsumed")
        inbox.consumed(message)
        channel.embeddedEventLoop.run()
        // One read, for the reads withheld: NIO asks again after it.
        #expect(counter.reads == 2)
        channel.embeddedEventLoop.run()
        #expect(counter.reads == 2)
    }

    @Test func readingStopsAtTheInboxLimitInBytesForFewMessages() throws {
        let (channel, inbox, counter) = try gated(InboxLimit(messages: 64, bytes: 1 << 20))
        inbox.delivered(large)
        inbox.delivered(large)
        channel.read()
        #expect(counter.reads == 0, "a read went through with 1 MB unconsumed")
        inbox.consumed(large)
        channel.embeddedEventLoop.run()
        #expect(counter.reads == 1)
    }

    @Test func aClosedSessionDropsItsHeldRead() throws {
        let (channel, inbox, counter) = try gated(InboxLimit(messages: 1, bytes: 1 << 20))
        inbox.delivered(.ping(1))
        channel.read()
        try channel.close().wait()
        inbox.consumed(.ping(1))
        channel.embeddedEventLoop.run()
        #expect(counter.reads == 0)
    }

    /// About 540 KB: an Entries message of nine 60 KB entries.
    let large = SessionMessage.entries(Array(repeating: [UInt8](repeating: 7, count: 60_000), count: 9))

    @Test func sessionsSharingAPoolStopReadingAtTheNodesBoundAndAllResumeBelowIt() throws {
        let pool = InboxPool(bytes: 1 << 20)
        let (a, aInbox, aReads) = try gated(InboxLimit(messages: 64, bytes: 1 << 20), pool: pool)
        let (b, bInbox, bReads) = try gated(InboxLimit(messages: 64, bytes: 1 << 20), pool: pool)
        let (c, _, cReads) = try gated(InboxLimit(messages: 64, bytes: 1 << 20), pool: pool)
        aInbox.delivered(large)
        a.read()
        #expect(aReads.reads == 1, "each under its own limit and the node's")
        bInbox.delivered(large)
        for channel in [a, b, c] { channel.read() }
        #expect(aReads.reads == 1 && bReads.reads == 0 && cReads.reads == 0, "the node's total is over 1 MiB")
        #expect(pool.waiters == 3)
        // C delivered nothing, and still waits: the bound is the node's, not each session's.
        aInbox.consumed(large)
        for channel in [a, b, c] { channel.embeddedEventLoop.run() }
        #expect(aReads.reads == 2 && bReads.reads == 1 && cReads.reads == 1)
        #expect(pool.bytes == bInbox.outstanding.bytes && pool.waiters == 0)
    }

    @Test func aMessageReportedTwiceTakesNothingFromTheOtherSessionsShare() throws {
        let pool = InboxPool(bytes: 1 << 20)
        let (_, aInbox, _) = try gated(InboxLimit(messages: 64, bytes: 4 << 20), pool: pool)
        let (_, bInbox, _) = try gated(InboxLimit(messages: 64, bytes: 4 << 20), pool: pool)
        aInbox.delivered(.ping(1))
        bInbox.delivered(large)
        bInbox.delivered(large)
        aInbox.consumed(.ping(1))
        aInbox.consumed(large)
        aInbox.consumed(large)
        #expect(pool.bytes == bInbox.outstanding.bytes && pool.bytes > 1 << 20)
    }

    @Test func aClosedSessionLeavesNothingWaitingOnThePool() throws {
        let pool = InboxPool(bytes: 1 << 20)
        let (_, aInbox, _) = try gated(InboxLimit(messages: 64, bytes: 4 << 20), pool: pool)
        let (b, _, bReads) = try gated(InboxLimit(messages: 64, bytes: 4 << 20), pool: pool)
        aInbox.delivered(large)
        aInbox.delivered(large)
        b.read()
        #expect(pool.waiters == 1)
        try b.close().wait()
        b.embeddedEventLoop.run()
        #expect(pool.waiters == 0)
        aInbox.consumed(large)
        b.embeddedEventLoop.run()
        #expect(bReads.reads == 0)
    }

    // MARK: What waits for the peer

    func backlogged(limit: Int) throws -> (EmbeddedChannel, SessionCore, MessageTail) {
        let core = core()
        let tail = MessageTail()
        let channel = EmbeddedChannel()
        try channel.pipeline.syncOperations.addHandlers([OutboundBacklogHandler(limit: limit, core: core), tail])
        try channel.activate()
        return (channel, core, tail)
    }

    @Test func aSessionWhoseWritesPassTheBacklogLimitIsClosed() throws {
        let (channel, core, tail) = try backlogged(limit: 1000)
        // Nothing flushed: nothing taken by the "socket", as when the peer reads nothing.
        channel.write(ByteBuffer(repeating: 1, count: 400), promise: nil)
        channel.write(ByteBuffer(repeating: 1, count: 400), promise: nil)
        #expect(channel.isActive)
        channel.write(ByteBuffer(repeating: 1, count: 400), promise: nil)
        #expect(!channel.isActive)
        #expect(tail.errors.map { $0 as? SessionError } == [.outboundBacklog(1200, limit: 1000)])
        #expect(core.statistics.backlogClosed == 1)
        #expect(core.statistics.largestOutboundBacklog == 1200)
    }

    @Test func writesTheSocketTakesDoNotCount() throws {
        let (channel, core, tail) = try backlogged(limit: 1000)
        for _ in 0..<20 {
            channel.writeAndFlush(ByteBuffer(repeating: 1, count: 400), promise: nil)
            _ = try channel.drainOutbound()
        }
        #expect(channel.isActive)
        #expect(tail.errors.isEmpty)
        #expect(core.statistics.largestOutboundBacklog == 400)
    }
}
