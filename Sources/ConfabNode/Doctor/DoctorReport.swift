import ConfabClient
import Foundation

/// What `confab doctor` found out, before any judgement: plain values, the JSON of
/// `doctor --json` (with `findings` and `ok` beside them, see `DoctorReport`). Every field is
/// a fact gathered in one run; `Diagnosis` turns them into findings and advice.
public struct DoctorFacts: Sendable, Codable, Equatable {
    /// The node serving this data directory, if one answered on the control socket.
    public struct Node: Sendable, Codable, Equatable {
        public var running: Bool
        public var id: String
        public var name: String?
        /// Whether the running node has discovery on (always true when none runs: the
        /// doctor checks it as `confab up` would run it).
        public var discovery: Bool = true
        /// Peers it has a session with now.
        public var sessions: Int = 0
    }

    public struct Network: Sendable, Codable, Equatable {
        /// 16 hex characters (Protocol.md §11.2).
        public var tag: String
        /// flag, environment, config or default.
        public var source: String
        public var isDefault: Bool
    }

    public struct Interface: Sendable, Codable, Equatable {
        public var name: String
        public var up: Bool
        public var loopback: Bool = false
        /// `10.0.0.1/24`, `fe80::1/64`.
        public var addresses: [String] = []
    }

    /// Where beacons go: the running node's targets, or those `confab up` would use.
    public struct Beacons: Sendable, Codable, Equatable {
        /// The discovery UDP port.
        public var port: Int
        /// `interfaces` (every up interface, `BeaconPlan`) or `fixed` (`--beacon`).
        public var mode: String
        public var targets: [Target] = []
        /// Up interfaces that get no beacon, and why (`eth1: … has no broadcast address`).
        public var skipped: [String] = []
    }

    public struct Target: Sendable, Codable, Equatable {
        /// `10.0.0.255:7460`, `[ff12::7460%eth0]:7460`.
        public var address: String
        public var interface: String?
        /// `broadcast`, `multicast`, or `fixed`.
        public var kind: String
    }

    /// Whether a port could be bound here.
    public struct Port: Sendable, Codable, Equatable {
        public enum State: String, Sendable, Codable {
            /// Bound and released: nothing in the way.
            case free
            /// The running node's own.
            case node
            /// Another socket holds it.
            case inUse = "in-use"
            /// Not allowed (a port below 1024 without the privilege).
            case denied
            /// No such address family on this machine (IPv6 off): not a problem.
            case unsupported
            case failed
        }

        /// `udp` or `tcp`.
        public var proto: String
        /// `0.0.0.0:7460`, `[::]:7461`.
        public var address: String
        public var port: Int
        public var state: State
        public var error: String?
    }

    /// A node heard by its beacon during the window.
    public struct HeardNode: Sendable, Codable, Equatable {
        public var id: String
        /// The name this data directory knows it by, if any.
        public var name: String?
        /// Where it accepts sessions: the datagram's source address and the beacon's port.
        public var address: String
        /// `person` or `relay`.
        public var role: String
        /// Present for a node of another network: that network's tag.
        public var tag: String?
        /// The protocol version its beacon says it speaks.
        public var version: UInt32?
    }

    /// What arrived on the discovery port during the window.
    public struct Heard: Sendable, Codable, Equatable {
        /// Nodes of this network (the doctor's own and this node's beacons excluded).
        public var nodes: [HeardNode] = []
        /// Nodes whose beacons carry another network's tag (signature verified).
        public var otherNetworks: [HeardNode] = []
        /// Datagrams that were beacons but whose signature did not verify.
        public var badSignature = 0
        /// Datagrams that were not beacons at all (wrong magic, undecodable, too large).
        public var malformed = 0
    }

    /// One beacon the doctor sent to one target, and whether it came back to its socket.
    public struct Echo: Sendable, Codable, Equatable {
        public var target: String
        public var interface: String?
        public var sent: Bool
        public var received: Bool
        /// Why it could not be sent.
        public var error: String?
    }

    /// One known peer, and whether it can be reached now.
    public struct PeerCheck: Sendable, Codable, Equatable {
        public enum Result: String, Sendable, Codable {
            /// The running node has a session with it now: not probed.
            case connected
            /// TCP connect and secret handshake succeeded.
            case ok
            /// Nothing accepts on that port (connection refused).
            case refused
            /// No answer within the probe's time.
            case timedOut = "timed-out"
            /// Connected, but the handshake failed: see `detail`.
            case handshakeFailed = "handshake-failed"
            /// No route, network down, bad address.
            case unreachable
            /// Blocked here: not probed.
            case blocked
        }

        public enum Failure: String, Sendable, Codable {
            /// The peer closed after our first message: it holds another network key.
            case otherNetwork = "other-network"
            /// The peer took our first message (same network) but not our key proof: another
            /// key answers at that address, or the node refused us.
            case otherKey = "other-key"
            /// The peer stopped answering in the middle of the handshake.
            case noAnswer = "no-answer"
        }

        public var id: String
        public var name: String
        public var address: String?
        public var lastSeen: Date?
        public var result: Result
        /// Why the handshake failed, for `handshake-failed`.
        public var failure: Failure?
        /// The error as the system gave it.
        public var detail: String?
        /// How long the connect and handshake took.
        public var milliseconds: Int?
    }

    /// Packet-filter rules that may stand in discovery's way, where they could be read.
    public struct Firewall: Sendable, Codable, Equatable {
        public struct Tool: Sendable, Codable, Equatable {
            /// `nft`, `iptables`, `ip6tables`.
            public var name: String
            /// `read`, `absent` (not installed) or `failed` (e.g. not permitted).
            public var state: String
            public var error: String?
        }

        public var tools: [Tool] = []
        /// Rules naming the discovery port, dropping or rejecting UDP, or dropping all input
        /// by policy: `nft inet filter input: udp dport 7460 drop`.
        public var rules: [String] = []

        public var anyRead: Bool { tools.contains { $0.state == "read" } }
    }

    public var node: Node
    public var network: Network
    /// How long the doctor listened for beacons.
    public var seconds: Double
    public var interfaces: [Interface] = []
    public var beacons: Beacons
    /// Where sessions are (or would be) accepted.
    public var listen: [String] = []
    public var ports: [Port] = []
    public var heard: Heard = Heard()
    public var echoes: [Echo] = []
    /// At most 16, most recently seen first.
    public var peers: [PeerCheck] = []
    public var firewall: Firewall = Firewall()
    /// What peers on other protocol versions cost, from the running node's sessions and
    /// from beacons heard (Protocol.md §12.1).
    public var protocolNotices: [String] = []
}

/// `doctor --json`: the facts, and beside them the findings (in words) and the verdict, in
/// one object.
public struct DoctorReport: Sendable, Encodable, Equatable {
    public var facts: DoctorFacts
    public var findings: [DoctorFinding]
    /// True when at least one peer was heard, is connected or answered the probe: what
    /// makes `confab doctor` exit 0.
    public var ok: Bool
    /// How long the whole run took.
    public var elapsed: Double

    public init(facts: DoctorFacts, diagnosis: Diagnosis, elapsed: Double) {
        self.facts = facts
        self.findings = diagnosis.findings
        self.ok = diagnosis.ok
        self.elapsed = elapsed
    }

    private enum Keys: String, CodingKey { case findings, ok, elapsed }

    /// The facts' fields and these side by side, not nested: one flat object.
    public func encode(to encoder: any Encoder) throws {
        try facts.encode(to: encoder)
        var container = encoder.container(keyedBy: Keys.self)
        try container.encode(findings, forKey: .findings)
        try container.encode(ok, forKey: .ok)
        try container.encode((elapsed * 100).rounded() / 100, forKey: .elapsed)
    }
}
