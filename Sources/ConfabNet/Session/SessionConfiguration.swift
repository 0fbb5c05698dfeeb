import ConfabCrypto
import ConfabModel
import ConfabWire
import Logging
import NIOCore

/// How a `SessionService` identifies itself and how patient it is with peers.
public struct SessionConfiguration: Sendable {
    /// This node's long-term key: what it proves in every handshake.
    public var identity: SigningKeyPair
    /// The secret handshake's application key; peers with another key cannot connect.
    public var networkKey: NetworkKey
    /// A connection that has not completed the handshake by then is closed. Also bounds
    /// the TCP connect of a dial.
    public var handshakeTimeout: TimeAmount = .seconds(10)
    /// An accepted connection that has not delivered the handshake's message 1 (64 bytes)
    /// by then is closed. A genuine client sends it as soon as it connects, so only a
    /// connection that means to hold a handshake slot without a key waits this long.
    public var firstMessageTimeout: TimeAmount = .seconds(3)
    /// A Ping is sent when nothing was written for this long.
    public var pingInterval: TimeAmount = .seconds(15)
    /// A session is closed when nothing was read for this long. Should be a few times
    /// `pingInterval`, since the peer's Pings are what keep a quiet session alive.
    public var deadPeerTimeout: TimeAmount = .seconds(45)
    /// Established sessions (either direction) beyond this many are refused, unless the
    /// new one is with a known key and a session with an unknown key can make way for it
    /// (`isKnown`). Connections still in their handshake never count here.
    public var maxSessions: Int = 64
    /// Accepted connections still in their handshake beyond this many are closed at once.
    /// They have proved nothing yet, so they get a budget of their own rather than a share
    /// of `maxSessions`.
    public var maxPendingHandshakes: Int = 16
    /// The same, for accepted connections from one IP address, so that one host cannot
    /// take the whole `maxPendingHandshakes` budget.
    public var maxPendingHandshakesPerAddress: Int = 4
    /// This node's own dials under way (connecting or in their handshake) beyond this many
    /// throw at once. Dials never count against the budgets of accepted connections.
    public var maxDials: Int = 16
    /// Whether a key is one this node's person chose (added by hand, verified, sharing a
    /// conversation). When `maxSessions` is reached, a session with a known key closes the
    /// oldest session with an unknown key instead of being refused. Asked only at the limit,
    /// never under a lock, but possibly on an event loop: must be quick.
    public var isKnown: @Sendable (NodeID) -> Bool = { _ in false }
    /// Asked, on an event loop, once an accepting handshake has learnt the client's key:
    /// false refuses it before message 4 (Protocol.md §3.5), so the client never gets a
    /// session. Must be quick and must not block.
    public var admit: @Sendable (NodeID) -> Bool = { _ in true }
    /// When set, every peer's entries are read no faster than its rate (a relay's `--rate`).
    public var entryRateLimiter: EntryRateLimiter?
    /// For a delegate that queues messages and handles them later: a session stops reading
    /// while the messages it delivered that the delegate has not consumed yet
    /// (`PeerSession.consumed`) reach this limit. Nil, for a delegate that handles each
    /// message in its callback, reads on regardless.
    public var inboxLimit: InboxLimit?
    /// With `inboxLimit`: a bound over every session's unconsumed messages together, shared
    /// by the sessions made with this configuration (`InboxPool`).
    public var inboxPool: InboxPool?
    /// A session is closed once more than this many bytes written to it wait for the peer
    /// to take them.
    public var maxOutboundBacklog = 8 << 20
    /// File data (chunks, manifests) written down the pipeline and not yet taken by the
    /// socket; the rest waits behind every other message (Protocol.md §17.5). One chunk of
    /// the default size.
    public var fileDataInFlight = 256 << 10
    /// Bytes the kernel may hold written but unsent on a session's socket
    /// (TCP_NOTSENT_LOWAT). Past it the socket takes no more and the rest waits in the
    /// pipeline, where a message goes ahead of file data; without it the kernel queues
    /// megabytes, and a chat message sent during a transfer waited behind them (15 ms at
    /// p50 on a gigabit link). A LAN's round trip needs far less than this in flight.
    public var unsentLimit = 128 << 10
    /// File data waiting to be sent beyond which the peer, which asked for it and does not
    /// read it, is closed.
    public var maxQueuedFileData = 16 << 20
    /// Replies that can wait (a Pong, an answer to Want) are held back while more than
    /// `high` bytes wait to be written, until fewer than `low` do.
    public var writeBufferWaterMark = ChannelOptions.Types.WriteBufferWaterMark(low: 512 << 10, high: 2 << 20)
    public var logger: Logger

    public init(
        identity: SigningKeyPair, networkKey: NetworkKey, logger: Logger = Logger(label: "confab.net.session")
    ) {
        self.identity = identity
        self.networkKey = networkKey
        self.logger = logger
    }
}
