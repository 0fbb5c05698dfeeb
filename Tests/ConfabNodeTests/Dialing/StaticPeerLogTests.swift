import ConfabClient
import ConfabCrypto
import ConfabModel
import Logging
import NIOPosix
import Testing

@testable import ConfabNode

/// What `confab up --peer …` tells the person when the peer cannot be reached: what
/// happened and what to do, not NIO's description of every address it tried.
@Suite struct StaticPeerLogTests {
    /// A TCP port on loopback that nothing listens on: bound by the OS, then closed.
    private func closedPort() async throws -> Int {
        let channel = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .bind(host: "127.0.0.1", port: 0).get()
        let port = channel.localAddress!.port!
        try await channel.close()
        return port
    }

    private func start(peers: [String], _ records: LogRecords, in nodes: InProcessNodes) async throws -> Node {
        var options = nodes.options("alice", peers: peers)
        options.logger = Logger(label: "test") { _ in RecordingLogHandler(records: records) }
        let local = try Profile.initialize(options.directory, name: "alice")
        let node = try Node(options: options, local: local)
        try await node.start()
        return node
    }

    @Test func aRefusedDialSaysWhereAndWhyInOneLine() async throws {
        let nodes = try InProcessNodes()
        defer { nodes.remove() }
        let port = try await closedPort()
        let records = LogRecords()
        let key = NodeID(SigningKeyPair.generate().publicKey)
        let node = try await start(peers: ["\(key.hex)@127.0.0.1:\(port)"], records, in: nodes)
        try await waitUntil(timeout: 20, "the refused dial in the log") {
            records.all.contains { $0.message.hasPrefix("could not connect to 127.0.0.1:\(port)") }
        }
        await node.stop()
        let line = try #require(records.all.first { $0.message.hasPrefix("could not connect") })
        #expect(line.message == "could not connect to 127.0.0.1:\(port): Connection refused")
    }

    @Test func aPeerWithoutAKeyAndNoOneToTrySaysHowToNameOne() async throws {
        let nodes = try InProcessNodes()
        defer { nodes.remove() }
        let port = try await closedPort()
        let records = LogRecords()
        let node = try await start(peers: ["127.0.0.1:\(port)"], records, in: nodes)
        try await waitUntil(timeout: 20, "the static peer's notice") {
            records.all.contains { $0.message.hasPrefix("--peer 127.0.0.1:\(port) names no key") }
        }
        await node.stop()
        let notice = try #require(records.all.first { $0.message.hasPrefix("--peer") })
        #expect(notice.message.contains("confab add KEY"))
        #expect(notice.message.contains("KEY@127.0.0.1:\(port)"))
    }
}
