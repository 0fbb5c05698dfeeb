/// Counters of a `SessionService` since it was created, for logs and metrics.
public struct SessionStatistics: Sendable, Equatable {
    /// TCP connections accepted by the listeners (including those then refused).
    public var accepted = 0
    /// Connections closed because a limit was reached (handshakes in all or from one
    /// address when accepted, `maxSessions` when established) or the service was shutting
    /// down.
    public var refused = 0
    /// Sessions with unknown keys closed to make way for a known key at `maxSessions`.
    public var evicted = 0
    /// Connections (either direction) that ended before their handshake completed.
    public var handshakeFailures = 0
    /// Sessions reported open to the delegate.
    public var opened = 0
    /// Sessions closed by the duplicate rule (one per pair of simultaneous sessions).
    public var duplicates = 0
    /// Open sessions that ended because of an error rather than in an orderly way.
    public var failed = 0
    /// Bytes read from and written to every connection, on the wire.
    public var bytesReceived = 0
    public var bytesSent = 0
    /// Protocol messages delivered to the delegate and handed to `send`, on every session:
    /// what the node said and heard, without the keepalive's Pings and Pongs (below this
    /// layer). Bytes alone cannot tell a quiet session's Ping from a re-announced clock.
    public var messagesReceived = 0
    public var messagesSent = 0
    /// The most bytes that ever waited on one connection for the socket to take them.
    public var largestOutboundBacklog = 0
    /// Sessions closed because more than `SessionConfiguration.maxOutboundBacklog` bytes
    /// waited for a peer that was not reading.
    public var backlogClosed = 0

    public init() {}
}
