import ConfabClient
import ConfabModel
import ConfabStore
import Foundation
import Testing

@testable import ConfabNode

/// Large groups between real nodes in this process (Protocol.md §19): made by the creator,
/// passed on through members that have sessions, and gone from a member who was removed.
@Suite(.serialized) struct LargeGroupNodeTests {
    private func isMessage(_ event: NodeEvent, _ text: String) -> Bool {
        if case .message(let message) = event { return message.text == text }
        return false
    }

    @Test func aLargeGroupReachesAMemberThroughAnotherAndARemovedMemberReadsNoMore() async throws {
        let nodes = try InProcessNodes()
        defer { nodes.remove() }
        // Carol has a session with Bob only; Dave with Alice only.
        let alice = try nodes.node("alice")
        let aliceAddress = try await alice.start()
        let bob = try nodes.node("bob", peers: ["\(alice.me.hex)@127.0.0.1:\(aliceAddress.port!)"])
        let bobAddress = try await bob.start()
        let carol = try nodes.node("carol", peers: ["\(bob.me.hex)@127.0.0.1:\(bobAddress.port!)"])
        try await carol.start()
        let dave = try nodes.node("dave", peers: ["\(alice.me.hex)@127.0.0.1:\(aliceAddress.port!)"])
        try await dave.start()
        let carolEvents = carol.events()
        let daveEvents = dave.events()
        let created = try await alice.messenger.create(
            with: [bob.me, carol.me, dave.me], title: "office", firstMessage: "welcome", large: true)
        #expect(try alice.local.store.isLargeGroup(created.conversation))
        _ = try await firstEvent(in: carolEvents, "carol receives the group through bob") {
            isMessage($0, "welcome")
        }
        _ = try await firstEvent(in: daveEvents, "dave receives the group") { isMessage($0, "welcome") }
        _ = try await carol.messenger.send("from carol", to: .conversation(created.conversation))
        _ = try await firstEvent(in: daveEvents, "dave receives carol's message through bob and alice") {
            isMessage($0, "from carol")
        }
        // Only the creator changes a large group.
        await #expect(throws: (any Error).self) {
            _ = try await bob.messenger.perform(
                Operations.ChangeMembers(conversation: created.conversation, add: [], remove: [dave.me], history: false)
            )
        }
        _ = try await alice.messenger.perform(
            Operations.ChangeMembers(conversation: created.conversation, add: [], remove: [dave.me], history: false))
        _ = try await alice.messenger.send("without dave", to: .conversation(created.conversation))
        _ = try await firstEvent(in: carolEvents, "carol receives what is written after dave's removal") {
            isMessage($0, "without dave")
        }
        // Dave's node holds the removal (it is sent the group up to there) and nothing after.
        _ = try await poll("dave holds his removal") {
            try !dave.local.store.participants(of: created.conversation).contains(dave.me)
        }
        #expect(try !dave.local.store.history(created.conversation).contains { $0.text == "without dave" })
        for node in [dave, carol, bob, alice] { await node.stop() }
    }
}
