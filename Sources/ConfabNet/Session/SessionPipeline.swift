import ConfabModel
import NIOCore

/// Assembles a session's pipeline on a new connection.
///
/// From the head: byte counting, the outbound backlog limit, handshake (replaced by
/// box-stream decrypt and encrypt once it is done), message framing in and out, keepalive,
/// file data sent behind everything else, the rate limit when one is set, the inbox limit when one is set, and the session
/// handler. Each has one job; the order is what makes errors from below skip the goodbye
/// and errors from above send it.
enum SessionPipeline {
    /// The socket option `SessionConfiguration.unsentLimit` sets: TCP_NOTSENT_LOWAT (25 in
    /// Linux's netinet/tcp.h).
    static let unsentLimit = ChannelOptions.Types.SocketOption(level: .tcp, name: .init(rawValue: 25))

    enum Role {
        case initiator(remote: NodeID, dialPromise: EventLoopPromise<PeerSession>)
        case responder
    }

    /// Must run on the channel's event loop. Throws (and the caller closes the channel)
    /// when the connection is refused.
    static func install(on channel: any Channel, role: Role, core: SessionCore) throws {
        let configuration = core.configuration
        let id = SessionCore.makeConnectionID()
        let handshakeRole: SecretHandshakeHandler.Role
        let session: SessionHandler
        switch role {
        case .initiator(let remote, let promise):
            handshakeRole = .client(server: remote)
            session = SessionHandler(core: core, connectionID: id, isInitiator: true, dialPromise: promise)
        case .responder:
            handshakeRole = .server
            session = SessionHandler(core: core, connectionID: id, isInitiator: false, dialPromise: nil)
        }
        let origin: SessionCore.Origin
        switch role {
        case .initiator: origin = .dialled
        // Per IP, not per port: a host opens as many ports as it likes.
        case .responder: origin = .accepted(from: channel.remoteAddress?.hostForDialing ?? "unknown")
        }
        try core.admit(
            id: id,
            SessionCore.Connection(channel: channel, handler: NIOLoopBound(session, eventLoop: channel.eventLoop)),
            origin: origin)
        channel.closeFuture.whenComplete { _ in core.release(id: id) }

        var logger = configuration.logger
        logger[metadataKey: "connection"] = "\(id)"
        try channel.syncOptions?.setOption(.writeBufferWaterMark, value: configuration.writeBufferWaterMark)
        try channel.pipeline.syncOperations.addHandlers([
            ByteCountingHandler(core: core),
            OutboundBacklogHandler(limit: configuration.maxOutboundBacklog, core: core),
        ])
        try channel.pipeline.syncOperations.addHandlers([
            SecretHandshakeHandler(
                role: handshakeRole, identity: configuration.identity, networkKey: configuration.networkKey,
                timeout: configuration.handshakeTimeout, firstMessageTimeout: configuration.firstMessageTimeout,
                refusal: { client in
                    configuration.admit(client) ? core.refusal(toEstablishWith: client) : .refused(client)
                }),
            ByteToMessageHandler(SessionMessageDecoder()),
            SessionMessageEncoder(logger: logger),
            KeepaliveHandler(pingInterval: configuration.pingInterval, deadPeerTimeout: configuration.deadPeerTimeout),
            FileDataPacer(
                inFlightLimit: configuration.fileDataInFlight, queueLimit: configuration.maxQueuedFileData),
        ])
        if let limiter = configuration.entryRateLimiter {
            try channel.pipeline.syncOperations.addHandler(EntryRateLimitHandler(limiter: limiter, logger: logger))
        }
        if let inbox = session.inbox {
            try channel.pipeline.syncOperations.addHandler(InboxLimitHandler(inbox: inbox))
        }
        try channel.pipeline.syncOperations.addHandler(session)
    }
}
