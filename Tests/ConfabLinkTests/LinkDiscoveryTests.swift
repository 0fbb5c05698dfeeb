import ConfabClient
import ConfabModel
import ConfabNet
import ConfabNode
import ConfabTestSupport
import ConfabWire
import Foundation
import NIOCore
import NIOPosix
import Testing

/// Finding an offer by its beacons (Protocol.md §20.10), on the loopback broadcast address
/// only: the new machine that knows the code hears where the offer listens and links; one
/// with another code hears nothing, the beacons' tag being the code's.
@Suite struct LinkDiscoveryTests {
    @Test func theNewMachineFindsTheOfferByItsBeacons() async throws {
        let port = try DiscoveryPort()
        defer { withExtendedLifetime(port) {} }
        let code = LinkCode.generate()
        let directory = DataDirectory(url: try ConfabBinary.temporaryDirectory("link-offer"))
        let profile = try Profile.initialize(directory, name: "alice")
        let offer = try LinkOffer(profile: profile, networkKey: .default, code: code)
        let (events, continuation) = AsyncStream.makeStream(of: LinkOffer.Event.self)
        let beacons = LinkDiscovery(
            port: port.number, targets: .fixed([try SocketAddress(ipAddress: "127.255.255.255", port: port.number)]))
        let running = Task {
            try await offer.run(
                host: "127.0.0.1", timeout: .seconds(60), discovery: beacons,
                group: MultiThreadedEventLoopGroup.singleton, events: { continuation.yield($0) }, confirm: { _ in true }
            )
        }
        var iterator = events.makeAsyncIterator()
        guard case .listening(let tcpPort)? = await iterator.next() else {
            Issue.record("the offer did not listen")
            return
        }
        let listening = LinkDiscovery(port: port.number, targets: .fixed([]))
        let join = try LinkJoin(code: code, deviceName: "laptop")
        let found = try await join.find(discovery: listening, group: MultiThreadedEventLoopGroup.singleton)
        #expect(found.port == tcpPort)

        let stranger = try LinkJoin(code: LinkAttemptTests.wrong(code), deviceName: "laptop")
        let unheard = await #expect(throws: LinkFailure.self) {
            _ = try await stranger.find(
                discovery: listening, group: MultiThreadedEventLoopGroup.singleton, timeout: .seconds(2))
        }
        #expect(unheard?.kind == .unreachable)

        let newDirectory = try LinkFixture.newDirectory()
        _ = try await join.run(
            host: found.host, port: found.port, group: MultiThreadedEventLoopGroup.singleton, events: { _ in },
            confirm: { _ in true },
            write: { grant, keys in
                try Profile.createLinked(newDirectory, identity: join.device, grant: grant, keys: keys)
            })
        let linked = try await running.value
        #expect(linked.device == NodeID(join.device.publicKey))
    }
}
