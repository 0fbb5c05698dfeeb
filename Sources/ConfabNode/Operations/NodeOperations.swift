import ConfabClient
import ConfabModel
import ConfabNet
import ConfabStore
import Logging

/// What a node needs for operations beside sync: its metrics, its relay policy (relays
/// only), the metrics server, and the counters last copied into the metrics.
///
/// Used from the node's isolation only.
final class NodeOperations {
    let metrics = NodeMetrics()
    let policy: RelayPolicy?
    let rateLimiter: EntryRateLimiter?
    var metricsServer: MetricsServer?
    /// Sessions closed for policy: their messages are ignored until they are gone.
    var refusedSessions: Set<UInt64> = []
    /// Peers (relays) that ended a session with a refusal, and when: their beacons do not
    /// make us dial again for a while.
    var refusedBy: [NodeID: ContinuousClock.Instant] = [:]
    /// Sessions of peers whose protocol versions do not overlap ours, closing: what else
    /// they send is ignored.
    var incompatibleSessions: Set<UInt64> = []
    var lastStatistics = SessionStatistics()
    var lastRateLimitPauses = 0
    /// What peers sent this node since it started, for `status`.
    var traffic = NodeStatus.Traffic()

    init(options: NodeOptions, store: ConfabStore) throws {
        if let relay = options.relay {
            policy = try RelayPolicy(configuration: relay, store: store, logger: options.logger)
            rateLimiter = relay.entriesPerSecond.map { rate in
                EntryRateLimiter(entriesPerSecond: rate, burst: relay.burst ?? max(rate, 256))
            }
            if let quota = relay.quotaBytes { metrics.quotaBytes.record(quota) }
        } else {
            policy = nil
            rateLimiter = nil
        }
    }
}
