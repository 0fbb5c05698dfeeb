import ConfabModel
import ConfabWire

/// Whose beacons the node acts on even when one only repeats the last accepted from its
/// key (Protocol.md §11.4). The node says so and the receiving sockets keep a copy: on an
/// office LAN nearly every beacon repeats the last from a stranger this node neither shows
/// nor dials, and checking its signature and waking the node for it was most of an idle
/// node's CPU.
public struct BeaconAttention: Sendable, Equatable {
    /// Every repeat matters: the node still dials strangers on their beacons, or has not
    /// said otherwise yet.
    public var everyKey: Bool
    /// Keys whose every beacon matters: those shown present (a beacon keeps them so) and
    /// those the node wants a session with.
    public var keys: Set<NodeID>
    /// Rooms still seeking members here: a beacon naming one may make the node dial.
    public var roomTags: Set<RoomTag>
    /// Whether a beacon that says "relay" may make the node dial.
    public var relays: Bool

    public init(everyKey: Bool, keys: Set<NodeID> = [], roomTags: Set<RoomTag> = [], relays: Bool = false) {
        self.everyKey = everyKey
        self.keys = keys
        self.roomTags = roomTags
        self.relays = relays
    }

    /// What a receiver assumes until the node says: every beacon is checked and passed on.
    public static let everything = BeaconAttention(everyKey: true)

    /// Whether a repeat of `beacon` (as it claims to be) is to be checked and passed on.
    public func wants(_ beacon: Beacon) -> Bool {
        everyKey || keys.contains(beacon.node) || (relays && beacon.role == .relay)
            || beacon.rooms.contains { roomTags.contains($0) }
    }
}
