import ConfabClient
import ConfabModel
import Foundation
import Testing

@testable import ConfabNode

/// Stores written by earlier releases (Tests/Fixtures/Stores, each made by its
/// make-fixture.sh from the tagged build) open with today's node: their people read, write
/// in every old conversation (messages and files), sync, and remove members; a conversation
/// of protocol 1 takes no new member.
@Suite("Upgrades")
struct UpgradeTests {
    static let fixtures = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fixtures/Stores")

    static var releases: [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: fixtures.path)) ?? []).filter { $0.hasPrefix("v") }
            .sorted()
    }

    @Test func everyReleaseHasAFixture() {
        #expect(Self.releases.contains("v0.1.0"))
    }

    @Test(arguments: releases)
    func oldConversationsReadWriteAndSync(release: String) async throws {
        let nodes = try InProcessNodes()
        defer { nodes.remove() }
        try Self.copy(["alice", "bob", "carol"], of: release, to: nodes)
        let alice = try Node(options: nodes.options("alice"))
        let address = try await alice.start()
        let here = "127.0.0.1:\(address.port!)"
        let bob = try Node(options: nodes.options("bob", peers: ["\(alice.me.hex)@\(here)"]))
        let carol = try Node(options: nodes.options("carol", peers: ["\(alice.me.hex)@\(here)"]))
        try await bob.start()
        try await carol.start()

        // What the old release stored reads as it did.
        let conversations = try alice.local.store.conversations(.all)
        let team = try #require(conversations.first { $0.title == "Team" })
        let thread = try #require(conversations.first { $0.participants.map(\.id) == [bob.me] })
        #expect(
            try alice.local.store.history(team.id, limit: 10).compactMap(\.text) == [
                "Hello team", "Hi all, Carol here",
            ])
        #expect(try alice.local.store.members(of: team.id).members.count == 3)

        // Each old conversation takes new messages, and they arrive.
        let bobHears = bob.events()
        let carolHears = carol.events()
        _ = try await alice.messenger.send("after the upgrade", to: .conversation(thread.id))
        _ = try await alice.messenger.send("the team, upgraded", to: .conversation(team.id))
        for (events, conversation, text) in [
            (bobHears, thread.id, "after the upgrade"), (carolHears, team.id, "the team, upgraded"),
        ] {
            _ = try await firstEvent(in: events, "\"\(text)\" arrives") {
                if case .message(let message) = $0 {
                    return message.conversationID == conversation && message.text == text
                }
                return false
            }
        }
        let aliceHears = alice.events()
        _ = try await bob.messenger.send("and back", to: .conversation(thread.id))
        _ = try await firstEvent(in: aliceHears, "Bob's answer") {
            if case .message(let message) = $0 { return message.text == "and back" }
            return false
        }

        // A file goes in an old conversation too, whole (small files are fetched at once).
        let bobFiles = bob.events()
        let file = nodes.root.appendingPathComponent("notes.txt")
        try Data("notes from after the upgrade\n".utf8).write(to: file)
        _ = try await alice.messenger.sendFile(at: file.path, folder: "", to: .conversation(thread.id))
        _ = try await firstEvent(in: bobFiles, "alice's file complete at bob") {
            if case .file(let info) = $0 { return info.conversationID == thread.id && info.state == .complete }
            return false
        }

        // Its admin removes a member, who is told.
        let carolSees = carol.events()
        _ = try await alice.messenger.changeMembers(of: team.id, add: [], remove: [carol.me], shareHistory: false)
        _ = try await firstEvent(in: carolSees, "carol's removal reaches her") {
            if case .members(let line) = $0 { return line.conversationID == team.id }
            return false
        }
        #expect(try !carol.local.store.members(of: team.id).includesMe)

        // Nobody new can join it: a member added now could not check its create. The
        // person is told what to do instead.
        let erin = try nodes.node("erin")
        try alice.local.store.savePeer(erin.me, name: "erin")
        let refusal = await #expect(throws: (any Error).self) {
            try await alice.messenger.changeMembers(of: team.id, add: [erin.me], remove: [], shareHistory: true)
        }
        #expect("\(refusal.map { "\($0)" } ?? "")".contains("start a new one with them"))

        for node in [carol, bob, alice] { await node.stop() }
    }

    /// Alice wrote to Dave with 0.1.0 while his node never ran: a protocol 1 conversation no
    /// one received, which no upgraded node would take. Alice's upgraded node carries it to
    /// a conversation of this version (same people, same message at its time) and Dave, on
    /// today's build, gets it.
    @Test(arguments: releases)
    func aConversationThatReachedNoOneIsCarriedOver(release: String) async throws {
        let nodes = try InProcessNodes()
        defer { nodes.remove() }
        try Self.copy(["alice", "dave"], of: release, to: nodes)
        let dave = try Node(options: nodes.options("dave"))
        let address = try await dave.start()
        let alice = try Node(options: nodes.options("alice", peers: ["\(dave.me.hex)@127.0.0.1:\(address.port!)"]))
        let before = try #require(
            try alice.local.store.conversations(.all).first { $0.participants.map(\.id) == [dave.me] })
        let written = try #require(try alice.local.store.history(before.id, limit: 10).last)
        #expect(written.text == "Dave, this waits for you")

        let daveHears = dave.events()
        try await alice.start()
        let arrived = try await firstEvent(in: daveHears, "Alice's carried message reaches Dave") {
            if case .message(let message) = $0 { return message.text == "Dave, this waits for you" }
            return false
        }
        guard case .message(let message) = arrived else { return }
        #expect(message.sentAt == written.sentAt)
        let after = try alice.local.store.conversations(.all).filter { $0.participants.map(\.id) == [dave.me] }
        #expect(after.map(\.id) == [message.conversationID])
        #expect(message.conversationID != before.id)
        #expect(try alice.local.store.conversation(before.id) == nil)
        for node in [alice, dave] { await node.stop() }
    }

    /// Copies fixture stores of `release` where `nodes` keeps its people.
    static func copy(_ people: [String], of release: String, to nodes: InProcessNodes) throws {
        for person in people {
            let directory = nodes.root.appendingPathComponent(person)
            try FileManager.default.copyItem(
                at: fixtures.appendingPathComponent("\(release)/\(person)"), to: directory)
            // Git keeps no file modes: the copy is made private, as the release left it.
            for file in try FileManager.default.contentsOfDirectory(atPath: directory.path) {
                try FileManager.default.setAttributes(
                    [.posixPermissions: 0o600], ofItemAtPath: directory.appendingPathComponent(file).path)
            }
        }
    }
}
