import ConfabTestSupport
import Foundation
import Testing

/// One person, several machines (issue 33), with real `confab` processes on 127.0.0.1 and
/// discovery off: Alice links a laptop to her running desktop node through
/// `confab devices link` and `confab init --link`, both answered through standard input
/// (Protocol.md §20.10). The laptop's node, which only ever meets Alice's desktop, then
/// reads Bob's conversation with Alice and writes in it as Alice (§20.11): Bob sees the
/// laptop's reply as Alice's, both of Alice's machines see it as hers, Bob keeps one peer
/// for Alice, and his read receipt reaches both of her machines.
@Suite(.serialized) struct LinkedDeviceNodeTests {
    /// Links `laptop` to `desktop` (which may be running its node) through `confab devices
    /// link` and `confab init --link NAME`, both people saying yes to the same words; returns
    /// the laptop's own key.
    static func link(_ laptop: NodeProcess, to desktop: NodeProcess, name: String) async throws -> String {
        let offer = try InteractiveProcess(data: desktop.data, ["devices", "link", "--no-discovery"])
        defer { offer.terminate() }
        try await offer.waitFor("Waiting for the new machine")
        let code = try #require(offer.output.firstMatch(of: /Link code: ([0-9A-Z]{5}-[0-9A-Z]{5})/)?.1)
        let offerPort = try #require(offer.output.firstMatch(of: /--peer \S+:(\d+)/)?.1)
        let join = try InteractiveProcess(
            data: laptop.data, ["init", "--link", String(code), "--peer", "127.0.0.1:\(offerPort)", "--name", name])
        defer { join.terminate() }
        try await join.waitFor("[y/N]")
        try await offer.waitFor("[y/N]")
        let words = try #require(join.output.firstMatch(of: /Words: ([a-z ]+)\n/)?.1)
        #expect(offer.output.firstMatch(of: /Words: ([a-z ]+)\n/)?.1 == words)
        try join.send("y")
        try offer.send("y")
        #expect(try await join.waitForExit() == 0, "\(join.output)")
        #expect(try await offer.waitForExit() == 0, "\(offer.output)")
        let whoami = try #require(try laptop.cli(["whoami", "--json"]).json() as? [String: Any])
        let laptopKey = try #require(whoami["id"] as? String)
        #expect(whoami["person"] as? String == desktop.key)
        #expect(laptopKey != desktop.key)
        return laptopKey
    }

    /// `history PEER --json` in the data directory `data`, marking nothing read.
    static func history(_ data: URL, with peer: String) throws -> [[String: Any]] {
        let result = try ConfabBinary.run(data: data, ["history", peer, "--json", "--no-mark-read"])
        guard result.status == 0 else { return [] }
        return (try? result.json() as? [[String: Any]]) ?? []
    }

    /// The unread count `list --json` shows for `conversation` in the data directory `data`.
    private static func unread(_ conversation: String, in data: URL) throws -> Int {
        let listed = try ConfabBinary.run(data: data, ["list", "--json"])
        let conversations = (try? listed.json() as? [[String: Any]]) ?? []
        return conversations.first { $0["id"] as? String == conversation }?["unread"] as? Int ?? -1
    }

    /// Every conversation `list --json --all` shows in the data directory `data`.
    private static func listed(in data: URL) throws -> [[String: Any]] {
        let listed = try ConfabBinary.run(data: data, ["list", "--json", "--all"])
        return (try? listed.json() as? [[String: Any]]) ?? []
    }

    static func message(_ text: String, in history: [[String: Any]]) -> [String: Any]? {
        history.first { $0["text"] as? String == text }
    }

    @Test func aLinkedLaptopReadsAndWritesAsItsPersonWithBobAndAlicesDesktop() async throws {
        let nodes = try DeviceNodeFixture()
        let (alice, bob, laptop) = (nodes.alice, nodes.bob, nodes.laptop)
        defer { nodes.stop() }
        // A wait that times out says what each node logged.
        do {
            try await nodes.meet()

            // Alice links the laptop while her desktop node runs.
            let laptopKey = try await Self.link(laptop, to: alice, name: "laptop")

            // The laptop meets Alice's desktop only, and gets Bob's conversation from it.
            try laptop.start(peers: [alice.peerAddress])
            try await waitUntil(timeout: 30, "the laptop to have Bob's message") {
                try Self.message("hello from Bob", in: Self.history(laptop.data, with: "Bob")) != nil
            }
            let fromBob = try #require(Self.message("hello from Bob", in: Self.history(laptop.data, with: "Bob")))
            #expect(fromBob["authorName"] as? String == "Bob")
            #expect(fromBob["author"] as? String == bob.key)
            #expect(fromBob["mine"] as? Bool == false)
            let conversation = try #require(fromBob["conversation"] as? String)
            try await waitUntil(timeout: 30, "the laptop's list to show the conversation") {
                let listed = try laptop.cli(["list", "--json"])
                let conversations = (try? listed.json() as? [[String: Any]]) ?? []
                return conversations.contains { $0["id"] as? String == conversation }
            }

            // The laptop's reply is Alice's at Bob, and hers on both of her machines.
            let sent = try laptop.cli(["send", "Bob", "reply from laptop"])
            #expect(sent.status == 0, "\(sent.stderr)")
            try await waitUntil(timeout: 30, "Bob to have the laptop's reply") {
                try Self.message("reply from laptop", in: Self.history(bob.data, with: "Alice")) != nil
            }
            let atBob = try #require(Self.message("reply from laptop", in: Self.history(bob.data, with: "Alice")))
            #expect(atBob["conversation"] as? String == conversation)
            #expect(atBob["author"] as? String == laptopKey, "written with the laptop's own key")
            #expect(atBob["authorName"] as? String == "Alice", "the person, not the laptop")
            #expect(atBob["mine"] as? Bool == false)
            try await waitUntil(timeout: 30, "Alice's desktop to have the laptop's reply") {
                try Self.message("reply from laptop", in: Self.history(alice.data, with: "Bob")) != nil
            }
            let atDesktop = try #require(Self.message("reply from laptop", in: Self.history(alice.data, with: "Bob")))
            #expect(atDesktop["mine"] as? Bool == true)
            let onLaptop = try #require(Self.message("reply from laptop", in: Self.history(laptop.data, with: "Bob")))
            #expect(onLaptop["mine"] as? Bool == true)

            // Bob, holding a message the laptop wrote, still knows one Alice: her person key,
            // with no second entry for the laptop's key.
            let bobsPeers = try bob.listedPeers()
            #expect(bobsPeers.keys.sorted() == [alice.key], "\(bobsPeers)")
            #expect(bobsPeers[laptopKey] == nil)
            #expect(bobsPeers.values.filter { ($0["name"] as? String)?.hasPrefix("Alice") == true }.count == 1)

            // Bob has not read it yet; once he does, both of Alice's machines see "read".
            #expect(atDesktop["status"] as? String != "read")
            let read = try bob.cli(["mark-read", "Alice"])
            #expect(read.status == 0, "\(read.stderr)")
            try await waitUntil(timeout: 30, "the laptop's reply to be read on the laptop and Alice's desktop") {
                try [laptop.data, alice.data].allSatisfy { data in
                    try Self.message("reply from laptop", in: Self.history(data, with: "Bob"))?["status"] as? String
                        == "read"
                }
            }

            // Alice reads Bob's next message on the laptop: the desktop's unread count for
            // the conversation goes to 0 (§20.14), and Bob sees it read.
            #expect(try bob.cli(["send", "Alice", "second from Bob"]).status == 0)
            try await waitUntil(timeout: 30, "both of Alice's machines to count Bob's message unread") {
                try [laptop.data, alice.data].allSatisfy { try Self.unread(conversation, in: $0) > 0 }
                    && Self.message("second from Bob", in: Self.history(laptop.data, with: "Bob")) != nil
            }
            let readOnLaptop = try laptop.cli(["mark-read", "Bob"])
            #expect(readOnLaptop.status == 0, "\(readOnLaptop.stderr)")
            #expect(try Self.unread(conversation, in: laptop.data) == 0)
            try await waitUntil(timeout: 30, "the desktop's unread count to clear after the laptop read") {
                try Self.unread(conversation, in: alice.data) == 0
            }
            try await waitUntil(timeout: 30, "Bob to see his message read") {
                try Self.message("second from Bob", in: Self.history(bob.data, with: "Alice"))?["status"] as? String
                    == "read"
            }

            // Alice's settings travel in her personal conversation (§20.15), which neither
            // machine lists: a pin on the desktop pins on the laptop, a mute on the laptop
            // mutes on the desktop.
            #expect(try alice.cli(["pin", "Bob"]).status == 0)
            try await waitUntil(timeout: 30, "the laptop to show the desktop's pin") {
                try Self.listed(in: laptop.data).first { $0["id"] as? String == conversation }?["pinned"] as? Bool
                    == true
            }
            #expect(try laptop.cli(["mute", "Bob"]).status == 0)
            try await waitUntil(timeout: 30, "the desktop to show the laptop's mute") {
                try Self.listed(in: alice.data).first { $0["id"] as? String == conversation }?["muted"] as? Bool
                    == true
            }
            for data in [alice.data, laptop.data] {
                #expect(try Self.listed(in: data).compactMap { $0["id"] as? String } == [conversation])
            }
        } catch {
            throw ConfabBinary.Failure(
                "\(error)\nAlice's desktop logged:\n\(alice.log.suffix(6000))\nBob logged:\n\(bob.log.suffix(3000))"
                    + "\nthe laptop logged:\n\(laptop.log.suffix(6000))")
        }
    }
}

extension NodeProcess {
    /// A linked machine's node: `confab up` with discovery and the web app off, dialling
    /// `peers`.
    func start(peers: [String]) throws {
        try start(discovery: false, extra: ["--no-web"] + peers.flatMap { ["--peer", $0] })
    }
}
