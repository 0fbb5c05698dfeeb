import ConfabCrypto
import ConfabModel
import ConfabWire
import NIOConcurrencyHelpers
import NIOCore
import NIOPosix

/// The new machine's side of a link connection (Protocol.md §20.10): a TCP connect, then
/// the client half of the handshake under the code's network key, to the offer's key.
public enum LinkDialer {
    /// Why a connection to an offer did not come up.
    public enum Failure: Error, Equatable {
        /// No TCP connection: nothing listens there, or it cannot be reached.
        case unreachable(String)
        /// Connected, but the handshake did not complete: the offer did not accept the code.
        case handshakeFailed(String)
    }

    public static func connect(
        host: String, port: Int, identity: SigningKeyPair, networkKey: NetworkKey, offer: NodeID,
        group: any EventLoopGroup, timeout: TimeAmount = .seconds(10), maxMessageBytes: Int
    ) async throws(Failure) -> LinkConnection {
        let ready = group.next().makePromise(of: LinkConnection.self)
        // A connect may try several addresses, each with its own channel; the first
        // handshake to finish answers.
        let answered = NIOLockedValueBox(false)
        @Sendable func answer(_ result: Result<LinkConnection, any Error>) {
            let first = answered.withLockedValue { done in
                defer { done = true }
                return !done
            }
            if first { ready.completeWith(result) }
        }
        do {
            _ = try await ClientBootstrap(group: group)
                .connectTimeout(timeout)
                .channelOption(.socketOption(.tcp_nodelay), value: 1)
                .channelInitializer { channel in
                    channel.eventLoop.makeCompletedFuture {
                        try LinkConnection.install(
                            on: channel, role: .client(server: offer), identity: identity, networkKey: networkKey,
                            timeout: timeout, maxMessageBytes: maxMessageBytes
                        ).whenComplete(answer)
                    }
                }
                .connect(host: host, port: port).get()
        } catch {
            answer(.failure(error))
            throw .unreachable(ConnectFailure.describe(error))
        }
        do {
            return try await ready.futureResult.get()
        } catch {
            throw .handshakeFailed("\(error)")
        }
    }
}
