import ConfabTestSupport
import Foundation
import Testing

/// What Alice set on her desktop before she had a second machine reaches the laptop she
/// links (Protocol.md §20.15, the snapshot), with real `confab` processes on 127.0.0.1 and
/// discovery off: she renames Bob by hand, verifies him and pins their conversation, Bob's
/// node stops, and the laptop — which never meets Bob — shows all three.
@Suite(.serialized) struct SettingSnapshotNodeTests {
    @Test func whatTheDesktopSetBeforeTheLinkIsOnTheLaptop() async throws {
        let root = try temporaryRoot()
        let nodes = try NodeProcess.acquainted(["Alice", "Bob"], root: root)
        let (alice, bob) = (nodes[0], nodes[1])
        let laptop = NodeProcess(linking: "laptop", root: root)
        defer {
            try? laptop.stop()
            for node in nodes { try? node.stop() }
        }
        do {
            try alice.start(discovery: false, extra: ["--no-web"])
            try bob.start(discovery: false, extra: ["--no-web", "--peer", alice.peerAddress])
            #expect(try bob.cli(["send", "Alice", "hello from Bob"]).status == 0)
            try await waitUntil(timeout: 30, "Alice's desktop to have Bob's message") {
                try alice.texts(with: "Bob") == ["hello from Bob"]
            }
            // Bob goes away: whatever the laptop learns of him, it learns from Alice's desktop.
            try bob.stop()

            // Before any link: a name by hand, a verification and a pin, written nowhere.
            let renamed = try alice.cli(["peers", "add", bob.key, "--name", "Robert"])
            #expect(renamed.status == 0, "\(renamed.stderr)")
            let verified = try alice.cli(["verify", bob.key, "--confirm"])
            #expect(verified.status == 0, "\(verified.stderr)")
            #expect(try alice.cli(["pin", "Robert"]).status == 0)

            _ = try await LinkedDeviceNodeTests.link(laptop, to: alice, name: "laptop")
            try laptop.start(peers: [alice.peerAddress])
            try await waitUntil(timeout: 30, "the laptop to have Bob's message") {
                try LinkedDeviceNodeTests.message(
                    "hello from Bob", in: LinkedDeviceNodeTests.history(laptop.data, with: bob.key)) != nil
            }
            try await waitUntil(timeout: 30, "the laptop to show Bob as Robert, verified") {
                let peer = try laptop.listedPeers()[bob.key]
                return peer?["name"] as? String == "Robert" && peer?["trust"] as? String == "verified"
            }
            try await waitUntil(timeout: 30, "the laptop to show the conversation pinned") {
                let listed = try laptop.cli(["list", "--json"])
                let conversations = (try? listed.json() as? [[String: Any]]) ?? []
                return conversations.first?["pinned"] as? Bool == true
            }
            let fromBob = try #require(
                LinkedDeviceNodeTests.message(
                    "hello from Bob", in: try LinkedDeviceNodeTests.history(laptop.data, with: "Robert")))
            #expect(fromBob["authorName"] as? String == "Robert")
        } catch {
            throw ConfabBinary.Failure(
                "\(error)\nAlice's desktop logged:\n\(alice.log.suffix(6000))"
                    + "\nthe laptop logged:\n\(laptop.log.suffix(6000))")
        }
    }
}
