import Foundation

/// What one run measured, from the first write until the network went quiet.
public struct SimulationReport: Sendable {
    public let config: SimulationConfig
    public let sessions: Int
    /// Sessions per node.
    public let degrees: [Int]
    public let tally: SimulationTally
    /// Virtual times: when the writes began, the last write, the last partition healed.
    public let start: Duration
    public let lastWrite: Duration
    public let lastHeal: Duration?
    /// Whether the network went quiet within the time limit.
    public let quiet: Bool
    /// Groups whose members hold different entries at the end: none when converged.
    public let diverged: [Int]
    /// Wall-clock seconds of the measured part, and of creating the nodes.
    public let wallSeconds: Double
    public let setupSeconds: Double
    /// Resident memory once every node was up and every group created, and the process's
    /// peak so far, in MiB.
    public let residentMiB: Double?
    public let peakMiB: Double?

    public var converged: Bool { quiet && diverged.isEmpty && tally.misbehavior.isEmpty }

    /// Every entry written, stored by every other member of its group.
    public var expectedDeliveries: Int { tally.writtenCount * (config.groupSize - 1) }

    public var messagesPerDelivery: Double { ratio(tally.messageCount, tally.deliveredCount) }
    public var bytesPerDelivery: Double { ratio(tally.byteCount, tally.deliveredCount) }
    public var duplicatesPerDelivery: Double { ratio(tally.duplicatesReceived, tally.deliveredCount) }
    /// The mean size of an entry received: what a delivery costs on the wire at the least.
    public var meanEntryBytes: Double { ratio(tally.entryBytesReceived, tally.entriesReceived) }

    /// From the last write (or the end of the last partition, if later) until the last
    /// message, and the last entry of any kind (receipts included), was stored everywhere.
    public var messagesConverged: Duration? { tally.lastMessageDelivery.map { $0 - settled } }
    public var entriesConverged: Duration? { tally.lastDelivery.map { $0 - settled } }
    private var settled: Duration { max(lastWrite, lastHeal ?? .zero) }

    /// A span in timer rounds (the engine's tick), rounded up.
    public func rounds(_ span: Duration) -> Int {
        Int((max(.zero, span) / config.tickInterval).rounded(.up))
    }

    private func ratio(_ a: Int, _ b: Int) -> Double { b == 0 ? 0 : Double(a) / Double(b) }

    /// The report as printed by the benchmark. `verifyRate`: entries a second one core
    /// verifies, measured in the same run, the ceiling the engines' work is set against.
    public func lines(verifyRate: Double? = nil) -> [String] {
        let groups = config.nodes * config.groupsPerNode / config.groupSize
        let kinds = tally.messages.sorted { $0.value > $1.value }.map { "\($0.key) \($0.value)" }
        let written = tally.written.sorted { $0.key < $1.key }.map { "\($0.value) \($0.key)s" }
        var lines = [
            "\(config.nodes) nodes, "
                + (config.room
                    ? "one room of all "
                    : "\(groups) \(config.large ? "large " : "")groups of \(config.groupSize) "
                        + "(\(config.groupsPerNode) per node), ")
                + "\(config.topology): \(sessions) sessions, \(degrees.min() ?? 0)–\(degrees.max() ?? 0) per node; "
                + "\(config.partitions) partitions of \(percent(config.partitionShare)) for \(seconds(config.partitionLength))",
            "  written \(written.joined(separator: ", ")) in \(seconds(config.writeWindow)); "
                + "delivered \(tally.deliveredCount) of \(expectedDeliveries) "
                + (converged ? "— converged" : "— NOT converged (quiet \(quiet), diverged groups \(diverged.count))"),
            String(
                format:
                    "  per entry delivered: %.2f messages, %.0f bytes (entry itself %.0f, ratio %.1f), %.3f duplicates",
                messagesPerDelivery, bytesPerDelivery, meanEntryBytes,
                meanEntryBytes > 0 ? bytesPerDelivery / meanEntryBytes : 0, duplicatesPerDelivery),
            "  messages: \(kinds.joined(separator: ", "))",
        ]
        if let messages = messagesConverged, let entries = entriesConverged {
            lines.append(
                "  convergence after the last write or heal: messages \(millis(messages)) "
                    + "(\(rounds(messages)) rounds of \(millis(config.tickInterval))), "
                    + "all entries incl. receipts \(millis(entries)) (\(rounds(entries)) rounds)")
        }
        var wall = String(
            format: "  wall %.1f s (%.0f µs per delivery)", wallSeconds,
            wallSeconds * 1e6 / Double(max(1, tally.deliveredCount)))
        if let verifyRate {
            wall += String(
                format: "   ceiling verify alone %.1f s (%.0f/s)   ratio %.2f",
                Double(tally.deliveredCount) / verifyRate, verifyRate,
                Double(tally.deliveredCount) / verifyRate / max(wallSeconds, 1e-9))
        }
        wall += String(format: "; nodes created in %.1f s", setupSeconds)
        if let residentMiB, let peakMiB {
            wall += String(
                format: ", RSS %.0f MiB once up (%.2f MiB per node), peak %.0f MiB", residentMiB,
                residentMiB / Double(config.nodes), peakMiB)
        }
        lines.append(wall)
        lines += tally.misbehavior.prefix(5).map { "  misbehaviour: \($0)" }
        return lines
    }

    private func percent(_ share: Double) -> String { "\(Int((share * 100).rounded()))% of nodes" }
    private func seconds(_ span: Duration) -> String { String(format: "%.1f s", span / .seconds(1)) }
    private func millis(_ span: Duration) -> String { String(format: "%.0f ms", span / .milliseconds(1)) }
}
