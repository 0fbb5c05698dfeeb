import ConfabClient
import ConfabModel

/// How a relay (`confab relay`) decides whom to serve and how much to hold.
public struct RelayConfiguration: Sendable {
    public enum Accept: String, Sendable, CaseIterable {
        /// Every node of the network.
        case any
        /// Only keys on the allow-list: `--allow KEY`, and peers added by hand to the
        /// relay's data directory (`confab peers add`).
        case known
    }

    public var accept: Accept = .any
    /// Keys allowed besides the peers added by hand.
    public var allow: Set<NodeID> = []
    /// Bytes of stored entries beyond which new entries are refused; nil: no limit.
    public var quotaBytes: Int?
    /// Entries per second each peer may send, with `burst` at once; nil: no limit.
    public var entriesPerSecond: Double?
    public var burst: Double?

    public init() {}

    /// The part of the quota kept for known senders (allowed or added by hand): above
    /// `quota - reserve`, entries of unknown senders are refused first.
    public static let reserveFraction = 0.1
}
