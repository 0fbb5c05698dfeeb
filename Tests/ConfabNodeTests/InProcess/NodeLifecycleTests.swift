import ConfabClient
import ConfabModel
import Foundation
import NIOCore
import NIOPosix
import Testing

@testable import ConfabNode

/// The node's parts run as one service group: started together, stopped in reverse order,
/// and nothing left bound or locked when a part fails to start.
@Suite("Node lifecycle")
struct NodeLifecycleTests {
    @Test func stoppingClosesTheControlSocketBeforeSayingGoodbye() async throws {
        let nodes = try InProcessNodes()
        defer { nodes.remove() }
        // Alice listens before Bob starts: he dials her at once, and an event sent before
        // anyone listened is not seen (the test once waited 20 s for what had happened).
        let alice = try nodes.node("alice")
        let address = try await alice.start()
        let events = alice.events()
        let bob = try nodes.node("bob", peers: ["\(alice.me.hex)@127.0.0.1:\(address.port!)"])
        try await bob.start()
        _ = try await firstEvent(in: events, "Bob online") {
            if case .peerOnline(let peer) = $0 { return peer.id == bob.me }
            return false
        }
        let socket = bob.local.directory.controlSocket.path
        #expect(FileManager.default.fileExists(atPath: socket))
        let stopping = Task { await bob.stop() }
        // Bob's goodbye is what tells Alice at once (without it she would wait for silence).
        _ = try await firstEvent(in: events, within: 10, "Bob's goodbye") {
            if case .peerOffline(let peer) = $0 { return peer.id == bob.me }
            return false
        }
        #expect(!FileManager.default.fileExists(atPath: socket), "the control socket outlived the sessions")
        await stopping.value
        // The directory is free for the next node.
        _ = try Node(options: nodes.options("bob"))
        await alice.stop()
    }

    @Test func aPartThatCannotStartLeavesNothingBoundOrLocked() async throws {
        let nodes = try InProcessNodes()
        defer { nodes.remove() }
        var options = nodes.options("carol")
        options.metricsAddress = "not-an-address"
        let local = try Profile.initialize(options.directory, name: "carol")
        let node = try Node(options: options, local: local)
        let failure = await #expect(throws: NodeError.self) { try await node.start() }
        #expect(failure?.description.contains("--metrics") == true)
        // Sessions were listening before metrics failed: the port was closed again, and the
        // lock let go, so the same directory starts at once with a good address.
        options.metricsAddress = nil
        let again = try Node(options: options, local: local)
        let address = try await again.start()
        #expect(address.port != nil)
        await again.stop()
        await node.stop()
    }
}
