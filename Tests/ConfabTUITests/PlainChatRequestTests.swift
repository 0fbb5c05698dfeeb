import ConfabClient
import ConfabModel
import ConfabNode
import ConfabTestSupport
import Foundation
import Testing

@testable import ConfabTUI

/// The plain chat's lines become the full-screen chat's effects, and what those answer is
/// printed in the plain chat's own words: no node, a store of its own.
@Suite struct PlainChatRequestTests {
    let root: URL
    let chat: PlainChat
    let id = ConversationID(bytes: [UInt8](repeating: 4, count: 16))!

    init() throws {
        root = try ConfabBinary.temporaryDirectory("confab-plain-requests")
        let directory = DataDirectory(url: root.appendingPathComponent("alice"))
        chat = PlainChat(
            local: try Profile.initialize(directory, name: "alice"), options: NodeOptions(directory: directory),
            write: { _ in })
    }

    @Test func commandsBecomeTheFullScreenChatsEffects() async throws {
        defer { try? FileManager.default.removeItem(at: root) }
        #expect(try await chat.request(for: "/list") == .perform([.loadConversations(includeArchived: false)]))
        #expect(try await chat.request(for: "/LIST all") == .perform([.loadConversations(includeArchived: true)]))
        #expect(try await chat.request(for: "/search pizza night") == .perform([.search("pizza night")]))
        #expect(try await chat.request(for: "/peers") == .perform([.loadPeers]))
        #expect(try await chat.request(for: "/resync") == .perform([.resync]))
        #expect(try await chat.request(for: "/exit") == .quit)
        #expect(try await chat.request(for: "   ") == .perform([]))
        #expect(try await chat.request(for: "hi") == .say("no conversation is open — /open NAME first (or /list)"))
        #expect(try await chat.request(for: "/members") == .say("no conversation is open — /open NAME first"))
        #expect(try await chat.request(for: "/launch") == .say("unknown command \"/launch\" — type /help for the list"))

        chat.listed = [id]
        #expect(
            try await chat.request(for: "/open 1") == .perform([.openConversation(id, around: nil), .markRead(id)]))
        chat.open = id
        #expect(try await chat.request(for: " hi there") == .perform([.send(id, text: " hi there")]))
        #expect(try await chat.request(for: "/history") == .perform([.loadHistory(id, limit: 20)]))
        #expect(try await chat.request(for: "/history 9999") == .perform([.loadHistory(id, limit: 500)]))
        #expect(try await chat.request(for: "/file ~/plan.pdf") == .perform([.sendFile(id, path: "~/plan.pdf")]))
        #expect(try await chat.request(for: "/files") == .perform([.listFiles(id)]))
        #expect(try await chat.request(for: "/members") == .perform([.members(id, .list)]))
        #expect(
            try await chat.request(for: "/add carol --history dave")
                == .perform([.members(id, .add(["carol", "dave"], history: true))]))
        #expect(try await chat.request(for: "/remove bob") == .perform([.members(id, .remove(["bob"]))]))
        #expect(try await chat.request(for: "/leave") == .perform([.members(id, .leave)]))
        #expect(try await chat.request(for: "/add") == .say("/add NAME [NAME…] [--history] — peer names as in /peers"))
        // Reads through the messenger decide what the request is: nothing of mine here yet.
        #expect(try await chat.request(for: "/unsend") == .say("you have no message here to change"))
        #expect(try await chat.request(for: "/save abcd") == .say("no file abcd here — /files lists them"))
    }

    @Test func answersArePrintedInThePlainChatsWords() async throws {
        defer { try? FileManager.default.removeItem(at: root) }
        func lines(_ update: ChatUpdate, _ effect: ChatEffect, _ echo: PlainEcho = PlainEcho()) async -> [String] {
            await chat.lines(for: update, answering: effect, echo: echo)
        }
        #expect(
            await lines(.conversations([]), .loadConversations(includeArchived: false))
                == ["No conversations yet — /new NAME starts one (see /peers)"])
        #expect(
            await lines(.history(id, [], hasOlder: false, focus: nil), .loadHistory(id, limit: 20)) == [
                "No messages yet — say hi"
            ])
        #expect(await lines(.resynced, .resync) == ["Resyncing with every peer"])
        #expect(await lines(.notice("Offline: no node is running yet"), .resync) == ["Offline: no node is running yet"])
        #expect(
            await lines(.notice("Added carol"), .members(id, .add(["carol"], history: false))) == ["* You added carol"])
        #expect(await lines(.notice("You left this conversation"), .members(id, .leave)) == ["* You left"])
        // What reloads after a change of members, and the status bar's notices, print nothing.
        #expect(await lines(.conversations([]), .members(id, .leave)).isEmpty)
        #expect(
            await lines(.notice("Sent plan.pdf; recipients fetch it from here"), .sendFile(id, path: "plan.pdf"))
                .isEmpty)
        #expect(await lines(.searchResults(query: "x", []), .search("x")) == ["nothing matches \"x\""])
        #expect(
            await lines(
                .created(id), .createConversation(participants: [], title: nil), PlainEcho(names: ["Bob", "carol"]))
                == ["— new conversation with Bob, carol — type to send"])
        #expect(chat.open == id, "the conversation created is the open one")
        #expect(
            await lines(.peers([], verified: []), .loadPeers) == ["No known peers yet"])
    }

    @Test func theNewestMessagesOfAPageKeepTheSystemLinesAmongThem() {
        defer { try? FileManager.default.removeItem(at: root) }
        func message(_ seq: UInt64, system: Bool = false) -> ChatMessage {
            var message = ChatMessage(
                conversationID: id, author: Fixtures.bob, authorName: "bob", seq: seq, isMine: false,
                text: system ? nil : "\(seq)", sentAt: Fixtures.now,
                orderKey: DisplayOrderKey(clockSum: seq, timestamp: 0, author: Fixtures.bob, seq: seq), status: nil)
            if system { message.membership = MembershipNote(added: [], removed: [], left: true) }
            return message
        }
        let page = [message(1, system: true), message(2), message(3), message(4, system: true), message(5)]
        #expect(PlainChat.newest(2, of: page).map(\.seq) == [3, 4, 5])
        #expect(PlainChat.newest(3, of: page).map(\.seq) == [2, 3, 4, 5])
        #expect(PlainChat.newest(20, of: page).map(\.seq) == [1, 2, 3, 4, 5], "a short page is all there is")
    }
}
