import ConfabClient
import ConfabModel
import ConfabStore
import Foundation
import Testing

@testable import ConfabNode

/// Rooms between real nodes in this process (Protocol.md §18): joined by name, shared with
/// the peers that said they joined, passed on through members that have sessions, and gone
/// from a node that left.
@Suite(.serialized) struct RoomNodeTests {
    private let general = RoomName(exactly: "general")!

    /// Alice, Bob with a session to Alice, Carol with a session to Bob only; all started.
    private func chain(_ nodes: InProcessNodes) async throws -> (alice: Node, bob: Node, carol: Node) {
        let alice = try nodes.node("alice")
        let aliceAddress = try await alice.start()
        let bob = try nodes.node("bob", peers: ["\(alice.me.hex)@127.0.0.1:\(aliceAddress.port!)"])
        let bobAddress = try await bob.start()
        let carol = try nodes.node("carol", peers: ["\(bob.me.hex)@127.0.0.1:\(bobAddress.port!)"])
        try await carol.start()
        return (alice, bob, carol)
    }

    private func isMessage(_ event: NodeEvent, _ text: String) -> Bool {
        if case .message(let message) = event { return message.text == text }
        return false
    }

    @Test func aRoomJoinedLaterShowsWhatTheMembersHoldAndReachesAMemberThroughAnother() async throws {
        let nodes = try InProcessNodes()
        defer { nodes.remove() }
        let (alice, bob, carol) = try await chain(nodes)
        let room = try await alice.messenger.perform(Operations.Join(general))
        _ = try await alice.messenger.send("before anyone came", to: .conversation(room.conversation))
        // Bob hears of the room from Alice before joining it.
        let listed = try await poll("bob lists #general, announced by alice") {
            try await bob.rooms().first { $0.room == general && !$0.joined && $0.peers == 1 } != nil
        }
        #expect(listed)
        let bobEvents = bob.events()
        #expect(try await bob.messenger.perform(Operations.Join(general)).conversation == room.conversation)
        _ = try await firstEvent(in: bobEvents, "bob receives the room's history") {
            isMessage($0, "before anyone came")
        }
        // Carol has no session with Alice: what Alice writes reaches her through Bob.
        let carolEvents = carol.events()
        _ = try await carol.messenger.perform(Operations.Join(general))
        _ = try await firstEvent(in: carolEvents, "carol receives the history through bob") {
            isMessage($0, "before anyone came")
        }
        _ = try await alice.messenger.send("hello room", to: .conversation(room.conversation))
        _ = try await firstEvent(in: carolEvents, "carol receives alice's new message through bob") {
            isMessage($0, "hello room")
        }
        await carol.stop()
        await bob.stop()
        await alice.stop()
    }

    /// What a person wrote in a room while no node ran (`confab send` offline) reaches a
    /// peer that joins after the sessions opened.
    @Test func whatWasWrittenWithNoNodeRunningReachesAPeerWhoJoinsLater() async throws {
        let nodes = try InProcessNodes()
        defer { nodes.remove() }
        let alice = try nodes.node("alice")
        let offline = LocalMessenger(local: alice.local, network: alice.options.networkKey)
        let room = try await offline.perform(Operations.Join(general))
        _ = try await offline.send("written offline", to: .conversation(room.conversation))
        let address = try await alice.start()
        let bob = try nodes.node("bob", peers: ["\(alice.me.hex)@127.0.0.1:\(address.port!)"])
        try await bob.start()
        _ = try await poll("bob hears of the room") { try await bob.rooms().contains { $0.room == general } }
        let bobEvents = bob.events()
        _ = try await bob.messenger.perform(Operations.Join(general))
        _ = try await firstEvent(in: bobEvents, "bob receives what alice wrote offline") {
            isMessage($0, "written offline")
        }
        await bob.stop()
        await alice.stop()
    }

    @Test func aNodeThatLeftOrNeverJoinedHoldsNothingOfTheRoom() async throws {
        let nodes = try InProcessNodes()
        defer { nodes.remove() }
        // Bob and Dave both have a session with Alice.
        let alice = try nodes.node("alice")
        let address = try await alice.start()
        let bob = try nodes.node("bob", peers: ["\(alice.me.hex)@127.0.0.1:\(address.port!)"])
        try await bob.start()
        let dave = try nodes.node("dave", peers: ["\(alice.me.hex)@127.0.0.1:\(address.port!)"])
        try await dave.start()
        let room = try await alice.messenger.perform(Operations.Join(general))
        let bobEvents = bob.events()
        _ = try await bob.messenger.perform(Operations.Join(general))
        _ = try await alice.messenger.send("first", to: .conversation(room.conversation))
        _ = try await firstEvent(in: bobEvents, "bob receives the first") { isMessage($0, "first") }
        #expect(try dave.local.store.conversation(room.conversation) == nil, "dave never joined")

        _ = try await bob.messenger.leave(room.conversation)
        #expect(try bob.local.store.conversation(room.conversation) == nil)
        #expect(try await bob.rooms().first { $0.room == general }?.joined != true)
        // Dave joins now: Alice's next message reaches him, and Bob, still in session with
        // Alice, holds nothing of it.
        let daveEvents = dave.events()
        _ = try await dave.messenger.perform(Operations.Join(general))
        _ = try await alice.messenger.send("second", to: .conversation(room.conversation))
        _ = try await firstEvent(in: daveEvents, "dave receives the second") { isMessage($0, "second") }
        #expect(try bob.local.store.conversation(room.conversation) == nil)
        #expect(try bob.local.store.joinedRooms().isEmpty)
        await dave.stop()
        await bob.stop()
        await alice.stop()
    }
}

/// Polls `condition` until it holds, for at most `seconds` (a ceiling, not a wait).
func poll(
    _ what: String, within seconds: Double = 20, _ condition: @escaping @Sendable () async throws -> Bool
) async throws -> Bool {
    let deadline = ContinuousClock.now + .seconds(seconds)
    while ContinuousClock.now < deadline {
        if try await condition() { return true }
        try await Task.sleep(for: .milliseconds(50))
    }
    Issue.record("timed out waiting for: \(what)")
    return false
}
