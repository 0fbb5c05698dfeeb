import ConfabCrypto
import ConfabWire
import Logging
import NIOCore

/// What a `DiscoveryService` announces, where, and how often.
public struct DiscoveryConfiguration: Sendable {
    /// The UDP port beacons are sent to and received on, unless configured otherwise.
    public static let defaultPort = 7460

    /// Signs the beacons; its public key is the node id they announce.
    public var identity: SigningKeyPair
    /// Beacons carry a tag derived from it; beacons with another tag are ignored.
    public var networkKey: NetworkKey
    /// The UDP port to bind (and, usually, the port of every target).
    public var port: Int = defaultPort
    /// The address to bind. "0.0.0.0" receives broadcasts on every interface; a socket
    /// bound to a unicast address does not receive broadcasts at all on Linux.
    public var bindHost: String = "0.0.0.0"
    /// Where beacons go: broadcast addresses, or unicast addresses of known peers.
    public var targets: [SocketAddress]
    /// Time between beacons; each wait is drawn at random within ±25 % of it, so nodes
    /// started together do not stay in step.
    public var interval: TimeAmount = .milliseconds(1500)
    /// The TCP port this node accepts sessions on, announced in every beacon.
    public var tcpPort: UInt16
    public var role: NodeRole
    public var logger: Logger

    public init(
        identity: SigningKeyPair, networkKey: NetworkKey, tcpPort: UInt16, role: NodeRole = .person,
        targets: [SocketAddress], logger: Logger = Logger(label: "confab.net.discovery")
    ) {
        self.identity = identity
        self.networkKey = networkKey
        self.tcpPort = tcpPort
        self.role = role
        self.targets = targets
        self.logger = logger
    }

    /// The broadcast address, at `port`, of each IPv4 interface that is up and is not
    /// loopback. Interfaces come and go, so callers may ask again from time to time.
    public static func defaultBroadcastTargets(port: Int = defaultPort) -> [SocketAddress] {
        BroadcastTargets.discover(port: port)
    }
}
