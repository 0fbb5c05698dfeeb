import ConfabModel
import ConfabWire

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

    /// Room ids by name on this node's network, so that a peer repeating its list costs no
    /// key derivation (an Ed25519 key pair per name); bounded, as names come from peers.
    private var ids: [RoomName: ConversationID] = [:]
    static let maxRememberedIDs = 4096

    mutating func id(of room: RoomName, network: NetworkKey) -> ConversationID {
        if let known = ids[room] { return known }
        if ids.count >= Self.maxRememberedIDs { ids.removeAll(keepingCapacity: true) }
        let id = RoomGenesis(name: room, network: network).conversationID
        ids[room] = id
        return id
    }

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
