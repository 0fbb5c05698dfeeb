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

    /// The rooms joined here, by the tag beacons carry (Protocol.md §18.7).
    private var heldTags: [RoomTag: RoomName] = [:]

    mutating func hold(_ joined: [RoomName: ConversationID]) {
        heldTags = Dictionary(uniqueKeysWithValues: joined.map { (RoomTag(room: $0.value), $0.key) })
    }

    /// Whether a beacon naming these room tags should make this node dial its sender: one
    /// names a room joined here with fewer than `sessionsPerRoom` peers in session that
    /// said (in their `Rooms`) they joined it. The tags are the sender's claim: at worst a
    /// dial (a made-up key fails the handshake), and a peer that does not then name the room
    /// counts for nothing, so the node goes on seeking members.
    func seeksSession(forTags tags: [RoomTag]) -> Bool {
        tags.contains { tag in heldTags[tag].map(seeksMembers) ?? false }
    }

    /// The tags of the rooms for which `seeksSession` says yes now.
    var tagsSeekingSessions: Set<RoomTag> {
        Set(heldTags.filter { seeksMembers($0.value) }.keys)
    }

    /// Whether fewer than `sessionsPerRoom` peers in session said they joined `room`.
    private func seeksMembers(_ room: RoomName) -> Bool {
        byPeer.values.lazy.filter { $0.contains(room) }.count < Self.sessionsPerRoom
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
