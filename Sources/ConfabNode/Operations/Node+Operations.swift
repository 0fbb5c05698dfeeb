import ConfabClient
import ConfabModel
import ConfabNet
import ConfabSync
import ConfabWire
import Foundation
import Logging
import NIOCore

/// Relay policy, metrics and the metrics server: the node's operations side, kept apart
/// from the sync core in Node.swift.
extension Node {
    /// Says how the relay is configured, and binds the metrics server when `--metrics` asks
    /// for one (its service serves it).
    func startOperations() async throws -> MetricsServer? {
        if let policy = operations.policy {
            let relay = policy.configuration
            logger.info(
                "relay: storing every conversation offered within the network",
                metadata: [
                    "event": "relay_started", "accept": "\(relay.accept.rawValue)",
                    "allow": "\(relay.allow.count)",
                    "quota_bytes": "\(relay.quotaBytes.map(String.init) ?? "none")",
                    "stored_bytes": "\(policy.storedBytes)",
                    "rate": "\(relay.entriesPerSecond.map { "\($0)/s" } ?? "none")",
                ])
        }
        guard let address = options.metricsAddress else { return nil }
        // Port 0 (pick a free one, announced in the log) is allowed here, unlike for peers.
        guard let parsed = try? HostPort(address, ports: 0...65535) else {
            throw NodeError.badAddress(address, "want HOST:PORT for --metrics")
        }
        let (host, port) = (parsed.host, parsed.port)
        let metrics = operations.metrics
        let server: MetricsServer
        do {
            server = try await MetricsServer.start(host: host, port: port, group: group) { metrics.exposition() }
        } catch {
            throw NodeError.badAddress(
                address, "cannot serve metrics there (\(error)); choose another --metrics HOST:PORT")
        }
        operations.metricsServer = server
        return server
    }

    func stopOperations() async {
        await operations.metricsServer?.stop()
        operations.metricsServer = nil
    }

    /// A relay run with `--accept known` ends sessions of keys not on its allow-list, with
    /// the reason in its Bye so the other side's log says why. Returns false for those.
    func admitSession(_ session: PeerSession) -> Bool {
        operations.metrics.sessionsOpened.increment()
        guard let policy = operations.policy else { return true }
        try? policy.refreshAllowList()
        guard let reason = policy.sessionRefusal(for: session.remote) else { return true }
        logger.notice(
            "refusing session: key not on the allow-list",
            metadata: [
                "event": "session_refused", "peer": "\(session.remote.hex)",
                "address": "\(session.remoteAddress?.display ?? "?")",
            ])
        operations.metrics.rejected("unknown_key")
        operations.refusedSessions.insert(session.id)
        session.close(reason: reason)
        return false
    }

    /// Whether a message belongs to a session refused by policy (and is to be ignored).
    func isRefused(_ session: PeerSession) -> Bool { operations.refusedSessions.contains(session.id) }

    func forgetRefused(_ session: PeerSession) -> Bool {
        operations.refusedSessions.remove(session.id) != nil
    }

    /// Logs a peer's Bye, which carries the reason when a relay refused us.
    func noteBye(_ reason: ByeReason, from session: PeerSession) {
        noteBye(reason, from: session.remote)
    }

    /// The reason is the peer's own text: logged quoted and escaped, so it cannot forge a
    /// log line or drive the terminal the log is read on.
    func noteBye(_ reason: ByeReason, from peer: NodeID) {
        if reason.isRefusal { operations.refusedBy[peer] = .now }
        let quoted = TextSanitizer.quoted(reason.rawValue)
        logger.info(
            "peer ended the session: \(quoted)",
            metadata: ["event": "peer_bye", "peer": "\(peer.shortHex)", "reason": "\(quoted)"])
    }

    /// A peer that refused us is not redialled on its beacons for this long.
    static let refusalBackoff = Duration.seconds(60)

    /// Peers not to dial on their beacons: keys our own allow-list refuses, peers that
    /// refused us within the backoff, and peers whose version (`version`: what their beacon
    /// says now) this node cannot sync with.
    func avoidsDialing(_ peer: NodeID, version: UInt32? = nil) -> Bool {
        if operations.policy?.sessionRefusal(for: peer) != nil { return true }
        if incompatiblePeers.avoids(peer, version: version) { return true }
        guard let when = operations.refusedBy[peer] else { return false }
        if when.duration(to: .now) < Self.refusalBackoff { return true }
        operations.refusedBy[peer] = nil
        return false
    }

    /// Counts what an engine output did and logs a relay's refusals.
    func recordOperations(_ output: SyncOutput, from session: PeerSession?) {
        // Others' entries: from the peer, or kept aside for their author's rate and stored on
        // the timer (the output also holds what this node wrote, a receipt).
        let stored = output.appended.filter { $0.author != me }.count
        operations.metrics.record(output, stored: stored)
        operations.metrics.recordSignatures(total: engine.store.signatures.count)
        operations.traffic.entriesReceived += output.entriesReceived
        operations.traffic.duplicatesReceived += output.duplicatesReceived
        operations.traffic.entryBytesReceived += output.entryBytesReceived
        operations.traffic.entriesStored += stored
        if let session, stored > 0, operations.policy != nil {
            logger.debug(
                "stored entries",
                metadata: [
                    "event": "entries_stored", "peer": "\(session.remote.shortHex)", "count": "\(stored)",
                    "conversations": "\(Set(output.appended.map(\.conversationID)).count)",
                ])
        }
        if let session, !output.refused.isEmpty {
            logger.info(
                "refused entries; the sender keeps them queued",
                metadata: [
                    "event": "entries_refused", "peer": "\(session.remote.shortHex)",
                    "reasons":
                        "\(output.refused.map { "\($0.key.rawValue)=\($0.value)" }.sorted().joined(separator: ","))",
                ])
        }
        if let policy = operations.policy { operations.metrics.storageBytes.record(policy.storedBytes) }
    }

    /// Copies session counters and presence into the metrics (every housekeeping tick).
    func updateOperationalMetrics(sessions: SessionService, online: Int) {
        let metrics = operations.metrics
        let statistics = sessions.statistics
        let last = operations.lastStatistics
        metrics.sessionsOpen.record(sessions.sessions.count)
        metrics.peersOnline.record(online)
        if statistics.bytesReceived > last.bytesReceived {
            metrics.bytesReceived.increment(by: Int64(statistics.bytesReceived - last.bytesReceived))
        }
        if statistics.bytesSent > last.bytesSent {
            metrics.bytesSent.increment(by: Int64(statistics.bytesSent - last.bytesSent))
        }
        // Connections turned away by a limit, by which one: what an operator watches for
        // during a flood (docs/limits.md).
        for (reason, now, before) in [
            ("connection_limit", statistics.refused, last.refused), ("evicted", statistics.evicted, last.evicted),
            ("not_reading", statistics.backlogClosed, last.backlogClosed),
        ] where now > before {
            metrics.rejected(reason, count: now - before)
        }
        operations.lastStatistics = statistics
        if let limiter = operations.rateLimiter {
            let pauses = limiter.pauseCount
            if pauses > operations.lastRateLimitPauses {
                metrics.rateLimitPauses.increment(by: Int64(pauses - operations.lastRateLimitPauses))
                operations.lastRateLimitPauses = pauses
            }
        }
        if let policy = operations.policy { metrics.storageBytes.record(policy.storedBytes) }
    }

    /// Every few seconds: peers added by hand while a relay runs join its allow-list, and a
    /// person's node sums its entries, only when someone may scrape the result.
    func updateStorageFigures() {
        if let policy = operations.policy {
            try? policy.refreshAllowList()
        } else if options.metricsAddress != nil, let bytes = try? local.store.storedEntryBytes() {
            operations.metrics.storageBytes.record(bytes)
        }
    }
}
