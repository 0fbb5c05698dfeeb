import ConfabCrypto
import ConfabModel
import ConfabWire
import Logging
import NIOCore

/// What a `DiscoveryService` announces, where, and how often.
public struct DiscoveryConfiguration: Sendable {
    /// The UDP port beacons are sent to and received on, unless configured otherwise.
    public static let defaultPort = HostPort.defaultDiscoveryPort

    /// Where beacons go.
    public enum Targets: Sendable, Equatable {
        /// Every up interface's IPv4 broadcast address and IPv6 link-local group
        /// (`BeaconPlan`), followed as interfaces come and go.
        case interfaces
        /// These addresses only (`--beacon`): broadcast or unicast, either family.
        case fixed([SocketAddress])
    }

    /// Signs the beacons; its public key is the node id they announce.
    public var identity: SigningKeyPair
    /// Beacons carry a tag derived from it; beacons with another tag are ignored.
    public var networkKey: NetworkKey
    /// The UDP port to bind (and, usually, the port of every target).
    public var port: Int = defaultPort
    /// The IPv4 address to bind. "0.0.0.0" receives broadcasts on every interface; a socket
    /// bound to a unicast address does not receive broadcasts at all on Linux.
    public var bindHost: String = "0.0.0.0"
    /// Whether to beacon and listen on IPv6 too (the group on every interface, `[::]`).
    public var ipv6 = true
    public var targets: Targets
    /// The pace of beacons; each wait is drawn at random within ±25 % of it, so nodes
    /// started together do not stay in step.
    public var schedule: BeaconSchedule = .standard
    /// How often the interfaces are read again when the targets follow them.
    public var interfaceCheckInterval: TimeAmount = .seconds(2)
    /// The TCP port this node accepts sessions on, announced in every beacon.
    public var tcpPort: UInt16
    public var role: NodeRole
    public var logger: Logger

    public init(
        identity: SigningKeyPair, networkKey: NetworkKey, tcpPort: UInt16, role: NodeRole = .person,
        targets: Targets, logger: Logger = Logger(label: "confab.net.discovery")
    ) {
        self.identity = identity
        self.networkKey = networkKey
        self.tcpPort = tcpPort
        self.role = role
        self.targets = targets
        self.logger = logger
    }
}
