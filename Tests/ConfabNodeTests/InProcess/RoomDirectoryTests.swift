import ConfabCrypto
import ConfabModel
import ConfabWire
import Testing

@testable import ConfabNode

/// Which beacons make a member of a room dial (Protocol.md §18.7): the tags are the
/// sender's claim, and only peers that then name the room count towards the 3 sought.
@Suite struct RoomDirectoryTests {
    private let general = RoomName(exactly: "general")!
    private let id = ConversationID.random()
    private func peer() -> NodeID { NodeID(SigningKeyPair.generate().publicKey) }

    @Test func aTagOfARoomHeldHereIsSoughtUntilThreePeersNamedIt() {
        var directory = RoomDirectory()
        directory.hold([general: id])
        let tag = RoomTag(room: id)
        #expect(directory.seeksSession(forTags: [tag]))
        for _ in 0..<RoomDirectory.sessionsPerRoom {
            #expect(directory.seeksSession(forTags: [tag]))
            directory.peer(peer(), joined: [general])
        }
        #expect(!directory.seeksSession(forTags: [tag]))
    }

    /// The lie: beacons claiming the tag of a room held here, from peers that never name it
    /// once in session. They count for nothing: the node goes on seeking members.
    @Test func peersThatClaimTheTagButDoNotNameTheRoomCountForNothing() {
        var directory = RoomDirectory()
        directory.hold([general: id])
        for _ in 0..<10 { directory.peer(peer(), joined: [RoomName(exactly: "other")!]) }
        for _ in 0..<10 { directory.peer(peer(), joined: []) }
        #expect(directory.seeksSession(forTags: [RoomTag(room: id)]))
    }

    @Test func tagsOfRoomsNotHeldHereMakeNoDial() {
        var directory = RoomDirectory()
        #expect(!directory.seeksSession(forTags: [RoomTag(room: id)]))
        directory.hold([general: id])
        #expect(!directory.seeksSession(forTags: [RoomTag(room: .random()), RoomTag(room: .random())]))
        #expect(!directory.seeksSession(forTags: []))
    }
}
