import ConfabClient
import ConfabNet
import ConfabSync
import ConfabWire
import Metrics
import Synchronization

import class Prometheus.PrometheusCollectorRegistry
import struct Prometheus.PrometheusMetricsFactory

/// The node's metrics, recorded through swift-metrics into this node's own Prometheus
/// registry (not the process-wide metrics system, so several nodes in one process, as in
/// tests, keep separate counts).
final class NodeMetrics: Sendable {
    let registry = PrometheusCollectorRegistry()
    private let factory: PrometheusMetricsFactory

    let sessionsOpen: Gauge
    let sessionsOpened: Counter
    let peersOnline: Gauge
    let entriesStored: Counter
    let entriesForwarded: Counter
    let bytesReceived: Counter
    let bytesSent: Counter
    let storageBytes: Gauge
    let quotaBytes: Gauge
    let rateLimitPauses: Counter
    let entriesReceived: Counter
    let duplicatesReceived: Counter
    let entryBytesReceived: Counter
    let entriesOverRate: Counter
    /// File chunks (and manifests) that did not match their names (Protocol.md §17.5).
    let badChunks: Counter
    /// Entry signatures checked: one per chain of an author's entries in a message, and one
    /// per chain top sent on that was not checked lately (Protocol.md §7 step 3, §12 step 3).
    let signaturesChecked: Counter
    /// The store's count when it was last copied into `signaturesChecked`.
    private let signaturesSeen = Mutex(0)

    init() {
        factory = PrometheusMetricsFactory(registry: registry)
        sessionsOpen = Gauge(label: "confab_sessions_open", factory: factory)
        sessionsOpened = Counter(label: "confab_sessions_opened_total", factory: factory)
        peersOnline = Gauge(label: "confab_peers_online", factory: factory)
        entriesStored = Counter(label: "confab_entries_stored_total", factory: factory)
        entriesForwarded = Counter(label: "confab_entries_forwarded_total", factory: factory)
        bytesReceived = Counter(label: "confab_bytes_received_total", factory: factory)
        bytesSent = Counter(label: "confab_bytes_sent_total", factory: factory)
        storageBytes = Gauge(label: "confab_storage_bytes", factory: factory)
        quotaBytes = Gauge(label: "confab_storage_quota_bytes", factory: factory)
        rateLimitPauses = Counter(label: "confab_rate_limit_pauses_total", factory: factory)
        entriesReceived = Counter(label: "confab_entries_received_total", factory: factory)
        duplicatesReceived = Counter(label: "confab_entries_duplicate_total", factory: factory)
        entryBytesReceived = Counter(label: "confab_entry_bytes_received_total", factory: factory)
        entriesOverRate = Counter(label: "confab_entries_over_rate_total", factory: factory)
        badChunks = Counter(label: "confab_file_chunks_bad_total", factory: factory)
        signaturesChecked = Counter(label: "confab_entry_signatures_checked_total", factory: factory)
    }

    /// Brings `confab_entry_signatures_checked_total` up to the store's count of checks.
    func recordSignatures(total: Int) {
        let added = signaturesSeen.withLock { seen in
            defer { seen = max(seen, total) }
            return max(0, total - seen)
        }
        if added > 0 { signaturesChecked.increment(by: Int64(added)) }
    }

    /// Inputs refused or rejected, by reason: `quota`, `author_quota`, `not_allowed`,
    /// `unknown_key`; an entry's rejection category (`bad_signature`, `fork`,
    /// `missing_dependency`, … as in Protocol.md §7); `protocol` for other violations;
    /// connections a limit turned away (`connection_limit`), sessions evicted for a known
    /// peer (`evicted`) and closed for not reading (`not_reading`).
    func rejected(_ reason: String, count: Int = 1) {
        Counter(label: "confab_rejected_total", dimensions: [("reason", reason)], factory: factory)
            .increment(by: Int64(count))
    }

    /// What one engine output did: entries stored from peers, entries sent, refusals.
    func record(_ output: SyncOutput, stored: Int) {
        if stored > 0 { entriesStored.increment(by: Int64(stored)) }
        if output.entriesReceived > 0 {
            entriesReceived.increment(by: Int64(output.entriesReceived))
            duplicatesReceived.increment(by: Int64(output.duplicatesReceived))
            entryBytesReceived.increment(by: Int64(output.entryBytesReceived))
        }
        let forwarded =
            output.replies.reduce(0) { $0 + $1.entryCount }
            + output.pushes.values.reduce(0) { $0 + $1.reduce(0) { $0 + $1.entryCount } }
        if forwarded > 0 { entriesForwarded.increment(by: Int64(forwarded)) }
        // Kept aside (or dropped, to be asked for again) for their author's rate.
        let overRate = output.heldForRate + output.droppedForRate
        if overRate > 0 { entriesOverRate.increment(by: Int64(overRate)) }
        for (reason, count) in output.refused { rejected(reason.rawValue, count: count) }
        for (reason, count) in output.notStored { rejected(reason, count: count) }
        if output.misbehavior != nil { rejected(output.rejectedEntry ?? "protocol") }
    }

    /// The text served at /metrics.
    func exposition() -> [UInt8] { registry.emitToBuffer() }
}

extension SessionMessage {
    fileprivate var entryCount: Int {
        if case .entries(let entries) = self { return entries.count }
        return 0
    }
}
