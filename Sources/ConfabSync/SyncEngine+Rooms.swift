import ConfabModel
import ConfabStore
import ConfabWire

/// Rooms (Protocol.md §18.4): a room is shared with every peer that says it joined it, and
/// a peer learns which rooms this node holds from its `Rooms` message. The node turns the
/// names into ids (they derive from the network key) and tells the engine.
extension SyncEngine {
    /// The rooms this node holds, after it started, joined or left one. Peers that said they
    /// are in a room just joined here are asked for it at once.
    public func holdRooms(_ rooms: Set<ConversationID>) throws -> SyncOutput {
        let joined = rooms.subtracting(heldRooms)
        heldRooms = rooms
        var output = SyncOutput()
        for peer in peers.keys.sorted() where peers[peer]?.helloReceived == true {
            for room in joined.intersection(peers[peer]?.rooms ?? []) { startLink(room, with: peer) }
            output.push(try treeAnnouncement(joined.intersection(peers[peer]?.rooms ?? []), to: peer), to: peer)
        }
        return output
    }

    /// The rooms a peer says it has joined, all of them (its `Rooms` message): those held
    /// here that it did not name before are announced to it, asking for what it holds.
    public func peerRooms(_ rooms: Set<ConversationID>, of peer: NodeID) throws -> SyncOutput {
        guard let state = peers[peer], state.helloReceived else { return misbehaving("rooms before hello") }
        let new = rooms.subtracting(state.rooms).intersection(heldRooms)
        peers[peer]?.rooms = rooms
        for room in new { startLink(room, with: peer) }
        var output = SyncOutput()
        output.replies = try treeAnnouncement(new, to: peer)
        return output
    }

    /// The clocks of conversations of the tree just shared with `peer`, without asking
    /// (`announcement`).
    func treeAnnouncement(_ conversations: Set<ConversationID>, to peer: NodeID) throws -> [SessionMessage] {
        guard !conversations.isEmpty else { return [] }
        var clocks: [ConversationID: VectorClock] = [:]
        for conversation in conversations { clocks[conversation] = try store.clock(of: conversation) }
        return announcement(clocks, to: peer)
    }
}
