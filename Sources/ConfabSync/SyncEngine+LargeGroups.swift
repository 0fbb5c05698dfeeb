import ConfabModel
import ConfabStore
import ConfabWire

/// Large groups (Protocol.md §19.6): spread like a room, shared like a group. Whom one goes
/// to is its membership, as for any group, among the peers whose Hello lists `large-groups`;
/// how it goes is the eager tree's, with the clocks of a room. Which conversations are large
/// the store knows (a create says so); the node tells the engine, as it does of rooms.
extension SyncEngine {
    /// The large groups this node holds, after it started or stored a conversation it did
    /// not hold. A group newly held starts a lazy link with each peer it is shared with, and
    /// its clock is announced to them without asking, as a room joined is (§18.4): what one
    /// side lacks it asks one holder for after the graft delay.
    public func holdLargeGroups(_ groups: Set<ConversationID>) throws -> SyncOutput {
        let new = groups.subtracting(heldLargeGroups)
        heldLargeGroups = groups
        var output = SyncOutput()
        guard !new.isEmpty else { return output }
        for peer in peers.keys.sorted() where peers[peer]?.helloReceived == true {
            let shared = try new.filter { try shouldShare($0, with: peer) }
            for group in shared { startLink(group, with: peer) }
            output.push(try treeAnnouncement(shared, to: peer), to: peer)
        }
        return output
    }
}
