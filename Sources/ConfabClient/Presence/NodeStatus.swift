import ConfabModel
import ConfabWire

/// A snapshot of the node for `confab status`.
public struct NodeStatus: Sendable, Codable, Equatable {
    public struct Session: Sendable, Codable, Equatable {
        public let peer: NodeID
        public let name: String
        public let address: String
        public let initiator: Bool

        public init(peer: NodeID, name: String, address: String, initiator: Bool) {
            self.peer = peer
            self.name = name
            self.address = address
            self.initiator = initiator
        }
    }

    /// Always true here; `status --json` says false, with the outbox, when no node runs.
    public var running = true
    public let id: NodeID
    public let name: String
    public let role: NodeRole
    public let listen: String
    public let discovery: Bool
    public let sessions: [Session]
    public let outbox: Int
    /// Entries peers announced that this node does not hold yet (a sync in progress).
    public let outstanding: Int
    /// What peers sent this node since it started.
    public var traffic = Traffic()
    /// Protocol messages on every session since the node started.
    public var messages = Messages()
    /// Where discovery listens and where beacons go now (empty when discovery is off).
    public var beacons = Beacons()
    /// The store's transactions since the node started, and the writes they held: under
    /// load, several writes share one commit (Protocol.md §8.0).
    public var commits = Commits()
    /// What discovery and the session listener did since the node started; absent from
    /// a node that does not count them.
    public var activity: Activity?
    /// The protocol version this node speaks (Protocol.md §12.1).
    public var protocolVersion: UInt32? = SessionCodec.protocolVersion
    /// What peers on other protocol versions cost the person (`PeerPresence.protocolNotice`).
    public var versionNotices: [String]?
    /// Where the node serves the web app (`http://127.0.0.1:7462/`); absent when it serves none.
    public var web: String?
    /// The network key's tag (16 hex characters, Protocol.md §11.2): two nodes meet only when
    /// theirs match. Absent from a node that does not say.
    public var networkTag: String?

    public init(
        id: NodeID, name: String, role: NodeRole, listen: String, discovery: Bool, sessions: [Session], outbox: Int,
        outstanding: Int, traffic: Traffic = Traffic()
    ) {
        self.id = id
        self.name = name
        self.role = role
        self.listen = listen
        self.discovery = discovery
        self.sessions = sessions
        self.outbox = outbox
        self.outstanding = outstanding
        self.traffic = traffic
    }

    public struct Commits: Sendable, Codable, Equatable {
        public var transactions = 0
        public var writes = 0
        public var largestBatch = 0
        /// Transactions that waited for fsync (every one holding a write of mine).
        public var synced = 0
        /// Whether entries received since the last synced commit are not on disk yet
        /// (they are within a second).
        public var pendingSync = false

        public init(
            transactions: Int = 0, writes: Int = 0, largestBatch: Int = 0, synced: Int = 0, pendingSync: Bool = false
        ) {
            self.transactions = transactions
            self.writes = writes
            self.largestBatch = largestBatch
            self.synced = synced
            self.pendingSync = pendingSync
        }
    }

    /// Counts of what costs an idle node on a busy LAN: beacons heard, checked and acted
    /// on, beacons sent, connections taken and refused, handshakes that failed.
    public struct Activity: Sendable, Codable, Equatable {
        /// Datagrams received on the discovery port.
        public var beaconsReceived = 0
        /// Beacon signatures checked (not our own beacons, replays or other networks').
        public var beaconsChecked = 0
        /// Repeats of a key's last beacon the node had no use for, dropped unchecked.
        public var beaconsRepeated = 0
        /// Beacons acted on.
        public var beaconsAccepted = 0
        public var beaconsSent = 0
        /// TCP connections accepted, including those then refused.
        public var connectionsAccepted = 0
        /// Connections closed because a limit was reached.
        public var connectionsRefused = 0
        /// Connections (either direction) that ended before their handshake completed.
        public var handshakeFailures = 0
        public var sessionsOpened = 0

        public init() {}

        private enum CodingKeys: String, CodingKey {
            case beaconsReceived, beaconsChecked, beaconsRepeated, beaconsAccepted, beaconsSent
            case connectionsAccepted, connectionsRefused, handshakeFailures, sessionsOpened
        }

        /// A node of an earlier build counts no repeats: its status still reads.
        public init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            beaconsReceived = try container.decode(Int.self, forKey: .beaconsReceived)
            beaconsChecked = try container.decode(Int.self, forKey: .beaconsChecked)
            beaconsRepeated = try container.decodeIfPresent(Int.self, forKey: .beaconsRepeated) ?? 0
            beaconsAccepted = try container.decode(Int.self, forKey: .beaconsAccepted)
            beaconsSent = try container.decode(Int.self, forKey: .beaconsSent)
            connectionsAccepted = try container.decode(Int.self, forKey: .connectionsAccepted)
            connectionsRefused = try container.decode(Int.self, forKey: .connectionsRefused)
            handshakeFailures = try container.decode(Int.self, forKey: .handshakeFailures)
            sessionsOpened = try container.decode(Int.self, forKey: .sessionsOpened)
        }
    }

    /// Protocol messages sent to and received from peers, every kind but the keepalive's
    /// Ping and Pong: what a node's own doings cost the others (a clock re-announced is a
    /// message, though no entry moves).
    public struct Messages: Sendable, Codable, Equatable {
        public var sent = 0
        public var received = 0

        public init(sent: Int = 0, received: Int = 0) {
            self.sent = sent
            self.received = received
        }
    }

    public struct Beacons: Sendable, Codable, Equatable {
        /// The UDP port, 0 when discovery is off.
        public var port = 0
        /// The UDP sockets, one per family.
        public var listening: [String] = []
        /// `10.0.0.255:7460 on eth0`, `[ff12::7460%eth0]:7460`, or the `--beacon` addresses.
        public var targets: [String] = []
        /// Up interfaces that get no beacon, and why.
        public var skipped: [String] = []

        public init() {}
    }

    /// Entries received from peers, how many were copies of entries already held, and what
    /// they weighed: a node in a group should receive each entry about once.
    public struct Traffic: Sendable, Codable, Equatable {
        public var entriesReceived = 0
        public var duplicatesReceived = 0
        public var entriesStored = 0
        public var entryBytesReceived = 0
        /// Bytes received in entries per entry stored (duplicates and refusals included).
        public var bytesPerEntryStored: Double {
            entriesStored == 0 ? 0 : Double(entryBytesReceived) / Double(entriesStored)
        }

        public init() {}

        private enum CodingKeys: String, CodingKey {
            case entriesReceived, duplicatesReceived, entriesStored, entryBytesReceived, bytesPerEntryStored
        }

        public init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            entriesReceived = try container.decode(Int.self, forKey: .entriesReceived)
            duplicatesReceived = try container.decode(Int.self, forKey: .duplicatesReceived)
            entriesStored = try container.decode(Int.self, forKey: .entriesStored)
            entryBytesReceived = try container.decode(Int.self, forKey: .entryBytesReceived)
        }

        public func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(entriesReceived, forKey: .entriesReceived)
            try container.encode(duplicatesReceived, forKey: .duplicatesReceived)
            try container.encode(entriesStored, forKey: .entriesStored)
            try container.encode(entryBytesReceived, forKey: .entryBytesReceived)
            try container.encode((bytesPerEntryStored * 10).rounded() / 10, forKey: .bytesPerEntryStored)
        }
    }
}
