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
    /// A Ping is sent when nothing was written for this long.
    public var pingInterval: TimeAmount = .seconds(15)
    /// A session is closed when nothing was read for this long. Should be a few times
    /// `pingInterval`, since the peer's Pings are what keep a quiet session alive.
    public var deadPeerTimeout: TimeAmount = .seconds(45)
    /// Connections beyond this many (in handshake or established, either direction) are
    /// refused: accepted ones are closed at once, dials throw.
    public var maxSessions: Int = 64
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
    /// A session is closed once more than this many bytes written to it wait for the peer
    /// to take them.
    public var maxOutboundBacklog = 8 << 20
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
