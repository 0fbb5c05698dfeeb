import ConfabModel
import ConfabWire
import Foundation
import NIOConcurrencyHelpers
import NIOCore
import NIOPosix

#if canImport(Glibc)
import Glibc
#endif

/// A socket on a test's discovery port, bound as the nodes bind theirs (0.0.0.0, shared
/// with SO_REUSEPORT), so it hears the beacons sent to 127.255.255.255 as every node on the
/// port does: anyone on the LAN can listen like this. It never sends.
final class BeaconTap: Sendable {
    private let channel: any Channel
    private let heard: NIOLockedValueBox<[(node: NodeID, bytes: [UInt8])]>

    private init(channel: any Channel, heard: NIOLockedValueBox<[(node: NodeID, bytes: [UInt8])]>) {
        self.channel = channel
        self.heard = heard
    }

    static func listen(port: Int, networkKey: NetworkKey = .default) async throws -> BeaconTap {
        let heard = NIOLockedValueBox<[(node: NodeID, bytes: [UInt8])]>([])
        let channel = try await DatagramBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .channelOption(.socketOption(.so_reuseaddr), value: 1)
            .channelOption(.socketOption(NIOBSDSocket.Option(rawValue: SO_REUSEPORT)), value: 1)
            .channelInitializer { $0.pipeline.addHandler(Recorder(heard, networkKey: networkKey)) }
            .bind(host: "0.0.0.0", port: port).get()
        return BeaconTap(channel: channel, heard: heard)
    }

    /// The datagrams of `node`'s beacons heard so far, oldest first.
    func beacons(from node: NodeID) -> [[UInt8]] {
        heard.withLockedValue { $0.filter { $0.node == node }.map(\.bytes) }
    }

    func close() async { try? await channel.close() }

    private final class Recorder: ChannelInboundHandler, Sendable {
        typealias InboundIn = AddressedEnvelope<ByteBuffer>
        let heard: NIOLockedValueBox<[(node: NodeID, bytes: [UInt8])]>
        let networkKey: NetworkKey

        init(_ heard: NIOLockedValueBox<[(node: NodeID, bytes: [UInt8])]>, networkKey: NetworkKey) {
            self.heard = heard
            self.networkKey = networkKey
        }

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            var envelope = Self.unwrapInboundIn(data)
            let bytes = envelope.data.readBytes(length: envelope.data.readableBytes) ?? []
            guard let beacon = (try? BeaconCodec.decode(bytes, networkKey: networkKey)) ?? nil else { return }
            heard.withLockedValue {
                // A few minutes of a handful of nodes at most: enough for any test.
                if $0.count < 10_000 { $0.append((beacon.node, bytes)) }
            }
        }
    }
}
