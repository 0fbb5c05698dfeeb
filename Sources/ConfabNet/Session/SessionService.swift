import ConfabModel
import ConfabWire
import Logging
import NIOCore
import NIOPosix

/// Accepts and dials secret-handshake sessions, keeps one per peer, and reports them to a
/// delegate (Protocol.md §3 and §10).
///
/// The service holds its delegate strongly until `shutdown()` has finished.
public final class SessionService: Sendable {
    let core: SessionCore
    private let group: any EventLoopGroup

    public init(configuration: SessionConfiguration, group: any EventLoopGroup, delegate: any SessionDelegate) {
        self.core = SessionCore(configuration: configuration, delegate: delegate)
        self.group = group
    }

    /// This node's key, as peers see it.
    public var localNode: NodeID { core.localNode }

    /// An IP literal as it is (resolving "::" fails on a host whose interfaces have no IPv6
    /// address, though the socket itself works); anything else through the resolver.
    private static func address(host: String, port: Int) throws -> SocketAddress {
        if let address = try? SocketAddress(ipAddress: host, port: port) { return address }
        return try SocketAddress.makeAddressResolvingHost(host, port: port)
    }

    /// Listens for sessions; port 0 picks a free port. Returns the address actually bound.
    public func listen(host: String, port: Int) async throws -> SocketAddress {
        let core = self.core
        let channel = try await ServerBootstrap(group: group)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelOption(.socketOption(.tcp_nodelay), value: 1)
            .childChannelOption(SessionPipeline.unsentLimit, value: SocketOptionValue(core.configuration.unsentLimit))
            .childChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    do {
                        try SessionPipeline.install(on: channel, role: .responder, core: core)
                    } catch {
                        core.configuration.logger.info(
                            "refusing connection",
                            metadata: ["peer": "\(channel.remoteAddress.map { "\($0)" } ?? "?")", "reason": "\(error)"])
                        throw error
                    }
                }
            }
            .bind(to: Self.address(host: host, port: port)).get()
        do {
            try core.addListener(channel)
        } catch {
            try? await channel.close()
            throw error
        }
        guard let address = channel.localAddress else {
            try? await channel.close()
            throw ChannelError.unknownLocalAddress
        }
        core.configuration.logger.info("listening", metadata: ["address": "\(address)"])
        return address
    }

    /// Opens a session with `remote` at `host:port`. The handshake fails unless the node
    /// there holds `remote`'s key and our network key.
    ///
    /// If a session with `remote` is already kept, it is returned without dialling; a dial
    /// already under way is joined. If that dial was to another address and fails, this one
    /// is tried after it: a peer known at a dead address and a live one (a laptop that moved
    /// from Ethernet to Wi-Fi) is reached at the live one whichever dial starts first. If
    /// the new connection loses the duplicate rule to a session the peer dialled at the same
    /// moment, that session is returned.
    public func dial(host: String, port: Int, remote: NodeID) async throws -> PeerSession {
        let core = self.core
        guard remote != core.localNode else { throw SessionError.connectedToSelf }
        // Each turn waits for a dial to end, so a few are plenty; the last one takes what
        // the dial it joins gives, rather than follow dials that keep starting elsewhere.
        var turns = 0
        while true {
            turns += 1
            switch try core.beginDial(to: remote, at: "\(host):\(port)", on: group.next()) {
            case .existing(let session):
                return session
            case .joined(let future, let elsewhere):
                guard elsewhere, turns < 3 else { return try await future.get() }
                if let session = try? await future.get() { return session }
            case .started(let promise):
                return try await connect(host: host, port: port, remote: remote, promise: promise)
            }
        }
    }

    private func connect(
        host: String, port: Int, remote: NodeID, promise: EventLoopPromise<PeerSession>
    ) async throws -> PeerSession {
        let core = self.core
        promise.futureResult.whenComplete { _ in core.endDial(to: remote, promise.futureResult) }
        let eventLoop = promise.futureResult.eventLoop
        // Connecting to one resolved address (not NIO's happy-eyeballs connect to a host
        // name) keeps every step of the dial on a channel admitted before its connect starts,
        // which shutdown closes: a connect still resolving when the event loops stop would
        // leave a promise behind (a crash in a debug build).
        let connected: EventLoopFuture<any Channel>
        do {
            let address = try await Self.dialAddress(host: host, port: port)
            connected = ClientBootstrap(group: eventLoop)
                .connectTimeout(core.configuration.handshakeTimeout)
                .channelOption(.socketOption(.tcp_nodelay), value: 1)
                .channelOption(SessionPipeline.unsentLimit, value: SocketOptionValue(core.configuration.unsentLimit))
                .channelInitializer { channel in
                    channel.eventLoop.makeCompletedFuture {
                        try SessionPipeline.install(
                            on: channel, role: .initiator(remote: remote, dialPromise: promise), core: core)
                    }
                }
                .connect(to: address)
        } catch {
            connected = eventLoop.makeFailedFuture(error)
        }
        connected.whenFailure { error in
            core.configuration.logger.info(
                "could not connect to \(host):\(port): \(ConnectFailure.describe(error))")
            promise.fail(error)
        }
        return try await promise.futureResult.get()
    }

    /// An IP literal as it is; a host name (a static peer's) through the system resolver, on
    /// NIO's blocking pool so that no event loop waits for DNS.
    private static func dialAddress(host: String, port: Int) async throws -> SocketAddress {
        if let address = try? SocketAddress(ipAddress: host, port: port) { return address }
        return try await NIOThreadPool.singleton.runIfActive {
            try SocketAddress.makeAddressResolvingHost(host, port: port)
        }
    }

    /// The sessions currently kept, one per peer.
    public var sessions: [PeerSession] { core.sessions }

    public func session(with node: NodeID) -> PeerSession? { core.session(with: node) }

    public var statistics: SessionStatistics { core.statistics }

    /// Closes the listeners, ends every session with Bye and goodbye (and every connection
    /// still in its handshake without a word), and waits until all are closed and every
    /// dial under way has ended.
    public func shutdown() async {
        let (listeners, connections, dials) = core.beginShutdown()
        for listener in listeners {
            try? await listener.close()
        }
        for connection in connections {
            let handler = connection.handler
            connection.channel.eventLoop.execute {
                handler.value.closeGracefully(reason: .shutdown)
            }
        }
        for connection in connections {
            try? await connection.channel.closeFuture.get()
        }
        // A dial whose channel did not exist yet when the connections were closed is
        // refused its admission now, and ends at once.
        for dial in dials {
            _ = try? await dial.get()
        }
        core.finishShutdown()
    }
}
