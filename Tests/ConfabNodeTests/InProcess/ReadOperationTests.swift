import ConfabClient
import ConfabCrypto
import ConfabModel
import ConfabStore
import Foundation
import Testing

@testable import ConfabNode

/// The reads every front end makes, as operations: this process's handler, the node over
/// its control socket and an attached front end (from its own store) answer each alike, and
/// refuse bad params saying which.
@Suite(.serialized) struct ReadOperationTests {
    /// Alice and Bob in a conversation with some of everything a chat shows: an edited message, a
    /// reply, a reaction, a file, a change of members.
    private struct Scene {
        let nodes: InProcessNodes
        let alice: Node
        let bob: Node
        let id: ConversationID
        let first: MessageRef
        let reply: MessageRef
        let file: FileID
        let carol: NodeID

        init() async throws {
            nodes = try InProcessNodes()
            let pair = try await nodes.pair()
            alice = pair.alice
            bob = pair.bob
            let aliceEvents = alice.events()
            let bobEvents = bob.events()
            let sent = try await alice.messenger.send("pizza tonihgt?", to: .newConversation(with: bob.me))
            id = sent.conversation
            first = MessageRef(author: alice.me, seq: sent.seq)
            _ = try await firstEvent(in: bobEvents, "bob gets the message") {
                if case .message(let message) = $0 { return message.text == "pizza tonihgt?" }
                return false
            }
            _ = try await alice.messenger.edit(sent.seq, in: id, text: "pizza tonight?")
            let answer = try await bob.messenger.send("yes!", to: .conversation(id), replyTo: first)
            reply = MessageRef(author: bob.me, seq: answer.seq)
            _ = try await bob.messenger.react("👍", to: first, in: id, removed: false)
            let path = nodes.root.appendingPathComponent("menu.txt")
            try Data("margherita\n".utf8).write(to: path)
            file = try await bob.messenger.sendFile(at: path.path, folder: "", to: .conversation(id)).file
            _ = try await firstEvent(in: aliceEvents, "alice holds bob's file") { [file] in
                if case .file(let info) = $0 { return info.fileID == file && info.state == .complete }
                return false
            }
            carol = NodeID(SigningKeyPair.generate().publicKey)
            try alice.local.store.savePeer(carol, name: "carol")
            _ = try await alice.messenger.changeMembers(of: id, add: [carol], remove: [], shareHistory: false)
        }

        func stop() async {
            await bob.stop()
            await alice.stop()
            nodes.remove()
        }
    }

    /// The answer here, over the socket, and from an attached front end's own store: one.
    @discardableResult
    private func same<Operation: ReadOperation>(
        _ operation: Operation, _ alice: Node, _ attached: AttachedMessenger,
        sourceLocation: SourceLocation = #_sourceLocation
    ) async throws -> Operation.Answer where Operation.Answer: Equatable {
        let here = try await operation.perform(on: alice.messenger)
        let overSocket = try await attached.askNode(operation)
        let attachedHere = try await attached.perform(operation)
        #expect(here == overSocket, "\(Operation.method.rawValue) over the socket", sourceLocation: sourceLocation)
        #expect(here == attachedHere, "\(Operation.method.rawValue) attached", sourceLocation: sourceLocation)
        return here
    }

    @Test func everyReadAnswersTheSameHereAndOverTheSocket() async throws {
        let scene = try await Scene()
        let (alice, id) = (scene.alice, scene.id)
        let attached = try await AttachedMessenger(local: alice.local)

        let list = try await same(Operations.Conversations(), alice, attached)
        #expect(list.map(\.id) == [id] && list[0].participants.map(\.name).contains("bob"))
        #expect(try await same(Operations.Conversations(.all, limit: 1), alice, attached) == list)
        #expect(try await same(Operations.Conversations(.archived), alice, attached).isEmpty)
        #expect(try await same(Operations.Conversation(id), alice, attached) == list[0])

        let page = try await same(Operations.History(id), alice, attached)
        #expect(!page.hasOlder)
        let texts = page.messages.map { $0.text ?? $0.systemLine ?? "" }
        #expect(texts == ["pizza tonight?", "yes!", "menu.txt", "You added carol"], "\(texts)")
        let pizza = page.messages[0]
        #expect(pizza.edits.map(\.text) == ["pizza tonihgt?"] && pizza.reactions.map(\.emoji) == ["👍"])
        #expect(page.messages[1].replyTo?.ref == scene.first && page.messages[2].file?.fileID == scene.file)

        let newest = try await same(Operations.History(id, limit: 1), alice, attached)
        #expect(newest.hasOlder && newest.messages.compactMap(\.text) == ["menu.txt"])
        let older = try await same(Operations.History(id, .before(newest.messages[0].orderKey)), alice, attached)
        #expect(older.messages.compactMap(\.text) == ["pizza tonight?", "yes!"] && !older.hasOlder)
        let around = try await same(Operations.History(id, .around(scene.reply)), alice, attached)
        #expect(around.messages.first?.ref == scene.first)

        #expect(try await same(Operations.Message(scene.reply, in: id), alice, attached) == page.messages[1])
        let missing = MessageRef(author: scene.bob.me, seq: 99)
        #expect(try await same(Operations.Message(missing, in: id), alice, attached) == nil)
        #expect(try await same(Operations.LastOwnMessage(id), alice, attached)?.text == "pizza tonight?")
        let bobsOwn = try await scene.bob.messenger.lastOwnMessage(in: id)
        #expect(bobsOwn?.file?.fileID == scene.file)

        let hits = try await same(Operations.Search("pizza"), alice, attached)
        #expect(hits.compactMap(\.message?.ref) == [scene.first])
        #expect(try await same(Operations.Search("   "), alice, attached).isEmpty)

        let members = try await same(Operations.Members(of: id), alice, attached)
        #expect(members.members.map(\.id) == [alice.me, scene.bob.me, scene.carol] && members.admin == alice.me)

        let files = try await same(Operations.Files(in: id), alice, attached)
        #expect(files.map(\.fileID) == [scene.file] && files[0].state == .complete)
        let prefix = String(scene.file.hex.prefix(6)).uppercased()
        #expect(try await same(Operations.Files(matching: prefix), alice, attached) == files)
        #expect(try await same(Operations.Files(), alice, attached) == files)

        let peers = try await same(Operations.KnownPeers(), alice, attached)
        #expect(Set(peers.map(\.name)) == ["bob", "carol"])

        await attached.close()
        await scene.stop()
    }

    @Test func aFileIsSavedTheSameHereAndByTheNode() async throws {
        let scene = try await Scene()
        let attached = try await AttachedMessenger(local: scene.alice.local)
        let here = scene.nodes.root.appendingPathComponent("here/deeper")
        let byNode = scene.nodes.root.appendingPathComponent("by-node")
        let saved = try await scene.alice.messenger.saveFile(scene.file, into: here.path)
        let savedByNode = try await attached.askNode(Operations.SaveFile(scene.file, into: byNode.path)).path
        #expect(saved == here.appendingPathComponent("menu.txt").path)
        #expect(savedByNode == byNode.appendingPathComponent("menu.txt").path)
        for path in [saved, savedByNode] {
            #expect(try String(contentsOfFile: path, encoding: .utf8) == "margherita\n")
        }
        await attached.close()
        await scene.stop()
    }

    /// What a bad or unanswerable read is told, here and over the socket, contains `reason`.
    private func refused<Operation: ReadOperation>(
        _ operation: Operation, _ alice: Node, _ attached: AttachedMessenger, saying reason: String,
        sourceLocation: SourceLocation = #_sourceLocation
    ) async {
        for (place, answer) in [
            ("here", { _ = try await operation.perform(on: alice.messenger) }),
            ("over the socket", { _ = try await attached.askNode(operation) }),
        ] as [(String, () async throws -> Void)] {
            do {
                try await answer()
                Issue.record("\(Operation.method.rawValue) was answered \(place)", sourceLocation: sourceLocation)
            } catch {
                #expect("\(error)".contains(reason), "\(place): \(error)", sourceLocation: sourceLocation)
            }
        }
    }

    @Test func badParamsAreRefusedSayingWhy() async throws {
        let nodes = try InProcessNodes()
        defer { nodes.remove() }
        let alice = try nodes.node("alice")
        try await alice.start()
        let attached = try await AttachedMessenger(local: alice.local)
        let bob = NodeID(SigningKeyPair.generate().publicKey)
        let id = try await alice.messenger.create(with: [bob], title: "plans", firstMessage: "hi").conversation
        let unknown = ConversationID(bytes: [UInt8](repeating: 3, count: 16))!
        let ref = MessageRef(author: alice.me, seq: 2)

        await refused(Operations.History(id, limit: 0), alice, attached, saying: "history's param limit is 1 to 500")
        await refused(Operations.History(id, limit: 501), alice, attached, saying: "limit is 1 to 500")
        await refused(Operations.History(id, .around(ref), limit: 5), alice, attached, saying: "only without around")
        await refused(
            Operations.History(id, .around(MessageRef(author: bob, seq: 1))), alice, attached,
            saying: "no message \(id.hex)/\(bob.hex)/1 is held here")
        await refused(Operations.History(unknown), alice, attached, saying: "no conversation \(unknown.hex)")
        await refused(Operations.Conversation(unknown), alice, attached, saying: "no conversation \(unknown.hex)")
        await refused(Operations.Members(of: unknown), alice, attached, saying: "no conversation \(unknown.hex)")
        await refused(Operations.Conversations(limit: 0), alice, attached, saying: "limit is 1 or more")
        await refused(Operations.Search("hi", limit: 0), alice, attached, saying: "search's param limit is 1 to 500")
        await refused(Operations.Files(matching: "xyz"), alice, attached, saying: "prefix is 1 to 64 hex digits")
        await refused(Operations.Files(matching: ""), alice, attached, saying: "prefix is 1 to 64 hex digits")
        let file = FileID(bytes: [UInt8](repeating: 5, count: 32))!
        await refused(Operations.SaveFile(file, into: "Downloads"), alice, attached, saying: "absolute folder")
        await refused(Operations.SaveFile(file, into: "/tmp"), alice, attached, saying: "no file 050505050505")
        // Good params, for contrast: the same conversation reads fine both ways.
        #expect(
            try await same(Operations.History(id, limit: 500), alice, attached).messages.compactMap(\.text) == ["hi"])
        await attached.close()
        await alice.stop()
    }

    @Test func theTypingSettingIsReadAndWrittenThroughTheNode() async throws {
        let nodes = try InProcessNodes()
        defer { nodes.remove() }
        let alice = try nodes.node("alice")
        try await alice.start()
        let attached = try await AttachedMessenger(local: alice.local)
        #expect(try await attached.typingIndicators())
        try await attached.setTypingIndicators(false)
        #expect(try alice.local.store.typingIndicators() == false)
        #expect(try await alice.messenger.typingIndicators() == false)
        #expect(try await attached.perform(Operations.TypingSetting(true)) == TypingIndicators(true))
        #expect(try alice.local.store.typingIndicators())
        await attached.close()
        await alice.stop()
    }
}
