import ConfabClient
import ConfabModel
import ConfabSync
import ConfabWire
import Logging

/// How a node runs: where it listens, how it finds peers, which network it is on.
public struct NodeOptions: Sendable {
    public var directory: DataDirectory
    public var role: NodeRole = .person
    /// "::" takes both families (IPv4 peers appear as IPv4), falling back to IPv4 alone on
    /// a machine without IPv6.
    public var listenHost = "::"
    public var listenPort = HostPort.defaultSessionPort
    public var discovery = true
    public var discoveryPort = HostPort.defaultDiscoveryPort
    /// `ADDR` or `ADDR:PORT`; empty means every up interface's IPv4 broadcast address and
    /// IPv6 link-local group (`BeaconPlan`), followed as interfaces come and go.
    public var beaconTargets: [String] = []
    /// `HOST:PORT` or `KEY@HOST:PORT`, dialled with backoff whether or not discovery runs.
    public var staticPeers: [String] = []
    public var networkKey: NetworkKey = .default
    /// Where the key came from (`doctor` says so).
    public var networkKeySource: NetworkKeySetting.Source = .default
    public var logger = Logger(label: "confab")
    /// Set for a relay: its admission policy, quota and rate limit.
    public var relay: RelayConfiguration?
    /// A person's node stores at most this many bytes of entries per author (a relay has
    /// its own quota instead).
    public var authorQuotaBytes = AuthorQuota.defaultLimit
    /// A person's node takes each other author's new entries at most this fast, and keeps
    /// the rest aside until the author's budget refills; nil: no limit. A relay ignores it
    /// (its `--rate` limits each peer instead).
    public var authorRateLimit: AuthorRateLimit? = .default
    /// No file larger is sent or fetched (Protocol.md §17.3).
    public var maxFileSize: UInt64 = LocalMessenger.defaultMaxFileSize
    /// `HOST:PORT` to serve Prometheus metrics on at /metrics; nil: no metrics server.
    public var metricsAddress: String?
    /// What the node serves besides sessions and its control socket (the web app).
    public var frontEnds: [any NodeFrontEnd] = []

    public init(directory: DataDirectory) {
        self.directory = directory
    }
}
