import ConfabModel
import ConfabWire
import NIOCore

/// One authenticated, encrypted session with another node.
///
/// All methods may be called from any thread. Messages sent from one thread go out in the
/// order they were sent. Sending on a session that has closed does nothing (the delegate
/// has been or will be told it closed).
public final class PeerSession: Sendable, Hashable, CustomStringConvertible {
    /// Unique within this process, for logs and as a dictionary key.
    public let id: UInt64
    /// The peer's key, proven by the handshake.
    public let remote: NodeID
    public let remoteAddress: SocketAddress?
    public let localAddress: SocketAddress?
    /// True if this node dialled the connection.
    public let isInitiator: Bool

    let channel: any Channel
    private let handler: NIOLoopBound<SessionHandler>
    let inbox: SessionInbox?

    init(
        id: UInt64, remote: NodeID, isInitiator: Bool, channel: any Channel, handler: NIOLoopBound<SessionHandler>,
        inbox: SessionInbox? = nil
    ) {
        self.id = id
        self.remote = remote
        self.remoteAddress = channel.remoteAddress
        self.localAddress = channel.localAddress
        self.isInitiator = isInitiator
        self.channel = channel
        self.handler = handler
        self.inbox = inbox
    }

    public func send(_ message: SessionMessage) {
        send([message])
    }

    /// Sends all messages with a single flush, so small ones share box-stream frames.
    public func send(_ messages: [SessionMessage]) {
        onLoop { $0.send(messages) }
    }

    /// Ends the session in order: Bye with `reason` (for the peer's logs), then the
    /// box-stream goodbye, then the TCP close.
    public func close(reason: ByeReason) {
        onLoop { $0.closeGracefully(reason: reason) }
    }

    /// Says that the delegate is done with a message this session delivered, so the session
    /// may read more (`SessionConfiguration.inboxLimit`). Call it once per message, from
    /// any thread; without an inbox limit it does nothing.
    public func consumed(_ message: SessionMessage) {
        inbox?.consumed(message)
    }

    /// False while more is waiting to be written than the write buffer's high-water mark
    /// allows (`SessionConfiguration.writeBufferWaterMark`): replies that can wait should.
    public var isWritable: Bool { channel.isWritable }

    /// Completes once the connection is closed (after `sessionDidClose`, if it was open).
    public var closeFuture: EventLoopFuture<Void> { channel.closeFuture }

    /// Sends a Ping without waiting for the keepalive: a stale connection (the peer
    /// restarted) then fails within a round trip instead of after the dead-peer timeout.
    func probe() {
        onLoop { $0.send([.ping(UInt64.random(in: .min ... .max))]) }
    }

    private func onLoop(_ body: @escaping @Sendable (SessionHandler) -> Void) {
        if channel.eventLoop.inEventLoop {
            body(handler.value)
        } else {
            channel.eventLoop.execute { body(self.handler.value) }
        }
    }

    public var description: String {
        "session \(id) with \(remote.shortHex) (\(isInitiator ? "dialled" : "accepted"), \(remoteAddress.map { "\($0)" } ?? "?"))"
    }

    public static func == (lhs: PeerSession, rhs: PeerSession) -> Bool { lhs === rhs }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(id)
    }
}
