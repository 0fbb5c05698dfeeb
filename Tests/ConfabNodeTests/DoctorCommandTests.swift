import ConfabTestSupport
import Foundation
import Testing

/// `confab doctor` as a person runs it, against real nodes on loopback (beacons to
/// 127.255.255.255 only): with the node running it asks the node, without it it checks as
/// `up` would; the namespace script (Tests/LAN/doctor-test.sh) covers the failing LANs.
@Suite(.serialized) struct DoctorCommandTests {
    @Test func withAndWithoutARunningNode() async throws {
        let root = try temporaryRoot()
        let discovery = try DiscoveryPort()
        let nodes = try NodeProcess.acquainted(["alice", "bob"], root: root, discovery: discovery)
        let (alice, bob) = (nodes[0], nodes[1])
        let carol = try NodeProcess(name: "carol", root: root, discovery: discovery)
        defer {
            for node in [alice, bob, carol] { try? node.stop() }
        }
        try alice.start()
        try bob.start()
        try carol.start(extra: ["--network-key", String(repeating: "cd", count: 32)])
        try await waitUntil(timeout: 30, "alice and bob to connect") { try alice.onlinePeers() == ["bob"] }
        let loopback = [
            "--discovery-port", "\(discovery.number)", "--beacon", "127.255.255.255:\(discovery.number)",
            "--listen", "127.0.0.1:\(alice.port)",
        ]

        // The node runs: its ports are its own, bob is connected, carol's network is another.
        let running = try alice.cli(["doctor", "--json", "--seconds", "2"] + loopback)
        #expect(running.status == 0, "\(running.stderr)")
        let report = try #require(try running.json() as? [String: Any])
        #expect((report["node"] as? [String: Any])?["running"] as? Bool == true)
        let peers = try #require(report["peers"] as? [[String: Any]])
        #expect(peers.map { $0["name"] as? String } == ["bob"])
        #expect(peers.map { $0["result"] as? String } == ["connected"])
        let ports = try #require(report["ports"] as? [[String: Any]])
        #expect(ports.allSatisfy { $0["state"] as? String == "node" })
        let heard = try #require(report["heard"] as? [String: Any])
        let others = try #require(heard["otherNetworks"] as? [[String: Any]])
        #expect(others.map { $0["id"] as? String } == [carol.key])
        let findings = try #require(report["findings"] as? [[String: Any]])
        #expect(findings.contains { $0["code"] as? String == "other-network" })

        // No node: bob is heard (his beacons, and his answer to ours) and answers the probe.
        try alice.stop()
        let alone = try alice.cli(["doctor", "--seconds", "2"] + loopback)
        #expect(alone.status == 0, "\(alone.stderr)")
        #expect(alone.stdout.contains("not running — checked as \"confab up\" would run"))
        #expect(alone.stdout.contains("✓ bob (\(bob.key.prefix(8))) at 127.0.0.1:\(bob.port): reachable"))
        #expect(alone.stdout.contains("Result: a peer can be reached (exit 0)."))
        // Bob gone too: nothing works, and the exit status says so.
        try bob.stop()
        let nobody = try alice.cli(["doctor", "--json", "--seconds", "1"] + loopback)
        #expect(nobody.status == 1)
        let verdict = try #require(try nobody.json() as? [String: Any])
        #expect(verdict["ok"] as? Bool == false)
        let refused = try #require(verdict["peers"] as? [[String: Any]])
        #expect(refused.map { $0["result"] as? String } == ["refused"])
    }
}
