import ConfabCrypto
import ConfabModel
import ConfabNet
import ConfabWire
import Logging
import NIOCore

/// Beacons of a link offer (Protocol.md §20.10): §11 beacons signed by the offer's key B
/// under the code's network key, on the port and to the targets the node's own discovery
/// uses. Only a machine that knows the code reads their tag, so the new machine finds the
/// offer without an address and nobody else learns there is one.
public struct LinkDiscovery: Sendable {
    public var port: Int
    public var targets: DiscoveryConfiguration.Targets

    /// Only what goes wrong: the person is told what matters by the command itself.
    static let logger: Logger = {
        var logger = Logger(label: "confab.link")
        logger.logLevel = .warning
        return logger
    }()

    public init(port: Int = HostPort.defaultDiscoveryPort, targets: DiscoveryConfiguration.Targets = .interfaces) {
        self.port = port
        self.targets = targets
    }

    /// Starts announcing the offer listening on `tcpPort`; the caller stops the service.
    func announce(_ secrets: LinkSecrets, tcpPort: Int, group: any EventLoopGroup) async throws -> DiscoveryService {
        var configuration = DiscoveryConfiguration(
            identity: secrets.offerKey, networkKey: secrets.networkKey, tcpPort: UInt16(tcpPort), targets: targets,
            logger: Self.logger)
        configuration.port = port
        let service = DiscoveryService(configuration: configuration, group: group) { _, _ in }
        try await service.start()
        return service
    }

    /// Where the first beacon of the offer heard within `timeout` says it listens; nil when
    /// none is heard. The new machine only listens: it sends no beacon of its own.
    func find(
        _ secrets: LinkSecrets, device: SigningKeyPair, group: any EventLoopGroup, timeout: Duration
    ) async throws
        -> HostPort?
    {
        var configuration = DiscoveryConfiguration(
            identity: device, networkKey: secrets.networkKey, tcpPort: 1, targets: .fixed([]),
            logger: Self.logger)
        configuration.port = port
        let (found, continuation) = AsyncStream.makeStream(of: HostPort?.self)
        let offer = secrets.offer
        let service = DiscoveryService(configuration: configuration, group: group) { beacon, address in
            guard beacon.node == offer, let host = address.hostForDialing else { return }
            continuation.yield(HostPort(host: host, port: Int(beacon.tcpPort)))
        }
        try await service.start()
        let timer = Task {
            try? await Task.sleep(for: timeout)
            continuation.yield(nil)
        }
        var iterator = found.makeAsyncIterator()
        let first = await iterator.next() ?? nil
        timer.cancel()
        continuation.finish()
        await service.stop()
        return first
    }
}
