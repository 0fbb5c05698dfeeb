import ConfabClient
import ConfabModel
import ConfabNet
import ConfabWire

/// Rooms (Protocol.md §18): the node tells each peer that speaks rooms which ones it has
/// joined, turns the names peers send into ids (they derive from the network key) for the
/// engine, and joins and leaves for its person.
extension Node {
    public func joinRoom(_ room: RoomName) async throws -> ConversationID {
        let id = try local.store.joinRoom(RoomGenesis(name: room, network: options.networkKey))
        try roomsChanged()
        hub.emit(.changed(id))
        return id
    }

    /// The rooms held changed (joined here, or left through the store): the engine shares
    /// them from now on, and every peer that speaks rooms is told the new list.
    public func roomsChanged() throws {
        let joined = try local.store.joinedRooms()
        // The list first: a peer answers the request for a room below only once it knows
        // this node joined it (else it answers "not shared", and the room waits for the
        // lazy path).
        let message = SessionMessage.rooms(joined.keys.sorted())
        for peer in roomDirectory.speakers { sessions.session(with: peer)?.send(message) }
        apply(try engine.holdRooms(Set(joined.values)))
        announceRooms(joined)
    }

    /// Beacons carry the tags of the first rooms by name (§18.7), so that members of each
    /// find one another on a LAN where sessions are kept by need.
    func announceRooms(_ joined: [RoomName: ConversationID]) {
        roomDirectory.hold(joined)
        attendBeacons()
        let first = joined.sorted { $0.key < $1.key }.prefix(RoomTag.maxInBeacon)
        discovery?.announce(rooms: first.map { RoomTag(room: $0.value) })
    }

    public func rooms() throws -> [RoomListing] {
        let joined = try local.store.joinedRooms()
        let counts = roomDirectory.counts
        return Set(joined.keys).union(counts.keys).sorted().map {
            RoomListing(room: $0, conversation: joined[$0], peers: counts[$0] ?? 0)
        }
    }

    /// A peer's Hello arrived: if it speaks rooms, it is told which this node joined.
    func greetRooms(_ hello: SessionMessage.Hello, session: PeerSession) throws {
        guard hello.features.contains(SessionCodec.roomsFeature) else { return }
        roomDirectory.peerSpeaksRooms(session.remote)
        let joined = try local.store.joinedRooms().keys.sorted()
        if !joined.isEmpty { session.send(.rooms(joined)) }
    }

    /// The rooms a peer joined, all of them: remembered for `rooms`, and the engine shares
    /// with it those held here.
    func receiveRooms(_ rooms: [RoomName], from session: PeerSession) throws {
        roomDirectory.peer(session.remote, joined: rooms)
        attendBeacons()
        let ids = Set(rooms.map { roomDirectory.id(of: $0, network: options.networkKey) })
        apply(try engine.peerRooms(ids, of: session.remote), replyTo: session)
    }
}
