import ConfabClient
import ConfabNode
import ConfabTestSupport
import Foundation
import Testing

/// `confab rename` on real `confab up` processes on 127.0.0.1: the peer hears the new name
/// without either node restarting; a key cannot take another's name by renaming itself.
@Suite(.serialized) struct RenameNodeTests {
    @Test func aRenameReachesAConnectedPeerAndCannotTakeAnotherKeysName() async throws {
        let root = try temporaryRoot()
        let discovery = try DiscoveryPort()
        let alice = try NodeProcess(name: "alice", root: root, discovery: discovery)
        let bob = try NodeProcess(name: "bob", root: root, discovery: discovery)
        let carol = try NodeProcess(name: "carol", root: root, discovery: discovery)
        defer { for node in [alice, bob, carol] { try? node.stop() } }
        try alice.start()
        try bob.start()
        try carol.start()
        try await waitUntil(timeout: 30, "alice to meet bob and carol") {
            try alice.onlinePeers().sorted() == ["bob", "carol"]
        }
        #expect(try alice.cli(["send", "bob", "hi bob", "--wait", "--timeout", "30"]).status == 0)

        let renamed = try bob.cli(["rename", "Robert"])
        #expect(renamed.status == 0, "\(renamed.stderr)")
        #expect(renamed.stdout.contains("You are now Robert (was bob)"))
        try await waitUntil(timeout: 30, "alice to hear bob's new name") {
            try alice.listedPeers()[bob.key]?["name"] as? String == "Robert"
        }
        #expect(try bob.cli(["whoami"]).stdout.contains("Robert"))
        // The conversation is reached by the new name, and the session came back.
        try await waitUntil(timeout: 30, "alice and Robert to reconnect") {
            try alice.onlinePeers().sorted() == ["Robert", "carol"]
        }
        #expect(try alice.cli(["send", "Robert", "hi Robert", "--wait", "--timeout", "30"]).status == 0)
        #expect(try bob.texts(with: "alice") == ["hi bob", "hi Robert"])

        // Carol renaming herself to Bob's new name stays apart from him, with a warning.
        #expect(try carol.cli(["rename", "robert"]).status == 0)
        try await waitUntil(timeout: 30, "alice to hear carol's claim") {
            (try alice.listedPeers()[carol.key]?["name"] as? String)?.hasPrefix("robert (") == true
        }
        let claimed = try #require(try alice.listedPeers()[carol.key])
        #expect(claimed["name"] as? String == "robert (\(carol.key.prefix(8)))")
        #expect((claimed["warning"] as? String)?.contains("introduced itself as \"robert\"") == true)
        #expect(try alice.listedPeers()[bob.key]?["name"] as? String == "Robert")
    }

    @Test func aNameThatIsNoNameIsRefusedWithWhatToDo() throws {
        let root = try temporaryRoot()
        let discovery = try DiscoveryPort()
        let alice = try NodeProcess(name: "alice", root: root, discovery: discovery)
        defer { try? alice.stop() }
        let empty = try alice.cli(["rename", "  "])
        #expect(empty.status != 0)
        #expect(empty.stderr.contains("a display name needs 1 to 64 bytes"))
        let keyLike = try alice.cli(["rename", String(alice.key.prefix(16))])
        #expect(keyLike.status != 0)
        #expect(try alice.cli(["whoami"]).stdout.contains("alice"))
    }
}
