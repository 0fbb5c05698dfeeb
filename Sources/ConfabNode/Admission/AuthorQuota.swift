import ConfabClient
import ConfabModel
import ConfabStore
import ConfabSync
import ConfabWire
import Logging

/// A person's node keeps at most `limit` bytes of entries per author (Protocol.md §12 step
/// 4, refusal `author_quota`). A member can write entries of kinds nobody shows, or simply
/// a great many messages; without a bound one member could fill this machine's disk. An
/// author over its quota is refused, not dropped: its entries stay with whoever has room
/// (the author, a relay), as at a relay that is full. This node's own entries never count.
///
/// Used from the node's isolation only.
final class AuthorQuota: EntryAdmission {
    static let defaultLimit = 512 * 1024 * 1024

    let limit: Int
    private let me: NodeID
    private let logger: Logger
    private var bytes: [NodeID: Int]
    private var warned: Set<NodeID> = []

    init(limit: Int, store: ConfabStore, logger: Logger) throws {
        self.limit = limit
        me = store.me
        self.logger = logger
        bytes = try store.storedEntryBytesByAuthor()
    }

    func refusal(of entry: EntryPeek, size: Int, participants: [NodeID], from peer: NodeID) -> EntryRefusal? {
        guard entry.author != me else { return nil }
        let after = bytes[entry.author, default: 0] + size
        guard after <= limit else {
            if warned.insert(entry.author).inserted {
                logger.warning(
                    "refusing entries of \(entry.author.shortHex): it has \(bytes[entry.author, default: 0]) bytes stored here, the per-author limit is \(limit)"
                )
            }
            return .authorQuota
        }
        bytes[entry.author] = after
        return nil
    }

    func notStored(_ entry: EntryPeek, size: Int) {
        guard entry.author != me else { return }
        bytes[entry.author, default: 0] -= size
    }
}
