import ConfabClient
import ConfabModel
import ConfabNet
import ConfabWire

/// Which sessions a node seeks (Protocol.md §10.6): with the people it shares
/// conversations with, always; with strangers, only a few. On an office LAN every node hears
/// every other's beacons, and dialling them all filled every node's 64 slots with strangers,
/// so that a first message to someone new was refused at their door. A few sessions with
/// strangers still keep the LAN one connected whole for what relays and groups forward.
///
/// Also where each key's last beacon said it listens: a hint, unauthenticated like the beacon,
/// that lets a first message be dialled at once rather than at the next beacon (up to 30 s
/// on a quiet LAN). A dial to a wrong address fails its handshake and costs one attempt.
///
/// A pure value, driven by the caller's clock.
struct SessionNeeds {
    /// Sessions with strangers (either direction) beyond which a stranger's beacon makes
    /// this node dial no more. HyParView keeps 5 for thousands of nodes; 8 keeps a LAN of up
    /// to 9 strangers a full mesh, and an office of 200 well below the 64 slots. Each
    /// session costs a Ping and a Pong every 15 s or so: at 16, an office of 200 held about
    /// 32 sessions per node, and their keepalives were a fifth of an idle node's CPU.
    static let strangerSessions = 8
    /// A peer a write is for is dialled at most this often.
    static let reachCooldown: Duration = .seconds(5)
    /// Beacon hints and reach attempts kept; the oldest go beyond this.
    static let memory = 4096

    /// Chosen peers and everyone sharing a conversation with this node.
    private(set) var wanted: Set<NodeID> = []
    private(set) var hints: [NodeID: HostPort] = [:]
    private var reached: [NodeID: ContinuousClock.Instant] = [:]

    mutating func update(wanted: Set<NodeID>) { self.wanted = wanted }

    /// Whether a beacon from `key` may make this node dial, given how many of its sessions
    /// are with strangers now. Relays are worth a session: they carry for the away.
    func dialsOnBeacon(_ key: NodeID, relay: Bool, strangerSessions: Int) -> Bool {
        wanted.contains(key) || relay || strangerSessions < Self.strangerSessions
    }

    /// Whether a beacon's role makes its sender a relay worth dialling past the strangers'
    /// share. On the default network anyone can compute the key and say "relay" of any
    /// number of made-up keys, which would take every slot again: there only the relays this
    /// node's person chose count, and they are wanted anyway. On a private network only
    /// holders of its key can, as for relay trust (Protocol.md §14.1).
    static func countsAsRelay(role: NodeRole, privateNetwork: Bool) -> Bool {
        role == .relay && privateNetwork
    }

    /// How many of `peers` (those with a session) are strangers.
    func strangers(among peers: some Sequence<NodeID>) -> Int {
        peers.reduce(0) { $0 + (wanted.contains($1) ? 0 : 1) }
    }

    mutating func heardBeacon(_ key: NodeID, at address: HostPort) {
        if hints.count >= Self.memory, hints[key] == nil { hints.removeAll(keepingCapacity: true) }
        hints[key] = address
    }

    /// Whom of a conversation's participants a write in it dials at once: all of them, but
    /// of a large group (up to 1,024) only those this node seeks anyway; the eager tree
    /// carries the write to the others (Protocol.md §10.6, §19.6).
    func toReach(_ participants: [NodeID], largeGroup: Bool) -> [NodeID] {
        largeGroup ? participants.filter { wanted.contains($0) } : participants
    }

    /// Whether to dial `peer` now for a write meant for it (at most once per cooldown).
    mutating func mayReach(_ peer: NodeID, now: ContinuousClock.Instant) -> Bool {
        if let last = reached[peer], last.duration(to: now) < Self.reachCooldown { return false }
        if reached.count >= Self.memory { reached = reached.filter { $0.value.duration(to: now) < Self.reachCooldown } }
        reached[peer] = now
        return true
    }
}
