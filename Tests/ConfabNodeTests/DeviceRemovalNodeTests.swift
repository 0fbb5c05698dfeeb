import ConfabTestSupport
import Foundation
import Testing

/// Removing a device (Protocol.md §20.13) with real `confab` processes on 127.0.0.1 and
/// discovery off: Alice's desktop removes her stopped laptop while the desktop's node runs;
/// Bob gets the new list and the rekey, writes after it; the laptop, started again, learns
/// it was removed from the list its peers send, reads nothing Bob wrote after, and refuses
/// to send. (That an entry it signs anyway is refused by Bob and by the desktop is shown at
/// the store level, DeviceRemovalTests: its own store writes none.)
@Suite(.serialized) struct DeviceRemovalNodeTests {
    typealias Linked = LinkedDeviceNodeTests

    @Test func aRemovedLaptopLearnsItReadsNothingNewAndSendsNothing() async throws {
        let nodes = try DeviceNodeFixture()
        let (alice, bob, laptop) = (nodes.alice, nodes.bob, nodes.laptop)
        defer { nodes.stop() }
        do {
            try await nodes.meet()
            _ = try await Linked.link(laptop, to: alice, name: "laptop")
            try laptop.start(peers: [alice.peerAddress])
            try await waitUntil(timeout: 30, "the laptop to have Bob's message") {
                try Linked.message("hello from Bob", in: Linked.history(laptop.data, with: "Bob")) != nil
            }
            #expect(try laptop.cli(["send", "Bob", "reply from laptop"]).status == 0)
            try await waitUntil(timeout: 30, "Bob to have the laptop's reply") {
                try Linked.message("reply from laptop", in: Linked.history(bob.data, with: "Alice")) != nil
            }
            // Everything of the desktop's is held elsewhere, its personal conversation's create
            // (§20.15) by the laptop.
            try await waitUntil(timeout: 30, "Alice's outbox to empty before the removal") {
                try alice.outboxCount() == 0
            }
            // Bob was told, in his conversation with Alice, of the machine she linked.
            let systemLines = { try Linked.history(bob.data, with: "Alice").compactMap { $0["system"] as? String } }
            #expect(try systemLines().contains { $0.hasPrefix("Alice linked a new device: laptop (") })
            try laptop.stop()

            // Removed on the desktop while its node runs: the node sends the list and the
            // rekey on as another process's writes.
            let bobMark = bob.logMark()
            let removed = try alice.cli(["devices", "remove", "laptop", "--yes"])
            #expect(removed.status == 0, "\(removed.stderr)")
            #expect(removed.stdout.contains("Removed laptop"), "\(removed.stdout)")
            #expect(removed.stdout.contains("1 conversation rekeyed"), "\(removed.stdout)")
            try await bob.waitForLog("device list of \(alice.key.prefix(8))", "now 2 entries", after: bobMark)
            #expect(try systemLines().contains { $0.hasPrefix("Alice removed a device: laptop (") })
            // Two rekeys: Bob's conversation's, which Bob takes, and her personal conversation's,
            // which waits for another device of Alice's (§20.15).
            try await waitUntil(timeout: 30, "Bob to hold the rekey (one entry left in Alice's outbox)") {
                try alice.outboxCount() == 1
            }
            #expect(try bob.cli(["send", "Alice", "after the removal"]).status == 0)
            try await waitUntil(timeout: 30, "Alice's desktop to have Bob's message after the removal") {
                try alice.texts(with: "Bob").contains("after the removal")
            }

            // The laptop again, meeting the desktop and Bob.
            try laptop.start(peers: [alice.peerAddress, bob.peerAddress])
            try await waitUntil(timeout: 30, "the laptop to log its removal") {
                laptop.log.contains("This device was removed from Alice's devices (on ")
            }
            try await waitUntil(timeout: 30, "the laptop to be in sync with both peers") {
                guard let status = try laptop.cli(["status", "--json"]).json() as? [String: Any] else { return false }
                return (status["sessions"] as? [Any])?.count == 2 && status["outstanding"] as? Int == 0
            }
            #expect(laptop.log.components(separatedBy: "This device was removed").count - 1 == 1, "logged once")
            let held = try Linked.history(laptop.data, with: "Bob").compactMap { $0["text"] as? String }
            #expect(held.contains("hello from Bob"), "what it held before stays")
            #expect(!held.contains("after the removal"), "\(held)")

            // A send is refused by its own store, with a message that says what to do.
            let send = try laptop.cli(["send", "Bob", "from a removed laptop"])
            #expect(send.status == 1)
            #expect(send.stderr.contains("This device was removed from Alice's devices"), "\(send.stderr)")
            #expect(send.stderr.contains("confab init --link CODE"))
            #expect(
                !(try Linked.history(laptop.data, with: "Bob")).contains {
                    $0["text"] as? String == "from a removed laptop"
                })
            let whoami = try laptop.cli(["whoami"])
            #expect(whoami.stdout.contains("removed      This device was removed"), "\(whoami.stdout)")
        } catch {
            throw ConfabBinary.Failure(
                "\(error)\nAlice's desktop logged:\n\(alice.log.suffix(6000))\nBob logged:\n\(bob.log.suffix(3000))"
                    + "\nthe laptop logged:\n\(laptop.log.suffix(6000))")
        }
    }

    /// The same through a relay, with nobody online together after the link: the desktop
    /// removes the stopped laptop and goes; Bob, alone with the relay, takes the list and the
    /// rekey from it and writes; the laptop, alone with the relay, learns it was removed and
    /// reads nothing Bob wrote after.
    @Test func aRemovalReachesBobAndTheLaptopThroughARelayAlone() async throws {
        let root = try temporaryRoot()
        let nodes = try NodeProcess.acquainted(["Alice", "Bob"], root: root)
        let (alice, bob) = (nodes[0], nodes[1])
        let relay = try NodeProcess(name: "relay", root: root)
        let laptop = NodeProcess(linking: "laptop", root: root)
        defer {
            try? laptop.stop()
            for node in nodes + [relay] { try? node.stop() }
        }
        do {
            try relay.start(command: "relay", discovery: false)
            let viaRelay = ["--no-web", "--peer", relay.peerAddress]
            try alice.start(discovery: false, extra: viaRelay)
            try bob.start(discovery: false, extra: viaRelay)
            #expect(try bob.cli(["send", "Alice", "hello from Bob"]).status == 0)
            try await waitUntil(timeout: 30, "Alice's desktop to have Bob's message through the relay") {
                try alice.texts(with: "Bob") == ["hello from Bob"]
            }
            _ = try await Linked.link(laptop, to: alice, name: "laptop")
            try laptop.start(peers: [relay.peerAddress])
            try await waitUntil(timeout: 30, "the laptop to have Bob's message from the relay") {
                try Linked.message("hello from Bob", in: Linked.history(laptop.data, with: "Bob")) != nil
            }
            try laptop.stop()
            try bob.stop()

            // Alone with the relay, the desktop removes the laptop, hands the relay the list
            // and the rekey, and goes.
            let relayMark = relay.logMark()
            let removed = try alice.cli(["devices", "remove", "laptop", "--yes"])
            #expect(removed.status == 0, "\(removed.stderr)")
            try await relay.waitForLog("device list of \(alice.key.prefix(8))", "now 2 entries", after: relayMark)
            try await waitUntil(timeout: 30, "the relay to hold the desktop's rekeys") { try alice.outboxCount() == 0 }
            try alice.stop()

            // Bob, alone with the relay, takes both and writes after them.
            let bobMark = bob.logMark()
            try bob.start(discovery: false, extra: viaRelay)
            try await bob.waitForLog("device list of \(alice.key.prefix(8))", "now 2 entries", after: bobMark)
            try await waitUntil(timeout: 30, "Bob to be in sync with the relay") {
                guard let status = try bob.cli(["status", "--json"]).json() as? [String: Any] else { return false }
                return (status["sessions"] as? [Any])?.count == 1 && status["outstanding"] as? Int == 0
            }
            let systemLines = try Linked.history(bob.data, with: "Alice").compactMap { $0["system"] as? String }
            #expect(systemLines.contains { $0.hasPrefix("Alice removed a device: laptop (") }, "\(systemLines)")
            #expect(try bob.cli(["send", "Alice", "after the removal"]).status == 0)
            try await waitUntil(timeout: 30, "the relay to hold Bob's message") { try bob.outboxCount() == 0 }
            try bob.stop()

            // The laptop, alone with the relay: removed, and nothing new to read.
            try laptop.start(peers: [relay.peerAddress])
            try await waitUntil(timeout: 30, "the laptop to log its removal") {
                laptop.log.contains("This device was removed from Alice's devices (on ")
            }
            try await waitUntil(timeout: 30, "the laptop to be in sync with the relay") {
                guard let status = try laptop.cli(["status", "--json"]).json() as? [String: Any] else { return false }
                return (status["sessions"] as? [Any])?.count == 1 && status["outstanding"] as? Int == 0
            }
            let held = try Linked.history(laptop.data, with: "Bob").compactMap { $0["text"] as? String }
            #expect(held.contains("hello from Bob"), "what it held before stays")
            #expect(!held.contains("after the removal"), "\(held)")
            let send = try laptop.cli(["send", "Bob", "from a removed laptop"])
            #expect(send.status == 1)
            #expect(send.stderr.contains("This device was removed from Alice's devices"), "\(send.stderr)")
        } catch {
            throw ConfabBinary.Failure(
                "\(error)\nAlice's desktop logged:\n\(alice.log.suffix(4000))\nBob logged:\n\(bob.log.suffix(4000))"
                    + "\nthe relay logged:\n\(relay.log.suffix(4000))\nthe laptop logged:\n\(laptop.log.suffix(6000))")
        }
    }
}
