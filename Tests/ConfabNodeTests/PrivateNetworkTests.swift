import ConfabTestSupport
import Foundation
import Testing

/// Two private networks on one "LAN": four real nodes on 127.0.0.1 whose beacons all go
/// to 127.255.255.255 on one UDP port, two with key K1 and two with key K2, each key given
/// a different way (flag, environment, config file).
@Suite(.serialized) struct PrivateNetworkTests {
    @Test func twoNetworksOnOneLANNeverSeeOrReachEachOther() async throws {
        let root = try temporaryRoot()
        let discovery = try DiscoveryPort()
        let names = ["a1", "a2", "b1", "b2"]
        let nodes = try names.map { try NodeProcess(name: $0, root: root, discovery: discovery) }
        let (a1, a2, b1, b2) = (nodes[0], nodes[1], nodes[2], nodes[3])
        defer { for node in nodes { try? node.stop() } }
        func newKey() throws -> String {
            let result = try a1.cli(["network", "new", "--json"])
            return try #require((try result.json() as? [String: Any])?["key"] as? String)
        }
        let (k1, k2) = (try newKey(), try newKey())
        #expect(k1 != k2)
        #expect(try b2.cli(["network", "use", k2]).status == 0)
        let unset = ["CONFAB_NETWORK_KEY": ""]

        // Trace level: each node logs every beacon of the other network it ignores.
        try b1.start(logLevel: "trace", environment: ["CONFAB_NETWORK_KEY": k2])
        try b2.start(logLevel: "trace", environment: unset)
        try a2.start(logLevel: "trace", extra: ["--network-key", k1])
        // a1 also dials b1 directly, key and address known: the handshake must fail.
        try a1.start(logLevel: "trace", extra: ["--network-key", k1, "--peer", b1.peerAddress])

        let pairs = [(a1, a2), (a2, a1), (b1, b2), (b2, b1)]
        for (node, partner) in pairs {
            try await waitUntil(timeout: 30, "\(node.name) to connect to \(partner.name)") {
                try node.sessionKeys() == [partner.key]
            }
        }
        #expect(try a1.cli(["send", "a2", "hello a2", "--wait", "--timeout", "30"]).status == 0)
        #expect(try b1.cli(["send", "b2", "hello b2", "--wait", "--timeout", "30"]).status == 0)
        #expect(try a2.texts(with: "a1") == ["hello a2"])
        #expect(try b2.texts(with: "b1") == ["hello b2"])

        // Several beacon intervals and static redials later, still nothing crosses: every
        // node has heard and ignored beacons of the other network (from both of its nodes,
        // one each 1–2 s), and a1's dial to b1 has failed in the handshake three times (at
        // 0, 1 and 3 s: it backs off).
        let mark = nodes.map { $0.logMark() }
        for (node, from) in zip(nodes, mark) {
            try await node.waitForLog("ignoring beacon of another network", count: 4, after: from)
        }
        try await a1.waitForLog(
            "static peer \(b1.peerAddress) as \(b1.key.prefix(8)): connection closed during the handshake", count: 3)
        for (node, partner) in pairs {
            #expect(try node.sessionKeys() == [partner.key], "\(node.name)")
            #expect(Set(try node.listedPeers().keys) == [partner.key], "\(node.name) lists only its own network")
        }
        #expect(try a1.cli(["peers", "add", b1.key, "--name", "b1"]).status == 0)
        let across = try a1.cli(["send", "b1", "anyone there?", "--wait", "--timeout", "1"])
        #expect(across.status == 3)
        #expect(try b1.texts(with: "a1").isEmpty)

        // Each node says where its key came from, and pairs share a tag.
        #expect(b1.log.contains("(key from environment)"))
        #expect(b2.log.contains("(key from config)"))
        #expect(a1.log.contains("(key from flag)"))
        let tagA = try networkTag(a1, ["--network-key", k1], unset)
        #expect(tagA != nil)
        #expect(try networkTag(a2, ["--network-key", k1], unset) == tagA)
        let tagB = try networkTag(b2, [], unset)
        #expect(try networkTag(b1, [], ["CONFAB_NETWORK_KEY": k2]) == tagB)
        #expect(tagA != tagB)
        #expect(a1.log.contains("network \(try #require(tagA))"))
        #expect(b2.log.contains("network \(try #require(tagB))"))
    }

    /// `network show --json`'s tag for a node's data directory.
    private func networkTag(
        _ node: NodeProcess, _ extra: [String], _ environment: [String: String]
    ) throws -> String? {
        let result = try ConfabBinary.run(
            data: node.data, ["network", "show", "--json"] + extra, environment: environment)
        return (try? result.json() as? [String: Any])?["tag"] as? String
    }
}
