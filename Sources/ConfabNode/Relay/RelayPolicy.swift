import ConfabClient
import ConfabModel
import ConfabStore
import ConfabSync
import ConfabWire
import Logging

/// A relay's admission rules: whose sessions it keeps, whose entries it stores, and how
/// much. It never drops what it has stored; it refuses what it cannot take, and the sender
/// keeps those entries queued ("sending") until a relay or the recipient takes them.
///
/// Used from the node's isolation only.
final class RelayPolicy: EntryAdmission {
    enum Usage: Int, Comparable {
        case normal, reserve, full
        static func < (a: Usage, b: Usage) -> Bool { a.rawValue < b.rawValue }
    }

    let configuration: RelayConfiguration
    private let store: ConfabStore
    private let logger: Logger
    private var handAdded: Set<NodeID> = []
    /// Bytes of stored entries and of files' content (allocated once fetching starts), both
    /// under the quota.
    private(set) var storedBytes: Int
    /// Files whose content counts in `storedBytes` already.
    private var countedFiles: Set<FileID>
    private var usage = Usage.normal

    init(configuration: RelayConfiguration, store: ConfabStore, logger: Logger) throws {
        self.configuration = configuration
        self.store = store
        self.logger = logger
        let files = try store.allocatedFiles()
        countedFiles = Set(files.keys)
        storedBytes = try store.storedEntryBytes() + files.values.reduce(0, +)
        try refreshAllowList()
        if let quota = configuration.quotaBytes { noteUsage(quota: quota) }
    }

    /// Peers added by hand while the relay runs count from the next session on.
    func refreshAllowList() throws {
        handAdded = try store.peersAddedByHand()
    }

    func isKnown(_ node: NodeID) -> Bool { configuration.allow.contains(node) || handAdded.contains(node) }

    /// Nil when a session with `peer` may go on; otherwise the reason sent in its Bye.
    func sessionRefusal(for peer: NodeID) -> ByeReason? {
        guard configuration.accept == .known, !isKnown(peer) else { return nil }
        return .refused(
            "this relay accepts known keys only; ask its operator to add your key (confab peers add KEY)")
    }

    // MARK: EntryAdmission

    func refusal(of entry: EntryPeek, size: Int, participants: [NodeID], from peer: NodeID) -> EntryRefusal? {
        // With no participants known yet (the create entry has not come), validation drops
        // the entry as not yet applicable anyway.
        if configuration.accept == .known, !participants.isEmpty, !participants.contains(where: isKnown) {
            return .notAllowed
        }
        if let quota = configuration.quotaBytes {
            let after = storedBytes + size
            if after > quota {
                enter(.full, quota: quota)
                return .quota
            }
            // The last part of the quota is kept for senders the operator knows.
            if !isKnown(entry.author), after > quota - Self.reserve(of: quota) {
                enter(.reserve, quota: quota)
                return .quota
            }
        }
        storedBytes += size
        return nil
    }

    func notStored(_ entry: EntryPeek, size: Int) {
        storedBytes -= size
    }

    /// Whether a file's content fits under the quota (files of every sender count against
    /// it like entries, up to the reserve kept for known senders); if so it is counted from
    /// now on, as its space is allocated before the first chunk comes (Protocol.md §17.3).
    func reserveFile(_ record: FileRecord) -> Bool {
        guard !countedFiles.contains(record.id) else { return true }
        let bytes = Int(clamping: record.layout.storedSize)
        if let quota = configuration.quotaBytes, storedBytes + bytes > quota - Self.reserve(of: quota) {
            enter(.reserve, quota: quota)
            return false
        }
        storedBytes += bytes
        countedFiles.insert(record.id)
        return true
    }

    // MARK: Quota

    static func reserve(of quota: Int) -> Int { Int(Double(quota) * RelayConfiguration.reserveFraction) }

    private func noteUsage(quota: Int) {
        if storedBytes >= quota {
            enter(.full, quota: quota)
        } else if storedBytes >= quota - Self.reserve(of: quota) {
            enter(.reserve, quota: quota)
        }
    }

    /// Logs each step up once: usage only grows, since a relay deletes nothing.
    private func enter(_ level: Usage, quota: Int) {
        guard level > usage else { return }
        usage = level
        let metadata: Logger.Metadata = [
            "event": "quota", "stored_bytes": "\(storedBytes)", "quota_bytes": "\(quota)", "level": "\(level)",
        ]
        switch level {
        case .reserve:
            logger.warning(
                "storage quota nearly reached (\(ByteSize.format(storedBytes)) of \(ByteSize.format(quota))): refusing entries of unknown senders (they keep them queued); known senders have the rest. Raise --quota, or add the senders you serve with \"confab peers add\"",
                metadata: metadata)
        case .full:
            logger.error(
                "storage quota reached (\(ByteSize.format(storedBytes)) of \(ByteSize.format(quota))): refusing every new entry; senders keep them queued and nothing stored is dropped. Raise --quota to accept more",
                metadata: metadata)
        case .normal:
            break
        }
    }
}
