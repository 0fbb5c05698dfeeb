import ConfabClient
import ConfabCrypto
import ConfabModel
import ConfabNet
import ConfabTestSupport
import ConfabWire
import Foundation
import Logging
import NIOCore
import NIOPosix
import Testing

@testable import ConfabNode

#if canImport(Glibc)
import Glibc
#endif

/// The doctor's I/O on loopback only: the handshake probe against real session listeners,
/// and whole runs with beacons sent to 127.255.255.255 on a port the OS gave out, which the
/// test holds while it runs.
@Suite("Doctor: on loopback") struct DoctorLoopbackTests {
    static let group = MultiThreadedEventLoopGroup.singleton

    final class Silent: SessionDelegate {
        func sessionDidOpen(_ session: PeerSession) {}
        func session(_ session: PeerSession, didReceive message: SessionMessage) {}
        func sessionDidClose(_ session: PeerSession, error: (any Error)?) {}
    }

    /// A session listener on 127.0.0.1 with its own key and network.
    static func listener(
        _ identity: SigningKeyPair, network: NetworkKey = .default
    ) async throws -> (
        SessionService, Int
    ) {
        var logger = Logger(label: "doctor.test")
        logger.logLevel = .critical
        let service = SessionService(
            configuration: SessionConfiguration(identity: identity, networkKey: network, logger: logger), group: group,
            delegate: Silent())
        let address = try await service.listen(host: "127.0.0.1", port: 0)
        return (service, address.port!)
    }

    /// Passes on every datagram that reaches its socket.
    final class Ear: ChannelInboundHandler, Sendable {
        typealias InboundIn = AddressedEnvelope<ByteBuffer>
        let heard: AsyncStream<[UInt8]>.Continuation

        init(_ heard: AsyncStream<[UInt8]>.Continuation) { self.heard = heard }

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            heard.yield(Array(Self.unwrapInboundIn(data).data.readableBytesView))
        }
    }

    /// A socket on `port` bound as the doctor and the nodes bind theirs (0.0.0.0, shared with
    /// SO_REUSEPORT), so it hears every beacon sent to 127.255.255.255 there, as they do.
    static func listen(port: Int) async throws -> (any Channel, AsyncStream<[UInt8]>) {
        let (heard, ear) = AsyncStream.makeStream(of: [UInt8].self)
        let channel = try await DatagramBootstrap(group: group)
            .channelOption(.socketOption(.so_reuseaddr), value: 1)
            .channelOption(.socketOption(NIOBSDSocket.Option(rawValue: SO_REUSEPORT)), value: 1)
            .channelInitializer { $0.pipeline.addHandler(Ear(ear)) }
            .bind(host: "0.0.0.0", port: port).get()
        channel.closeFuture.whenComplete { _ in ear.finish() }
        return (channel, heard)
    }

    static func probe(timeout: TimeAmount = .seconds(2)) -> HandshakeProbe {
        HandshakeProbe(identity: .generate(), networkKey: .default, timeout: timeout, group: group)
    }

    // MARK: The handshake probe

    @Test func aPeerOfThisNetworkCompletesTheHandshake() async throws {
        let bob = SigningKeyPair.generate()
        let (service, port) = try await Self.listener(bob)
        let outcome = await Self.probe().probe(host: "127.0.0.1", port: port, remote: NodeID(bob.publicKey))
        await service.shutdown()
        #expect(outcome.result == .ok)
        #expect(outcome.milliseconds != nil)
    }

    @Test func aPeerOfAnotherNetworkClosesAfterOurFirstMessage() async throws {
        let bob = SigningKeyPair.generate()
        let (service, port) = try await Self.listener(bob, network: .random())
        let outcome = await Self.probe().probe(host: "127.0.0.1", port: port, remote: NodeID(bob.publicKey))
        await service.shutdown()
        #expect(outcome.result == .handshakeFailed)
        #expect(outcome.failure == .otherNetwork)
    }

    @Test func anotherKeyAtTheAddressFailsAfterOurKeyProof() async throws {
        let carol = SigningKeyPair.generate()
        let (service, port) = try await Self.listener(carol)
        let bob = NodeID(SigningKeyPair.generate().publicKey)
        let outcome = await Self.probe().probe(host: "127.0.0.1", port: port, remote: bob)
        await service.shutdown()
        #expect(outcome.result == .handshakeFailed)
        #expect(outcome.failure == .otherKey)
    }

    @Test func nothingListeningIsRefused() async throws {
        let closed = try RefusingPort()
        defer { withExtendedLifetime(closed) {} }
        let outcome = await Self.probe().probe(
            host: "127.0.0.1", port: closed.number, remote: NodeID(SigningKeyPair.generate().publicKey))
        #expect(outcome.result == .refused)
        #expect(outcome.detail == "Connection refused")
    }

    @Test func aListenerThatNeverAnswersTimesOut() async throws {
        let mute = try await ServerBootstrap(group: Self.group).bind(host: "127.0.0.1", port: 0).get()
        let outcome = await Self.probe(timeout: .milliseconds(300)).probe(
            host: "127.0.0.1", port: mute.localAddress!.port!, remote: NodeID(SigningKeyPair.generate().publicKey))
        try await mute.close()
        #expect(outcome.result == .handshakeFailed)
        #expect(outcome.failure == .noAnswer)
    }

    // MARK: Whole runs

    static func profile(_ root: URL, _ name: String) throws -> Profile {
        try Profile.initialize(DataDirectory(url: root.appendingPathComponent(name)), name: name)
    }

    static func options(port: Int, seconds: Double, peers: [String] = []) -> DoctorOptions {
        var options = DoctorOptions(network: NetworkKeySetting(key: .default, source: .default))
        options.listenHost = "127.0.0.1"
        options.listenPort = 0
        options.discoveryPort = port
        options.beaconTargets = ["127.255.255.255:\(port)"]
        options.staticPeers = peers
        options.seconds = seconds
        return options
    }

    @Test func aloneTheDoctorHearsItsOwnBeaconAndNobodyElse() async throws {
        let root = try ConfabBinary.temporaryDirectory("confab-doctor")
        defer { try? FileManager.default.removeItem(at: root) }
        let alice = try Self.profile(root, "alice")
        let discovery = try DiscoveryPort()
        defer { withExtendedLifetime(discovery) {} }
        let report = try await Doctor.run(profile: alice, options: Self.options(port: discovery.number, seconds: 0.5))
        #expect(!report.ok)
        #expect(report.facts.echoes.map(\.received) == [true])
        #expect(report.facts.ports.filter { $0.proto == "udp" }.first?.state == .free)
        #expect(report.facts.beacons.mode == "fixed")
        #expect(report.findings.contains(.echoOK(targets: 1)))
        #expect(
            report.findings.contains {
                guard case .nothingHeard(.unexplained(_, let port, _, _, let aPeerWorks)) = $0 else { return false }
                return port == discovery.number && !aPeerWorks
            })
    }

    @Test func portsHeldByOtherProgramsAreFoundAndNamed() async throws {
        let root = try ConfabBinary.temporaryDirectory("confab-doctor")
        defer { try? FileManager.default.removeItem(at: root) }
        let alice = try Self.profile(root, "alice")
        // Sockets without SO_REUSEPORT, as another program would hold them.
        let udp = try await DatagramBootstrap(group: Self.group).bind(host: "0.0.0.0", port: 0).get()
        let tcp = try await ServerBootstrap(group: Self.group).bind(host: "127.0.0.1", port: 0).get()
        let udpPort = udp.localAddress!.port!
        var options = Self.options(port: udpPort, seconds: 0.2)
        options.listenPort = tcp.localAddress!.port!
        let report = try await Doctor.run(profile: alice, options: options)
        try await udp.close()
        try await tcp.close()
        let v4 = report.facts.ports.first { $0.proto == "udp" && $0.address.hasPrefix("0.0.0.0") }
        #expect(v4?.state == .inUse)
        #expect(v4?.error == "Address already in use")
        #expect(report.facts.ports.last?.state == .inUse)
        let udpInUse = try #require(
            report.findings.lazy.compactMap { finding -> DoctorFinding.BlockedPort? in
                guard case .portInUse(let blocked) = finding, blocked.proto == .udp else { return nil }
                return blocked
            }.first)
        #expect(udpInUse.port == udpPort)
        #expect(udpInUse.addresses.first == "0.0.0.0:\(udpPort)")
        #expect(udpInUse.reason == "Address already in use")
        #expect(
            DoctorFinding.portInUse(udpInUse).advice.first
                == "See which program holds it: ss -lunp 'sport = :\(udpPort)'")
        let tcpPort = options.listenPort
        #expect(
            report.findings.contains(
                .portInUse(
                    .init(
                        proto: .tcp, port: tcpPort, addresses: ["127.0.0.1:\(tcpPort)"],
                        reason: "Address already in use")
                )))
        // With no socket of its own family, the beacon could not even be sent.
        #expect(report.facts.echoes.first?.sent == false)
    }

    @Test func aNodeBeaconingOnTheSamePortIsHeardAndProbed() async throws {
        let root = try ConfabBinary.temporaryDirectory("confab-doctor")
        defer { try? FileManager.default.removeItem(at: root) }
        let discovery = try DiscoveryPort()
        defer { withExtendedLifetime(discovery) {} }
        let port = discovery.number
        var options = NodeOptions(directory: DataDirectory(url: root.appendingPathComponent("bob")))
        options.listenHost = "127.0.0.1"
        options.listenPort = 0
        options.discoveryPort = port
        options.beaconTargets = ["127.255.255.255:\(port)"]
        options.logger.logLevel = .critical
        let bob = try Node(options: options, local: try Profile.initialize(options.directory, name: "bob"))
        let bobAddress = try await bob.start()
        let alice = try Self.profile(root, "alice")
        _ = try alice.store.notePeerSeen(bob.me, suggestedName: "bob", address: "127.0.0.1:\(bobAddress.port!)")
        // Another network's node on the same port, beaconing once.
        let carol = SigningKeyPair.generate()
        let other = try await DatagramBootstrap(group: Self.group)
            .channelOption(.socketOption(.so_broadcast), value: 1).bind(host: "127.0.0.1", port: 0).get()
        let carolBeacon = BeaconCodec.encode(
            Beacon(node: NodeID(carol.publicKey), tcpPort: 7461, role: .person, timestamp: 1), signedBy: carol,
            networkKey: .random())
        let (ear, heard) = try await Self.listen(port: port)
        async let report = Doctor.run(profile: alice, options: Self.options(port: port, seconds: 2))
        // The doctor sends its own beacon once its socket on the port is bound: once that
        // beacon is heard here, the doctor hears carol's too.
        let giveUp = Task {
            try await Task.sleep(for: .seconds(10))
            try? await ear.close()
        }
        var doctorListens = false
        for await datagram in heard where (try? BeaconCodec.decode(datagram, networkKey: .default))?.node == alice.me {
            doctorListens = true
            break
        }
        giveUp.cancel()
        try? await ear.close()
        #expect(doctorListens, "the doctor's own beacon was not heard within 10 s")
        try await other.writeAndFlush(
            AddressedEnvelope(
                remoteAddress: try SocketAddress(ipAddress: "127.255.255.255", port: port),
                data: other.allocator.buffer(bytes: carolBeacon))
        ).get()
        let result = try await report
        try await other.close()
        await bob.stop()
        #expect(result.ok)
        #expect(result.facts.heard.nodes.map(\.id) == [bob.me.hex])
        #expect(result.facts.heard.nodes.first?.name == "bob")
        #expect(result.facts.heard.otherNetworks.map(\.id) == [NodeID(carol.publicKey).hex])
        #expect(result.facts.peers.map(\.result) == [.ok])
        #expect(
            result.findings.contains {
                guard case .otherNetwork(let nodes, _, let aPeerWorks) = $0 else { return false }
                return nodes.map(\.id) == [NodeID(carol.publicKey).hex] && aPeerWorks
            })
        #expect(result.elapsed < 4)
    }
}
