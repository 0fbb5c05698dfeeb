import ConfabClient
import ConfabModel
import ConfabTestSupport
import Foundation
import Logging
import Testing

@testable import ConfabNode

/// Real nodes in the test's own process: real stores in a temporary directory, real
/// sessions on loopback with ports the OS picked, discovery off. Waits are on events.
struct InProcessNodes {
    let root: URL

    init() throws {
        root = try ConfabBinary.temporaryDirectory("confab-inproc")
    }

    /// A node's options: loopback, any port, no beacons, static peers as given.
    func options(_ name: String, peers: [String] = []) -> NodeOptions {
        var options = NodeOptions(directory: DataDirectory(url: root.appendingPathComponent(name)))
        options.listenHost = "127.0.0.1"
        options.listenPort = 0
        options.discovery = false
        options.staticPeers = peers
        var logger = Logger(label: "test.\(name)")
        // CONFAB_TEST_LOG=debug (or info, …) shows the nodes' logs when a test needs explaining.
        logger.logLevel =
            ProcessInfo.processInfo.environment["CONFAB_TEST_LOG"].flatMap { Logger.Level(rawValue: $0) } ?? .critical
        options.logger = logger
        return options
    }

    /// An initialised data directory with a node on it (not started).
    func node(_ name: String, peers: [String] = []) throws -> Node {
        let options = options(name, peers: peers)
        let local = try Profile.initialize(options.directory, name: name)
        return try Node(options: options, local: local)
    }

    /// Alice started, and Bob started with Alice as a static peer.
    func pair() async throws -> (alice: Node, bob: Node) {
        let alice = try node("alice")
        let address = try await alice.start()
        let bob = try node("bob", peers: ["\(alice.me.hex)@127.0.0.1:\(address.port!)"])
        try await bob.start()
        return (alice, bob)
    }

    func remove() { try? FileManager.default.removeItem(at: root) }
}

/// The first event that `matches`, or a failure after `seconds` (a ceiling, not a wait).
func firstEvent(
    in events: AsyncStream<NodeEvent>, within seconds: Double = 20, _ what: String,
    where matches: @escaping @Sendable (NodeEvent) -> Bool
) async throws -> NodeEvent {
    try await ConfabNodeTests.events(in: events, within: seconds, until: what, matches).last!
}

/// Every event up to and including the first that `matches`, or a failure after `seconds`.
func events(
    in events: AsyncStream<NodeEvent>, within seconds: Double = 20, until what: String,
    _ matches: @escaping @Sendable (NodeEvent) -> Bool
) async throws -> [NodeEvent] {
    try await withThrowingTaskGroup(of: [NodeEvent]?.self) { group in
        group.addTask {
            var seen: [NodeEvent] = []
            for await event in events {
                seen.append(event)
                if matches(event) { return seen }
            }
            return nil
        }
        group.addTask {
            try await Task.sleep(for: .seconds(seconds))
            return nil
        }
        defer { group.cancelAll() }
        guard let seen = try await group.next() ?? nil else {
            throw NodeProcess.Failure("no event within \(seconds) s: \(what)")
        }
        return seen
    }
}
