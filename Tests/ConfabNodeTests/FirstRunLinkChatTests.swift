import ConfabTestSupport
import Foundation
import Testing

/// Linking a new machine from the full-screen chat's first run (issue 33 §1, §5): Alice's
/// node runs with a conversation with Bob, `confab devices link` offers a code for her, and
/// `confab chat` on a machine with no identity, in tmux, is given the code instead of a name
/// and the offer's address (discovery off: no beacons on the host's loopback). Both sides
/// show the same words, both say yes, and the chat opens as Alice's new device, showing her
/// conversation, which only her desktop could have given it.
@Suite(.serialized) struct FirstRunLinkChatTests {
    @Test func theCodeTypedAtTheFirstRunLinksThisMachineAndTheChatShowsAlicesConversation() async throws {
        try #require(Tmux.isAvailable, "the chat test needs tmux (make test-deps installs it)")
        let root = try temporaryRoot()
        let tmux = Tmux(directory: root)
        let nodes = try NodeProcess.acquainted(["Alice", "Bob"], root: root)
        let alice = nodes[0]
        defer {
            tmux.stop()
            try? alice.stop()
        }
        let first = "sent from desktop"
        #expect(try alice.cli(["new", "Bob", "--message", first]).status == 0)
        try alice.start(discovery: false, extra: ["--no-web"])

        let offer = try InteractiveProcess(
            data: alice.data, ["devices", "link", "--no-discovery", "--no-qr", "--timeout", "120"])
        defer { offer.terminate() }
        try await offer.waitFor("Waiting for the new machine")
        let code = try #require(offer.output.firstMatch(of: /Link code: ([0-9A-Z]{5}-[0-9A-Z]{5})/)?.1)
        let offerPort = try #require(offer.output.firstMatch(of: /--peer \S+:(\d+)/)?.1)

        let laptop = root.appendingPathComponent("laptop")
        try tmux.start(
            session: "laptop", width: 110, height: 30,
            command: "\(ConfabBinary.url.path) --data \(laptop.path) chat --listen 127.0.0.1:0 --no-discovery "
                + "--no-web --peer \(alice.peerAddress)",
            environment: ["TERM": "xterm-256color", "LANG": "C.UTF-8", "USER": "laptopuser"])
        try await tmux.waitFor("laptop", text: "Your display name (Enter for \"laptopuser\")")
        #expect(try tmux.screen("laptop").contains { $0.contains("\"confab devices link\"") })
        try tmux.type(String(code).lowercased(), into: "laptop")
        try tmux.press("Enter", in: "laptop")
        // A code of letters only could be a name too, and the first run asks which.
        let asked = try await tmux.waitFor("laptop", "the question for the offer's address") { screen in
            screen.contains { $0.contains("The other machine's address") || $0.contains("could be a name or") }
        }
        if asked.contains(where: { $0.contains("could be a name or") }) {
            try tmux.type("y", into: "laptop")
            try tmux.press("Enter", in: "laptop")
            try await tmux.waitFor("laptop", text: "The other machine's address")
        }
        try tmux.type("127.0.0.1:\(offerPort)", into: "laptop")
        try tmux.press("Enter", in: "laptop")

        let screen = try await tmux.waitFor("laptop", text: "Do these words match the other machine? [y/N]")
        try await offer.waitFor("[y/N]")
        let wordsLine = try #require(screen.first { $0.hasPrefix("Words: ") })
        let words = String(wordsLine.dropFirst("Words: ".count)).trimmingCharacters(in: .whitespaces)
        #expect(words.split(separator: " ").count == 5)
        #expect(offer.output.contains("Words: \(words)\n"), "\(offer.output)")
        try tmux.type("y", into: "laptop")
        try tmux.press("Enter", in: "laptop")
        try offer.send("y")
        #expect(try await offer.waitForExit() == 0, "\(offer.output)")
        #expect(offer.output.contains("Linked "))

        // The chat opens full screen as Alice's device and gets the conversation from her
        // desktop, her message in it hers ("You:"): a new person of its own would have none.
        try await tmux.waitFor("laptop", timeout: 60, "Alice's conversation with Bob in the chat") { screen in
            screen.contains { $0.contains("You: \(first)") }
        }
        try tmux.type("q", into: "laptop")
        try await tmux.waitFor("laptop", text: "[exited 0]")
        let whoami = try #require(try ConfabBinary.run(data: laptop, ["whoami", "--json"]).json() as? [String: Any])
        #expect(whoami["person"] as? String == alice.key)
        #expect(whoami["id"] as? String != alice.key)
    }
}
