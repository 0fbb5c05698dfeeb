import ConfabWire
import NIOConcurrencyHelpers

/// Bytes of `Entries` messages the sessions delivered that the node has not handled yet:
/// while many wait, what the node lacks is most likely among them, and the engine asks no
/// holder for it (`SyncConfiguration.backlog`, Protocol.md §12.5). Only entries count: a file
/// transfer's chunks queued beside them say nothing about what is on its way, and must not
/// hold a request back.
final class EntriesBacklog: Sendable {
    private let waiting = NIOLockedValueBox(0)

    var bytes: Int { waiting.withLockedValue { $0 } }

    /// What `message` adds to the backlog while it waits.
    static func size(of message: SessionMessage) -> Int {
        guard case .entries(let raw) = message else { return 0 }
        return raw.reduce(0) { $0 + $1.count }
    }

    func delivered(_ message: SessionMessage) {
        let size = Self.size(of: message)
        if size > 0 { waiting.withLockedValue { $0 += size } }
    }

    func handled(_ message: SessionMessage) {
        let size = Self.size(of: message)
        if size > 0 { waiting.withLockedValue { $0 -= size } }
    }
}
