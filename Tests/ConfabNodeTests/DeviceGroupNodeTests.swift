import ConfabTestSupport
import Foundation
import Testing

/// Groups are of persons (issue 33 §2), with real `confab` processes on 127.0.0.1 and
/// discovery off: Bob's group with Alice and Carol, made before Alice links her laptop, is
/// read on the laptop with its history, from Bob alone; the laptop writes there as Alice; and
/// a group Bob makes after the link reaches the laptop, which Bob never added (Protocol.md
/// §20.11, §20.12).
@Suite(.serialized) struct DeviceGroupNodeTests {
    typealias Linked = LinkedDeviceNodeTests

    /// Alice's desktop, Bob and Carol running and met, and Alice's laptop not linked yet;
    /// every process stopped after `body`, and their logs told when it fails.
    static func withAliceBobCarol(
        _ body: (_ alice: NodeProcess, _ bob: NodeProcess, _ carol: NodeProcess, _ laptop: NodeProcess) async throws
            -> Void
    ) async throws {
        let root = try temporaryRoot()
        let nodes = try NodeProcess.acquainted(["Alice", "Bob", "Carol"], root: root)
        let (alice, bob, carol) = (nodes[0], nodes[1], nodes[2])
        let laptop = NodeProcess(linking: "laptop", root: root)
        defer {
            try? laptop.stop()
            for node in nodes { try? node.stop() }
        }
        do {
            try alice.start(discovery: false, extra: ["--no-web"])
            try bob.start(discovery: false, extra: ["--no-web", "--peer", alice.peerAddress])
            try carol.start(
                discovery: false, extra: ["--no-web", "--peer", alice.peerAddress, "--peer", bob.peerAddress])
            try await waitUntil(timeout: 30, "Alice, Bob and Carol to meet") {
                try alice.onlinePeers() == ["Bob", "Carol"] && bob.onlinePeers() == ["Alice", "Carol"]
            }
            try await body(alice, bob, carol, laptop)
        } catch {
            throw ConfabBinary.Failure(
                "\(error)\nAlice's desktop logged:\n\(alice.log.suffix(4000))\nBob logged:\n\(bob.log.suffix(4000))"
                    + "\nCarol logged:\n\(carol.log.suffix(2000))\nthe laptop logged:\n\(laptop.log.suffix(6000))")
        }
    }

    @Test func aGroupWithAliceGetsHerNewDevice() async throws {
        try await Self.withAliceBobCarol { alice, bob, carol, laptop in
            let made = try bob.cli([
                "new", "Alice", "Carol", "--title", "Team", "--message", "before the laptop", "--json",
            ])
            #expect(made.status == 0, "\(made.stderr)")
            let team = try #require((try made.json() as? [String: Any])?["id"] as? String)
            try await waitUntil(timeout: 30, "Alice's desktop to have the group") {
                try Linked.message("before the laptop", in: Linked.history(alice.data, with: team)) != nil
            }

            let laptopKey = try await Linked.link(laptop, to: alice, name: "laptop")
            // Bob learns Alice's new list from her desktop (§20.9) before the laptop meets him.
            try await waitUntil(timeout: 30, "Bob to hold Alice's list naming the laptop") {
                let devices = try bob.listedPeers()[alice.key]?["devices"] as? [[String: Any]] ?? []
                return devices.contains { $0["id"] as? String == laptopKey }
            }
            try alice.stop()

            // The laptop meets only Bob, and reads the group's history from him.
            try laptop.start(peers: [bob.peerAddress])
            try await waitUntil(timeout: 30, "the laptop to read the group from Bob") {
                try Linked.message("before the laptop", in: Linked.history(laptop.data, with: team)) != nil
            }

            // It writes there as Alice: Carol, who never met the laptop, sees it from Alice.
            let sent = try laptop.cli(["send", team, "from Alice's laptop"])
            #expect(sent.status == 0, "\(sent.stderr)")
            try await waitUntil(timeout: 30, "Carol to have the laptop's message") {
                try Linked.message("from Alice's laptop", in: Linked.history(carol.data, with: team)) != nil
            }
            let atCarol = try #require(
                Linked.message("from Alice's laptop", in: Linked.history(carol.data, with: team)))
            #expect(atCarol["authorName"] as? String == "Alice")
            #expect(atCarol["author"] as? String == laptopKey)

            // A group Bob starts now with Alice and Carol names Alice only, and reaches the
            // laptop: its key is sealed to Alice's devices (§20.12).
            let after = try bob.cli([
                "new", "Alice", "Carol", "--title", "Later", "--message", "after the link", "--json",
            ])
            #expect(after.status == 0, "\(after.stderr)")
            let later = try #require((try after.json() as? [String: Any])?["id"] as? String)
            try await waitUntil(timeout: 30, "the laptop to read the group Bob made after the link") {
                try Linked.message("after the link", in: Linked.history(laptop.data, with: later)) != nil
            }
            let members = try bob.cli(["members", later, "--json"])
            #expect(members.status == 0, "\(members.stderr)")
            #expect(!members.stdout.contains(laptopKey), "the laptop is no member in its own right")
        }
    }
    /// The laptop starts a group in Alice's name (§20.11): Bob and Carol get it from the
    /// laptop as Alice's group, with Alice its first member and the laptop none; the desktop
    /// shows the laptop's first message as its own, and Carol's answer reaches both machines.
    @Test func theLaptopStartsAGroupAsAlice() async throws {
        try await Self.withAliceBobCarol { alice, bob, carol, laptop in
            let laptopKey = try await Linked.link(laptop, to: alice, name: "laptop")
            try laptop.start(peers: [alice.peerAddress, bob.peerAddress, carol.peerAddress])

            let made = try laptop.cli([
                "new", bob.key, carol.key, "--title", "From the laptop", "--message", "lunch at noon?", "--json",
            ])
            #expect(made.status == 0, "\(made.stderr)")
            let group = try #require((try made.json() as? [String: Any])?["id"] as? String)
            for node in [bob, carol, alice] {
                try await waitUntil(timeout: 30, "\(node.name) to have the laptop's group") {
                    try Linked.message("lunch at noon?", in: Linked.history(node.data, with: group)) != nil
                }
            }
            let atCarol = try #require(Linked.message("lunch at noon?", in: Linked.history(carol.data, with: group)))
            #expect(atCarol["authorName"] as? String == "Alice")
            let atDesktop = try #require(
                Linked.message("lunch at noon?", in: Linked.history(alice.data, with: group)))
            #expect(atDesktop["mine"] as? Bool == true)
            let members = try bob.cli(["members", group, "--json"])
            #expect(members.status == 0, "\(members.stderr)")
            #expect(members.stdout.contains(alice.key))
            #expect(!members.stdout.contains(laptopKey), "the laptop is no member in its own right")

            #expect(try carol.cli(["send", group, "noon works"]).status == 0)
            for node in [laptop, alice] {
                try await waitUntil(timeout: 30, "\(node.name) to have Carol's answer") {
                    try Linked.message("noon works", in: Linked.history(node.data, with: group)) != nil
                }
            }
        }
    }
}
