import ConfabCrypto
import Foundation
import GRDB
import Testing

/// `verify`, `block` and `unblock` through the real binary, without a node running.
@Suite struct TrustCommandTests {
    let alice: CLIRunner
    let bob: CLIRunner
    let aliceKey: String
    let bobKey: String

    init() throws {
        let root = try CLIRunner.temporaryDirectory()
        alice = CLIRunner(data: root.appendingPathComponent("alice"))
        bob = CLIRunner(data: root.appendingPathComponent("bob"))
        aliceKey = try alice.initialize(name: "Alice")
        bobKey = try bob.initialize(name: "Bob")
        #expect(try alice.run(["peers", "add", bobKey, "--name", "Bob"]).status == 0)
        #expect(try bob.run(["peers", "add", aliceKey, "--name", "Alice"]).status == 0)
    }

    private func safetyNumber(_ runner: CLIRunner, _ peer: String) throws -> String {
        let result = try runner.run(["verify", peer, "--json"])
        #expect(result.status == 0, "\(result.stderr)")
        let object = try #require(try result.json() as? [String: Any])
        return try #require(object["safetyNumber"] as? String)
    }

    private func trust(_ runner: CLIRunner, _ key: String) throws -> String? {
        let peers = try #require(try runner.run(["peers", "--json"]).json() as? [[String: Any]])
        return peers.first { $0["id"] as? String == key }?["trust"] as? String
    }

    @Test func bothMachinesShowTheSameSafetyNumber() throws {
        let fromAlice = try safetyNumber(alice, "bob")
        let fromBob = try safetyNumber(bob, "alice")
        #expect(fromAlice == fromBob)
        #expect(fromAlice.split(separator: " ").count == 12)
        #expect(fromAlice.split(separator: " ").allSatisfy { $0.count == 5 && $0.allSatisfy(\.isNumber) })
        // By key prefix it is the same peer and the same number.
        #expect(try safetyNumber(alice, String(bobKey.prefix(10))) == fromAlice)

        let human = try alice.run(["verify", "bob"])
        #expect(human.status == 0)
        let groups = fromAlice.split(separator: " ")
        #expect(human.stdout.contains("    " + groups[0..<4].joined(separator: " ") + "\n"))
        #expect(human.stdout.contains("confab verify \(bobKey) --confirm"))
        #expect(try trust(alice, bobKey) == "unverified")
    }

    @Test func confirmMarksThatKeyVerifiedEverywhereItShows() throws {
        #expect(try alice.run(["send", "bob", "hi"]).status == 0)
        let confirmed = try alice.run(["verify", bobKey, "--confirm"])
        #expect(confirmed.status == 0, "\(confirmed.stderr)")
        #expect(confirmed.stdout.contains("is now verified"))
        #expect(try trust(alice, bobKey) == "verified")
        #expect(try trust(bob, aliceKey) == "unverified")
        #expect(try alice.run(["verify", "bob"]).stdout.contains("Already verified."))

        let list = try #require(try alice.run(["list", "--json"]).json() as? [[String: Any]])
        let participant = try #require((list.first?["participants"] as? [[String: Any]])?.first)
        #expect(participant["trust"] as? String == "verified")
        #expect(try alice.run(["list"]).stdout.contains("Bob ✓"))
    }

    @Test func verifyErrorsSayWhatToDo() throws {
        let unknown = try alice.run(["verify", "zed"])
        #expect(unknown.status == 1)
        #expect(unknown.stderr.contains("no peer named \"zed\" — known peers: Bob"))
        let own = try alice.run(["verify", aliceKey])
        #expect(own.status == 1)
        #expect(own.stderr.contains("is your own key"))
        #expect(try alice.run(["block", "bob"]).status == 0)
        let blocked = try alice.run(["verify", bobKey, "--confirm"])
        #expect(blocked.status == 1)
        #expect(blocked.stderr.contains("Bob is blocked; run \"confab unblock \(bobKey.prefix(8))\" first"))
        #expect(try trust(alice, bobKey) == "blocked")
        #expect(try alice.run(["verify"]).status == 2)
    }

    @Test func blockAndUnblock() throws {
        let blocked = try alice.run(["block", "bob"])
        #expect(blocked.status == 0, "\(blocked.stderr)")
        #expect(blocked.stdout.contains("Blocked Bob (\(bobKey.prefix(8)))"))
        #expect(blocked.stdout.contains("confab unblock \(bobKey.prefix(8))"))
        #expect(try trust(alice, bobKey) == "blocked")
        #expect(try alice.run(["peers"]).stdout.contains("blocked"))
        #expect(try alice.run(["block", "BOB"]).stdout.contains("was already blocked"))
        let send = try alice.run(["send", "bob", "hello?"])
        #expect(send.status == 1)
        #expect(send.stderr.contains("Bob is blocked here, so nothing would reach them"))
        #expect(send.stderr.contains("confab unblock \(bobKey.prefix(8))"))
        #expect(try alice.run(["list", "--json"]).stdout == "[]\n")

        let json = try #require(try alice.run(["unblock", "bob", "--json"]).json() as? [String: Any])
        #expect(json["trust"] as? String == "unverified")
        #expect(json["id"] as? String == bobKey)
        #expect(try alice.run(["send", "bob", "hello again"]).status == 0)
        let again = try alice.run(["unblock", "bob"])
        #expect(again.status == 1)
        #expect(again.stderr.contains("\"bob\" is not blocked — blocked peers: none"))
    }

    @Test func aKeyCanBeBlockedBeforeItIsEverSeen() throws {
        let stranger = String(repeating: "ab", count: 32)
        #expect(try alice.run(["block", stranger]).status == 0)
        #expect(try trust(alice, stranger) == "blocked")
        let own = try alice.run(["block", aliceKey])
        #expect(own.status == 1)
        #expect(own.stderr.contains("you cannot block yourself"))
        let unknown = try alice.run(["block", "nobody"])
        #expect(unknown.status == 1)
        #expect(unknown.stderr.contains("no peer named \"nobody\""))
    }

    /// Grouped by four, as `confab whoami` and `verify` print it.
    private func fingerprint(_ key: String) -> String {
        stride(from: 0, to: key.count, by: 4).map { String(Array(key)[$0..<$0 + 4]) }.joined(separator: " ")
    }

    @Test func confirmTakesOnlyAFullKeyOrFingerprint() throws {
        for target in ["bob", "Bob", String(bobKey.prefix(16)), String(bobKey.prefix(8))] {
            let refused = try alice.run(["verify", target, "--confirm"])
            #expect(refused.status == 2, "\(target)")
            #expect(refused.stderr.contains("full key or fingerprint"), "\(refused.stderr)")
        }
        #expect(try trust(alice, bobKey) == "unverified")
        let confirmed = try alice.run(["verify", fingerprint(bobKey), "--confirm"])
        #expect(confirmed.status == 0, "\(confirmed.stderr)")
        #expect(try trust(alice, bobKey) == "verified")
    }

    /// The review's repro, with the name already stored (as by an older version or a
    /// Hello): keys and key prefixes still reach the key they spell.
    @Test func keysAndPrefixesReachTheirKeyWhenANameSpellsThem() throws {
        let mallory = CLIRunner(data: try CLIRunner.temporaryDirectory().appendingPathComponent("mallory"))
        let malloryKey = try mallory.initialize(name: "Mallory")
        #expect(try alice.run(["peers", "add", malloryKey, "--name", "mal"]).status == 0)
        let prefix = String(bobKey.prefix(16))
        try rename(malloryKey, to: bobKey, in: alice)

        let sent = try #require(try alice.run(["send", bobKey, "for bob only", "--json"]).json() as? [String: Any])
        let list = try #require(try alice.run(["list", "--json"]).json() as? [[String: Any]])
        let thread = try #require(list.first { $0["id"] as? String == sent["conversation"] as? String })
        let members = (thread["participants"] as? [[String: Any]])?.compactMap { $0["id"] as? String }
        #expect(members == [bobKey])

        try rename(malloryKey, to: prefix, in: alice)
        #expect(try alice.run(["verify", prefix, "--confirm"]).status == 2)
        #expect(try alice.run(["verify", prefix]).stdout.contains("confab verify \(bobKey) --confirm"))
        #expect(try alice.run(["block", prefix]).status == 0)
        #expect(try trust(alice, bobKey) == "blocked")
        #expect(try trust(alice, malloryKey) == "unverified")
        #expect(try alice.run(["unblock", prefix]).status == 0)
        #expect(try trust(alice, bobKey) == "unverified")
    }

    private func rename(_ key: String, to name: String, in runner: CLIRunner) throws {
        let database = try DatabaseQueue(path: runner.data.appendingPathComponent("confab.sqlite").path)
        try database.write { db in
            try db.execute(
                sql: "UPDATE peer SET name = ? WHERE id = ?", arguments: [name, Data(Hex.decode(key) ?? [])])
        }
    }
}
