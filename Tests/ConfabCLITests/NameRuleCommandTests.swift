import Foundation
import Testing

/// Names that could be taken for a key are refused wherever a person sets one.
@Suite struct NameRuleCommandTests {
    let root: URL

    init() throws {
        root = try CLIRunner.temporaryDirectory()
    }

    private func runner(_ name: String) -> CLIRunner { CLIRunner(data: root.appendingPathComponent(name)) }

    @Test func peersAddRefusesNamesThatLookLikeKeys() throws {
        let alice = runner("alice")
        _ = try alice.initialize(name: "Alice")
        let bobKey = try runner("bob").initialize(name: "Bob")
        let carolKey = try runner("carol").initialize(name: "Carol")
        #expect(try alice.run(["peers", "add", bobKey, "--name", "Bob"]).status == 0)
        let fingerprint = stride(from: 0, to: 64, by: 4).map { String(Array(bobKey)[$0..<$0 + 4]) }
            .joined(separator: " ")
        for name in [bobKey, String(bobKey.prefix(16)), fingerprint, "DEADBEEF", "Bob (\(bobKey.prefix(8)))"] {
            let refused = try alice.run(["peers", "add", carolKey, "--name", name])
            #expect(refused.status == 2, "\(name)")
            #expect(refused.stderr.contains("could be taken for a key"), "\(refused.stderr)")
        }
        // A look-alike of a name already taken is refused like the name itself.
        let lookAlike = try alice.run(["peers", "add", carolKey, "--name", "Воb"])
        #expect(lookAlike.status == 1)
        #expect(lookAlike.stderr.contains("already used by another key (\(bobKey.prefix(8)))"))
        #expect(try alice.run(["peers", "--json"]).stdout.contains(carolKey) == false)
    }

    @Test func initRefusesANameThatLooksLikeAKey() throws {
        let fresh = runner("fresh")
        let refused = try fresh.run(["init", "--name", "cafe babe 1234"])
        #expect(refused.status == 2)
        #expect(refused.stderr.contains("could be taken for a key"), "\(refused.stderr)")
        #expect(!FileManager.default.fileExists(atPath: fresh.data.appendingPathComponent("identity.key").path))
    }

    /// The first run's prompt asks again; with no more input, nothing is created.
    @Test func theFirstRunPromptRefusesANameThatLooksLikeAKey() throws {
        let fresh = runner("first")
        let chat = try fresh.run(
            ["chat", "--plain", "--no-discovery", "--listen", "127.0.0.1:0"], stdin: "deadbeef12\n")
        #expect(chat.status == 1)
        #expect(chat.stderr.contains("could be taken for a key"), "\(chat.stderr)")
        #expect(!FileManager.default.fileExists(atPath: fresh.data.appendingPathComponent("identity.key").path))
    }
}
