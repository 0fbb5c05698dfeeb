import ConfabModel

/// Which rooms the peers in session said they joined (their `Rooms` messages, Protocol.md
/// §18.4), for `confab rooms`. Each peer's word counts for itself only: a count here is of
/// peers that said so to this node, never of what anyone says about others.
struct RoomDirectory {
    /// Sessions with members of each room joined here that a node seeks on beacons, past
    /// its share of strangers (Protocol.md §18.7): enough that a room's members are one
    /// connected whole on a LAN where sessions are kept by need.
    static let sessionsPerRoom = 3

    private var byPeer: [NodeID: [RoomName]] = [:]
    /// Peers whose Hello lists the rooms feature: they are told this node's rooms.
    private(set) var speakers: Set<NodeID> = []

    mutating func peerSpeaksRooms(_ peer: NodeID) { speakers.insert(peer) }

    mutating func peer(_ peer: NodeID, joined rooms: [RoomName]) { byPeer[peer] = rooms }

    mutating func peerGone(_ peer: NodeID) {
        byPeer[peer] = nil
        speakers.remove(peer)
    }

    /// How many peers in session said they joined each room.
    var counts: [RoomName: Int] {
        byPeer.values.reduce(into: [:]) { counts, rooms in for room in rooms { counts[room, default: 0] += 1 } }
    }
}
