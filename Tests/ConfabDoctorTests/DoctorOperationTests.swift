import ConfabClient
import ConfabTestSupport
import ConfabWire
import Foundation
import Testing

@testable import ConfabNode

/// The `doctor` operation: the node runs the doctor with its own options (what the web app's
/// People dialog shows), here two nodes on loopback beaconing to 127.255.255.255.
@Suite("Doctor: as an operation of a running node") struct DoctorOperationTests {
    @Test func theNodeChecksItselfWithTheOptionsItRunsWith() async throws {
        let root = try ConfabBinary.temporaryDirectory("confab-doctor-op")
        defer { try? FileManager.default.removeItem(at: root) }
        let discovery = try DiscoveryPort()
        defer { withExtendedLifetime(discovery) {} }
        func node(_ name: String) throws -> Node {
            var options = NodeOptions(directory: DataDirectory(url: root.appendingPathComponent(name)))
            options.listenHost = "127.0.0.1"
            options.listenPort = 0
            options.discoveryPort = discovery.number
            options.beaconTargets = ["127.255.255.255:\(discovery.number)"]
            options.logger.logLevel = .critical
            return try Node(options: options, local: try Profile.initialize(options.directory, name: name))
        }
        let alice = try node("alice")
        let bob = try node("bob")
        // Subscribed before either starts, so the moment they connect is an event, not a poll.
        let events = alice.events()
        _ = try await alice.start()
        _ = try await bob.start()
        let connected = Task {
            for await event in events {
                if case .peerOnline(let peer) = event, peer.id == bob.me, peer.connected { return true }
            }
            return false
        }
        let timeout = Task {
            try await Task.sleep(for: .seconds(30))
            connected.cancel()
        }
        let met = await connected.value
        timeout.cancel()
        try #require(met, "alice and bob did not connect within 30 s")
        let summary = try await alice.messenger.perform(Operations.Doctor(seconds: 1))
        await alice.stop()
        await bob.stop()
        #expect(summary.ok)
        #expect(summary.networkTag == NetworkKey.default.tagHex)
        let codes = summary.findings.map(\.code)
        #expect(codes.contains("node-running"))
        #expect(codes.contains("peer-connected"), "\(codes)")
        #expect(summary.findings.allSatisfy { ["ok", "info", "warning", "problem"].contains($0.severity) })
    }
}
