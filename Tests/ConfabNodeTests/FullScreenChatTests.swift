import ConfabTestSupport
import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// The real full-screen chat, each person's in a tmux session of its own, driven by
/// send-keys and read by capture-pane: what a person sees and types, end to end, with
/// real nodes on loopback.
@Suite struct FullScreenChatTests {
    let root: URL
    let tmux: Tmux
    let discovery: DiscoveryPort

    init() throws {
        try #require(Tmux.isAvailable, "the chat tests need tmux (make test-deps installs it)")
        root = try temporaryRoot()
        discovery = try DiscoveryPort()
        tmux = Tmux(directory: root)
    }

    /// Starts `confab chat` for `node` in a tmux session named after it (files it saves go
    /// to `downloads`, when given).
    func openChat(
        _ node: NodeProcess, width: Int = 100, height: Int = 30, discovery: Bool = true, downloads: URL? = nil
    ) throws {
        let network =
            discovery
            ? "--discovery-port \(self.discovery.number) --beacon 127.255.255.255:\(self.discovery.number)"
            : "--no-discovery"
        try tmux.start(
            session: node.name, width: width, height: height,
            command: "\(ConfabBinary.url.path) --data \(node.data.path) chat --listen 127.0.0.1:0 \(network)",
            environment: ["TERM": "xterm-256color", "LANG": "C.UTF-8"].merging(
                downloads.map { ["XDG_DOWNLOAD_DIR": $0.path] } ?? [:]
            ) { _, new in new })
    }

    func pair() throws -> (NodeProcess, NodeProcess) {
        let nodes = try NodeProcess.acquainted(["alice", "bob"], root: root, discovery: discovery)
        return (nodes[0], nodes[1])
    }

    @Test func aMessageTypedInOneChatAppearsInTheOtherAndIsMarkedRead() async throws {
        defer { tmux.stop() }
        let (alice, bob) = try pair()
        try openChat(alice)
        try openChat(bob)
        try await tmux.waitFor("alice", text: "No conversations yet")
        try await tmux.waitFor("alice", text: "Online · 1 peer")

        try await newConversationWithBob()
        try tmux.type("hello from alice", into: "alice")
        try tmux.press("Enter", in: "alice")
        try await tmux.waitFor("alice", text: "delivered ✓✓")

        // Bob's list shows it with an unread badge; opening it marks it read.
        let bobList = try await tmux.waitFor("bob", text: "hello from alice")
        #expect(bobList.contains { $0.contains("alice") && !$0.contains("You:") })
        try tmux.press("Enter", in: "bob")
        try await tmux.waitFor("alice", text: "read ✓✓")

        try tmux.type("hi alice — 你好 🎉", into: "bob")
        try tmux.press("Enter", in: "bob")
        let aliceScreen = try await tmux.waitFor("alice", text: "hi alice — 你好 🎉")
        // Mine on the right, theirs on the left.
        let mine = try #require(aliceScreen.first { $0.contains("hello from alice") })
        let theirs = try #require(aliceScreen.first { $0.contains("hi alice") })
        #expect(mine.firstRange(of: "hello")!.lowerBound > theirs.firstRange(of: "hi alice")!.lowerBound)
    }

    /// Both chats open; Alice starts a thread with Bob (Ctrl+K) saying `first`, and Bob opens
    /// it, which Alice sees as read.
    @discardableResult
    func openThread(saying first: String) async throws -> (NodeProcess, NodeProcess) {
        let (alice, bob) = try pair()
        try openChat(alice)
        try openChat(bob)
        try await tmux.waitFor("alice", text: "Online · 1 peer")
        try await newConversationWithBob()
        try tmux.type(first, into: "alice")
        try tmux.press("Enter", in: "alice")
        try await tmux.waitFor("bob", text: first)
        try tmux.press("Enter", in: "bob")
        try await tmux.waitFor("alice", text: "read ✓✓")
        return (alice, bob)
    }

    @Test func editAndDeleteForEveryoneFromTheChat() async throws {
        defer { tmux.stop() }
        try await openThread(saying: "see you at 5")

        // Ctrl+E selects my newest message; e puts its text in the input bar.
        try tmux.press("C-e", in: "alice")
        try await tmux.waitFor("alice", text: "e edit · d delete for everyone")
        try tmux.type("e", into: "alice")
        try await tmux.waitFor("alice", text: "Editing your message")
        try tmux.press("BSpace", in: "alice")
        try tmux.type("6", into: "alice")
        try tmux.press("Enter", in: "alice")
        let edited = try await tmux.waitFor("bob", text: "see you at 6")
        #expect(edited.contains { $0.contains("edited") })
        #expect(!edited.contains { $0.contains("see you at 5") })

        // d asks first; only y deletes, for everyone.
        try tmux.press("C-e", in: "alice")
        try await tmux.waitFor("alice", text: "e edit · d delete for everyone")
        try tmux.type("d", into: "alice")
        try await tmux.waitFor("alice", text: "Delete this message for everyone?")
        try tmux.type("y", into: "alice")
        let deleted = try await tmux.waitFor("bob", text: "message deleted")
        #expect(!deleted.contains { $0.contains("see you at") })
        try await tmux.waitFor("alice", text: "message deleted")
    }

    /// Alice types, Bob's header says so; emptying the input or sending clears it. With
    /// Ctrl+T off (kept in Alice's store) nothing is sent: Bob's node reports no typing
    /// before Alice's next message, which travels on the same session after it.
    @Test func theHeaderSaysWhoIsTypingAndCtrlTTurnsItOff() async throws {
        defer { tmux.stop() }
        let (alice, bob) = try await openThread(saying: "hello")

        try tmux.type("are you th", into: "alice")
        try await tmux.waitFor("bob", text: "─ alice is typing… ─")
        for _ in 0..<10 { try tmux.press("BSpace", in: "alice") }
        try await tmux.waitFor("bob", "the indicator gone with the text") { screen in
            !screen.contains { $0.contains("is typing") }
        }
        try tmux.type("are you there?", into: "alice")
        try await tmux.waitFor("bob", text: "alice is typing…")
        try tmux.press("Enter", in: "alice")
        try await tmux.waitFor("bob", "the message, and no indicator") { screen in
            screen.contains { $0.contains("are you there?") } && !screen.contains { $0.contains("is typing") }
        }

        let watch = try EventWatch(bob)
        defer { watch.stop() }
        try await watch.waitUntilSubscribed()
        try tmux.press("C-t", in: "alice")
        try await tmux.waitFor("alice", text: "Typing indicators off")
        try tmux.type("quietly", into: "alice")
        try tmux.press("Enter", in: "alice")
        try await watch.waitFor("the message typed quietly") { events in
            events.contains { ($0["message"] as? [String: Any])?["text"] as? String == "quietly" }
        }
        #expect(!watch.events.contains { $0["event"] as? String == "typing" }, "\(watch.text)")
        let setting = try alice.cli(["typing", "--json"])
        #expect(try setting.json() as? [String: Bool] == ["typingIndicators": false])
    }

    @Test func replyAndReactFromTheChat() async throws {
        defer { tmux.stop() }
        try await openThread(saying: "lunch at noon?")

        // Bob: Ctrl+E selects the newest message (Alice's), r replies to it.
        try tmux.press("C-e", in: "bob")
        try await tmux.waitFor("bob", text: "alice's message: r reply · + react")
        try tmux.type("r", into: "bob")
        try await tmux.waitFor("bob", text: "↪ Replying to alice: lunch at noon?")
        try tmux.type("yes, the usual place", into: "bob")
        try tmux.press("Enter", in: "bob")
        let quoted = try await tmux.waitFor("alice", text: "yes, the usual place")
        #expect(quoted.contains { $0.contains("↪ You: lunch at noon?") }, "the reply quotes Alice's message")

        // Alice: Ctrl+E selects Bob's reply, + opens the picker, 1 reacts 👍.
        try tmux.press("C-e", in: "alice")
        try await tmux.waitFor("alice", text: "bob's message: r reply · + react · g original")
        try tmux.type("+", into: "alice")
        try await tmux.waitFor("alice", text: "Or type one:")
        try tmux.type("1", into: "alice")
        try await tmux.waitFor("bob", text: "👍 1 alice")
        try await tmux.waitFor("alice", text: "👍 1 You")

        // g on the reply selects the message it quotes: Alice's own.
        try tmux.press("C-e", in: "alice")
        try await tmux.waitFor("alice", text: "g original")
        try tmux.type("g", into: "alice")
        try await tmux.waitFor("alice", text: "Your message: r reply")
        try tmux.press("Escape", in: "alice")

        // Bob takes nothing back but adds ❤️ by typing it into the picker.
        try tmux.press("C-e", in: "bob")
        try await tmux.waitFor("bob", text: "Your message: r reply")
        try tmux.type("+", into: "bob")
        try await tmux.waitFor("bob", text: "Or type one:")
        try tmux.type("❤", into: "bob")
        try tmux.press("Enter", in: "bob")
        try await tmux.waitFor("alice", text: "👍 1 You · ❤️ 1 bob")
    }

    @Test func aFileAttachedInTheChatArrivesAndIsSavedWithEnter() async throws {
        defer { tmux.stop() }
        let (alice, bob) = try pair()
        let downloads = root.appendingPathComponent("bob-downloads")
        try FileManager.default.createDirectory(at: downloads, withIntermediateDirectories: true)
        let source = root.appendingPathComponent("outbox/slides.pdf")
        try FileManager.default.createDirectory(
            at: source.deletingLastPathComponent(), withIntermediateDirectories: true)
        let bytes = (0..<4_000_000).map { UInt8(truncatingIfNeeded: $0 &* 2_654_435_761 >> 7) }
        try Data(bytes).write(to: source)
        try openChat(alice)
        try openChat(bob, downloads: downloads)
        try await tmux.waitFor("alice", text: "Online · 1 peer")
        try await newConversationWithBob()

        // /file and Tab: the path completes in the input bar; Enter sends it.
        try tmux.type("/file \(source.deletingLastPathComponent().path)/sl", into: "alice")
        try tmux.press("Tab", in: "alice")
        try await tmux.waitFor("alice", text: "slides.pdf")
        try tmux.press("Enter", in: "alice")
        try await tmux.waitFor("alice", text: "📎 slides.pdf · 4.0 MB · application/pdf")
        try await tmux.waitFor("alice", text: "✓ every recipient has it")

        // Bob's chat shows it received; Ctrl+E picks it and Enter saves it.
        try await tmux.waitFor("bob", text: "slides.pdf")
        try tmux.press("Enter", in: "bob")
        try await tmux.waitFor("bob", text: "received — save it: Ctrl+E, Enter")
        try tmux.press("C-e", in: "bob")
        try await tmux.waitFor("bob", text: "Enter save")
        try tmux.press("Enter", in: "bob")
        try await tmux.waitFor("bob", text: "Saved to \(downloads.path.prefix(40))")
        #expect([UInt8](try Data(contentsOf: downloads.appendingPathComponent("slides.pdf"))) == bytes)
    }

    /// Ctrl+K in Alice's chat: pick Bob, create; the new chat opens with the input focused.
    func newConversationWithBob() async throws {
        try tmux.press("C-k", in: "alice")
        try await tmux.waitFor("alice", text: "bob")
        try tmux.press("Space", in: "alice")
        try tmux.press("Enter", in: "alice")
        try await tmux.waitFor("alice", text: "Say hi to bob")
    }

    /// Esc, then wait for the list's key hints: a key sent within 25 ms of Esc would be
    /// read as Alt+key, as from a real terminal. The list on the screen shows that the
    /// chat has read the Esc by itself (the chat view's hints have no "q quit").
    func backToList(_ session: String = "alice") async throws {
        try tmux.press("Escape", in: session)
        try await tmux.waitFor(session, text: "q quit")
    }

    @Test func searchPinArchiveDeleteResizeAndQuit() async throws {
        defer { tmux.stop() }
        let (alice, _) = try pair()
        try alice.cli(["send", "bob", "lunch tomorrow at noon?"])
        try alice.cli(["new", "bob", "--title", "Trip planning"])
        try openChat(alice, discovery: false)
        try await tmux.waitFor("alice", text: "# Trip planning")

        // Search by message text; Enter opens the chat at the match.
        try tmux.type("/", into: "alice")
        try tmux.type("lunch", into: "alice")
        try await tmux.waitFor("alice", text: "lunch tomorrow at noon?")
        try tmux.press("Enter", in: "alice")
        try await tmux.waitFor("alice", "the chat with the match") { screen in
            screen.contains { $0.contains("lunch tomorrow at noon?") } && screen.contains { $0.contains("Message") }
        }
        try await backToList()

        // Pin the selected row (the chat just open), then archive it and show archived.
        try tmux.type("p", into: "alice")
        try await tmux.waitFor("alice", text: "📌")
        try tmux.type("a", into: "alice")
        try await tmux.waitFor("alice", "the archived row hidden") { screen in
            !screen.contains { $0.contains("You: lunch") }
        }
        try tmux.type("A", into: "alice")
        try await tmux.waitFor("alice", text: "(archived)")
        // Esc leaves the archived view (the inbox on the screen shows it was read by itself).
        try tmux.press("Escape", in: "alice")
        try await tmux.waitFor("alice", "the inbox again") { screen in !screen.contains { $0.contains("archived") } }

        // Delete asks first; only y deletes.
        try await tmux.waitFor("alice", text: "# Trip planning")
        try tmux.type("d", into: "alice")
        try await tmux.waitFor("alice", text: "Delete this conversation and its messages from this machine? y/N")
        try tmux.type("n", into: "alice")
        try await tmux.waitFor("alice", "the question gone, the thread kept") { screen in
            !screen.contains { $0.contains("Delete this conversation") }
                && screen.contains { $0.contains("Trip planning") }
        }
        try tmux.type("d", into: "alice")
        try await tmux.waitFor("alice", text: "y/N")
        try tmux.type("y", into: "alice")
        try await tmux.waitFor("alice", "the deleted thread gone") { screen in
            !screen.contains { $0.contains("Trip planning") }
        }

        // Narrow: one pane at a time; wide again: both.
        try tmux.resize("alice", width: 60, height: 20)
        let narrow = try await tmux.waitFor("alice", "the narrow layout") { screen in
            screen.contains { $0.contains("Conversations") } && !screen.contains { $0.contains("│") }
        }
        #expect(narrow.count == 20)
        try tmux.resize("alice", width: 100, height: 30)
        try await tmux.waitFor("alice", "the wide layout") { screen in screen.contains { $0.contains("│") } }

        // q from the list quits and gives the terminal back as it was (canonical, echo).
        // The shell prints the exit status, then `stty -a`: wait for the settings themselves.
        try tmux.type("q", into: "alice")
        let after = try await tmux.waitFor("alice", "the exit status and the terminal's settings") { screen in
            screen.contains { $0.contains("[exited 0]") } && screen.contains { $0.contains("icanon") }
                && screen.contains { $0.contains("echo") && !$0.contains("[exited") }
        }
        let settings = after.joined(separator: " ")
        #expect(settings.contains(" icanon") && !settings.contains("-icanon"))
        #expect(settings.contains(" echo ") && !settings.contains("-echo "))
    }

    /// `confab` with no options uses the product's defaults, which broadcast beacons on
    /// every interface: it runs here only inside a network namespace of its own that has
    /// nothing but loopback.
    @Test(.enabled(if: getuid() == 0, "needs root for a network namespace"))
    func theBareCommandOnATerminalAsksForANameThenOpensTheChat() async throws {
        defer { tmux.stop() }
        let namespace = "confab-chat-\(UInt32.random(in: 0...UInt32.max))"
        try Self.ip(["netns", "add", namespace])
        defer { _ = try? Self.ip(["netns", "delete", namespace]) }
        try Self.ip(["netns", "exec", namespace, "ip", "link", "set", "lo", "up"])
        let data = root.appendingPathComponent("dana")
        try tmux.start(
            session: "dana", width: 100, height: 30,
            command: "ip netns exec \(namespace) \(ConfabBinary.url.path) --data \(data.path)",
            environment: ["TERM": "xterm-256color", "LANG": "C.UTF-8", "USER": "dana"])
        try await tmux.waitFor("dana", text: "Your display name (Enter for \"dana\")")
        try tmux.type("Dana", into: "dana")
        try tmux.press("Enter", in: "dana")
        try await tmux.waitFor("dana", "the chat") { screen in
            screen.contains { $0.contains("No conversations yet") }
                && screen.contains { $0.contains("Dana · Offline — messages will be sent when a peer is reachable") }
        }
        try tmux.type("q", into: "dana")
        try await tmux.waitFor("dana", text: "[exited 0]")
        // No interface to broadcast on in there, and the log says what to do about it.
        let log = try String(contentsOf: data.appendingPathComponent("confab.log"), encoding: .utf8)
        #expect(log.contains("no interface to send beacons on"))
    }

    static func ip(_ arguments: [String]) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["ip"] + arguments
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw ConfabBinary.Failure("ip \(arguments.joined(separator: " ")) failed (\(process.terminationStatus))")
        }
    }
}

extension FullScreenChatTests {
    /// `/add` and `/leave` typed in the chat change the group, and both chats show the
    /// system lines in the history; `/members` answers in the status line.
    @Test func membershipCommandsInTheChatShowAsLinesInBothChats() async throws {
        defer { tmux.stop() }
        let nodes = try NodeProcess.acquainted(["alice", "bob", "carol"], root: root, discovery: discovery)
        let (alice, bob) = (nodes[0], nodes[1])
        try alice.cli(["new", "bob", "--title", "trip", "--message", "who else?"])
        try openChat(alice)
        try openChat(bob)
        try await tmux.waitFor("alice", text: "Online · 1 peer")
        try await tmux.waitFor("bob", text: "who else?")
        try tmux.press("Enter", in: "alice")
        try await tmux.waitFor("alice", text: "Message —")
        try tmux.type("/add carol", into: "alice")
        try tmux.press("Enter", in: "alice")
        try await tmux.waitFor("alice", text: "You added carol")
        try tmux.press("Enter", in: "bob")
        try await tmux.waitFor("bob", text: "alice added carol")
        try tmux.type("/members", into: "bob")
        try tmux.press("Enter", in: "bob")
        try await tmux.waitFor("bob", text: "Members: alice (admin), You, carol")
        try tmux.type("/leave", into: "bob")
        try tmux.press("Enter", in: "bob")
        try await tmux.waitFor("alice", text: "bob left")
        try await tmux.waitFor("bob", text: "no longer a member")
    }
}
