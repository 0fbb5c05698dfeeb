import ConfabClient
import ConfabCrypto
import ConfabModel
import ConfabNode
import ConfabTestSupport
import Foundation
import Logging
import NIOConcurrencyHelpers
import Testing

@testable import ConfabTUI

/// The plain chat in this process, with real nodes on loopback: what it writes goes through
/// its messenger and reaches the peer; what the peer writes comes back as lines.
@Suite struct PlainChatInProcessTests {
    @Test func linesGoOutThroughTheMessengerAndRepliesComeBack() async throws {
        let pair = try await PlainChatPair()
        defer { pair.remove() }
        let (bob, bobEvents, input) = (pair.bob, pair.bobEvents, pair.input)
        let waitFor = pair.waitFor
        try await waitFor("* bob is online")
        input.yield("/new bob")
        try await waitFor("new conversation with bob")
        input.yield("hello from plain")
        var arrived: ChatMessage?
        for await event in bobEvents {
            if case .message(let message) = event, message.text == "hello from plain" {
                arrived = message
                break
            }
        }
        let message = try #require(arrived)
        _ = try await bob.messenger.send("hello back", to: .conversation(message.conversationID))
        try await waitFor("bob: hello back")

        // /edit and /unsend act on my latest message; the peer's edit shows as a line.
        var bobSees = bobEvents.makeAsyncIterator()
        input.yield("/edit hello from plain, edited")
        try await waitFor("You (edited): hello from plain, edited")
        var edited: ChatMessage?
        while let event = await bobSees.next() {
            if case .edited(let message) = event { edited = message }
            if edited != nil { break }
        }
        #expect(edited?.text == "hello from plain, edited")
        #expect(edited?.seq == message.seq)
        let backSeq = try #require(try bob.local.store.lastOwnMessageSeq(in: message.conversationID))
        _ = try await bob.messenger.edit(backSeq, in: message.conversationID, text: "hello back, edited")
        try await waitFor("bob edited: hello back, edited")
        input.yield("/history")
        try await waitFor("bob: hello back, edited (edited)")
        input.yield("/unsend")
        try await waitFor("Deleted for everyone: hello from plain, edited")
        var deleted: ChatMessage?
        while let event = await bobSees.next() {
            if case .deleted(let message) = event { deleted = message }
            if deleted != nil { break }
        }
        #expect(deleted?.isDeleted == true)
        #expect(deleted?.text == nil)
        input.yield("/unsend")
        try await waitFor("you have no message here to change")

        // /reply and /react act on the newest message from someone else unless told.
        let bobsMessage = MessageRef(author: bob.me, seq: backSeq)
        input.yield("/reply sounds good")
        try await waitFor("You (↪ bob: hello back, edited): sounds good")
        var reply: ChatMessage?
        while let event = await bobSees.next() {
            if case .message(let message) = event, message.text == "sounds good" { reply = message }
            if reply != nil { break }
        }
        #expect(reply?.replyTo?.ref == bobsMessage)
        input.yield("/react 👍")
        try await waitFor("You reacted 👍 to bob's message: hello back, edited")
        var reacted: ReactionChange?
        while let event = await bobSees.next() {
            if case .reaction(let message, let change) = event, message.ref == bobsMessage { reacted = change }
            if reacted != nil { break }
        }
        #expect(reacted?.emoji == "👍" && reacted?.removed == false)
        // Bob's reaction and reply to it come back as lines.
        let replyRef = try #require(reply).ref
        _ = try await bob.messenger.react("❤️", to: replyRef, in: message.conversationID, removed: false)
        try await waitFor("bob reacted ❤️ to your message: sounds good")
        _ = try await bob.messenger.send("great", to: .conversation(message.conversationID), replyTo: replyRef)
        try await waitFor("bob (↪ You: sounds good): great")
        input.yield("/unreact ^3 👍")
        try await waitFor("You took back 👍 from bob's message: hello back, edited")
        input.yield("/history")
        try await waitFor("You (↪ bob: hello back, edited): sounds good [❤️ 1 bob]")
        input.yield("/react ^9 👍")
        try await waitFor("there are not 9 messages here")
        input.yield("/react ^1 yes")
        try await waitFor("is not one emoji")
        // Membership: the thread becomes a group of three, then alice leaves it.
        let carol = NodeID(SigningKeyPair.generate().publicKey)
        try pair.alice.store.savePeer(carol, name: "carol")
        input.yield("/members")
        try await waitFor("You (admin)")
        input.yield("/add carol")
        try await waitFor("* You added carol")
        var change: ChatMessage?
        while let event = await bobSees.next() {
            if case .members(let line) = event { change = line }
            if change != nil { break }
        }
        #expect(change?.systemLine?.hasPrefix("alice added ") == true)
        #expect(try bob.local.store.participants(of: message.conversationID).contains(carol))
        input.yield("/remove bob carol")
        try await waitFor("* You removed bob, carol")
        input.yield("/leave")
        try await waitFor("* You left")
        input.yield("/members")
        try await waitFor("You are no longer a member of this conversation")
        await pair.quit()
        #expect(!ControlServer.mightBeRunning(pair.aliceOptions.directory), "the chat's own node stopped with it")
    }
}

extension PlainChatInProcessTests {
    /// `/rooms` and `/join NAME` in the plain chat: the room Bob joined is listed, joining
    /// opens it, and a line goes to Bob in it.
    @Test func roomsAreListedJoinedAndWrittenIn() async throws {
        let pair = try await PlainChatPair()
        defer { pair.remove() }
        let (bob, bobEvents, input) = (pair.bob, pair.bobEvents, pair.input)
        let waitFor = pair.waitFor
        try await waitFor("* bob is online")
        let room = try await bob.messenger.perform(Operations.Join(RoomName(exactly: "general")!))
        // Bob's list reaches alice's node on its own time: asked again until it did (a
        // bounded poll of a positive event).
        let listed = "#general  not joined, 1 in session in it"
        for _ in 0..<100 where !pair.written.withLockedValue({ $0.contains(listed) }) {
            input.yield("/rooms")
            try await Task.sleep(for: .milliseconds(100))
        }
        try await waitFor(listed)
        input.yield("/join nope!")
        try await waitFor("a room name is")
        input.yield("/join general")
        try await waitFor("joined #general")
        input.yield("hello room")
        for await event in bobEvents {
            if case .message(let message) = event, message.text == "hello room" {
                #expect(message.conversationID == room.conversation)
                break
            }
        }
        await pair.quit()
    }
}

/// Alice in the plain chat (with a node of its own) and Bob's node, in this process on
/// loopback, Alice dialling Bob; what the chat writes is collected.
struct PlainChatPair {
    let root: URL
    let bob: Node
    let bobEvents: AsyncStream<NodeEvent>
    let alice: Profile
    let aliceOptions: NodeOptions
    let input: AsyncStream<String>.Continuation
    let written: NIOLockedValueBox<[String]>
    let running: Task<Void, Never>

    init() async throws {
        let root = try ConfabBinary.temporaryDirectory("confab-plain")
        self.root = root
        func options(_ name: String, peers: [String] = []) -> NodeOptions {
            var options = NodeOptions(directory: DataDirectory(url: root.appendingPathComponent(name)))
            options.listenHost = "127.0.0.1"
            options.listenPort = 0
            options.discovery = false
            options.staticPeers = peers
            options.logger.logLevel = .critical
            return options
        }
        let bobOptions = options("bob")
        let bob = try Node(options: bobOptions, local: Profile.initialize(bobOptions.directory, name: "bob"))
        self.bob = bob
        let address = try await bob.start()
        bobEvents = bob.events()
        let aliceOptions = options("alice", peers: ["\(bob.me.hex)@127.0.0.1:\(address.port!)"])
        self.aliceOptions = aliceOptions
        let alice = try Profile.initialize(aliceOptions.directory, name: "alice")
        self.alice = alice
        try alice.store.savePeer(bob.me, name: "bob")
        let written = NIOLockedValueBox<[String]>([])
        self.written = written
        let chat = PlainChat(
            local: alice, options: aliceOptions, write: { line in written.withLockedValue { $0.append(line) } })
        let (lines, input) = AsyncStream.makeStream(of: String.self)
        self.input = input
        running = Task { await chat.run(lines: lines) }
    }

    /// Waits until the chat has written a line containing `text`, for at most 60 s (a
    /// ceiling: the in-process suite runs every suite at once on 2 cores, and in one CI run
    /// a session took more than 20 s to open under that load).
    var waitFor: @Sendable (String) async throws -> Void {
        { [written] text in
            let deadline = ContinuousClock.now + .seconds(60)
            while !written.withLockedValue({ $0.contains { $0.contains(text) } }) {
                guard ContinuousClock.now < deadline else {
                    throw PlainChatFailure("no line with \"\(text)\" in \(written.withLockedValue { $0 })")
                }
                try await Task.sleep(for: .milliseconds(20))
            }
        }
    }

    func quit() async {
        input.yield("/quit")
        await running.value
        await bob.stop()
    }

    func remove() { try? FileManager.default.removeItem(at: root) }
}

struct PlainChatFailure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
