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
        try await checkDevicesBox(tmux, alice: alice)
        try tmux.type("q", into: "laptop")
        try await tmux.waitFor("laptop", text: "[exited 0]")
        let whoami = try #require(try ConfabBinary.run(data: laptop, ["whoami", "--json"]).json() as? [String: Any])
        #expect(whoami["person"] as? String == alice.key)
        #expect(whoami["id"] as? String != alice.key)
    }

    /// `D` on the list (the just-linked machine has no conversation open) shows both of
    /// Alice's machines, one a line: her desktop with the person key, and this one. Only the
    /// desktop removes, so `r` here says so and removes nothing; Esc closes the box. Then
    /// `/devices` typed in the conversation shows the same box.
    private func checkDevicesBox(_ tmux: Tmux, alice: NodeProcess) async throws {
        try tmux.type("D", into: "laptop")
        let desktopPrint = alice.key.prefix(16).chunked4
        let box = try await tmux.waitFor("laptop", "the device box with both machines") { screen in
            screen.contains { $0.contains(desktopPrint) && $0.contains("person key") }
                && screen.contains { $0.contains("this device") }
        }
        #expect(box.contains { $0.contains("Your devices") }, "\(box)")
        #expect(box.filter { $0.contains("this device") || $0.contains("person key") }.count == 2, "\(box)")
        try tmux.type("r", into: "laptop")
        try await tmux.waitFor("laptop", text: "Only the machine that holds your person key")
        try tmux.press("Escape", in: "laptop")
        try await tmux.waitFor("laptop", "the box closed") { screen in
            !screen.contains { $0.contains("Your devices") } && screen.contains { $0.contains("You: ") }
        }
        // The same box from the input bar of the conversation, opened with Enter.
        try tmux.press("Enter", in: "laptop")
        try await tmux.waitFor("laptop", text: "Enter send")
        try tmux.type("/devices", into: "laptop")
        try tmux.press("Enter", in: "laptop")
        let typed = try await tmux.waitFor("laptop", "the device box from /devices") { screen in
            screen.contains { $0.contains(desktopPrint) && $0.contains("person key") }
        }
        #expect(typed.contains { $0.contains("this device") }, "\(typed)")
        try tmux.press("Escape", in: "laptop")
        try await tmux.waitFor("laptop", "the box closed over the chat") { screen in
            !screen.contains { $0.contains("Your devices") } && screen.contains { $0.contains("Enter send") }
        }
        try tmux.press("Escape", in: "laptop")
        try await tmux.waitFor("laptop", text: "q quit")
    }
}

extension Substring {
    /// "1e2a137c…" as a fingerprint writes it: "1e2a 137c …".
    fileprivate var chunked4: String {
        stride(from: 0, to: count, by: 4).map { offset in
            let start = index(startIndex, offsetBy: offset)
            return String(self[start..<(index(start, offsetBy: 4, limitedBy: endIndex) ?? endIndex)])
        }.joined(separator: " ")
    }
}
