import ConfabTestSupport
import Foundation
import Testing

/// Renaming a device (Protocol.md §20.4, §20.9) with real `confab` processes on 127.0.0.1
/// and discovery off: Alice renames her laptop, and then her desktop, with `confab devices
/// rename` while her node runs; the node sends the list on as another process's write, and
/// Bob's `peers --json` names her machines anew, with a line in their conversation.
@Suite(.serialized) struct DeviceRenameNodeTests {
    typealias Linked = LinkedDeviceNodeTests

    @Test func bobsPeersShowTheNewNamesWhileAlicesNodeRuns() async throws {
        let nodes = try DeviceNodeFixture()
        let (alice, bob, laptop) = (nodes.alice, nodes.bob, nodes.laptop)
        defer { nodes.stop() }
        do {
            try await nodes.meet()
            let bobMark = bob.logMark()
            _ = try await Linked.link(laptop, to: alice, name: "laptop")
            try await bob.waitForLog("device list of \(alice.key.prefix(8))", "now 1 entries", after: bobMark)
            // The names Bob's `peers --json` gives Alice's machines, her own key first.
            func names() throws -> [String?] {
                let peers = try #require(try bob.cli(["peers", "--json"]).json() as? [[String: Any]])
                let person = try #require(peers.first { $0["name"] as? String == "Alice" })
                return (person["devices"] as? [[String: Any]] ?? []).map { $0["name"] as? String }
            }
            #expect(try names() == [nil, "laptop"])

            let renamed = try alice.cli(["devices", "rename", "laptop", "work laptop"])
            #expect(renamed.status == 0, "\(renamed.stderr)")
            try await bob.waitForLog("device list of \(alice.key.prefix(8))", "now 2 entries", after: bobMark)
            #expect(try names() == [nil, "work laptop"])
            let named = try alice.cli(["devices", "rename", "Alice", "desktop", "--json"])
            #expect(named.status == 0, "\(named.stderr)")
            try await bob.waitForLog("device list of \(alice.key.prefix(8))", "now 3 entries", after: bobMark)
            #expect(try names() == ["desktop", "work laptop"])
            let systemLines = try Linked.history(bob.data, with: "Alice").compactMap { $0["system"] as? String }
            #expect(systemLines.contains { $0.hasPrefix("Alice renamed a device: laptop → work laptop (") })
            #expect(systemLines.contains { $0.hasPrefix("Alice named a device: desktop (") })
        } catch {
            throw ConfabBinary.Failure(
                "\(error)\nAlice's desktop logged:\n\(alice.log.suffix(6000))\nBob logged:\n\(bob.log.suffix(3000))")
        }
    }
}
