import ConfabModel
import Foundation

/// Each conversation's clock as this store last committed or read it, so that the sync
/// engine, which asks for a clock with nearly every message it handles, does not open a
/// read transaction each time (a sixth of a group member's CPU on a LAN).
///
/// Heads only grow: a head is replaced by the next seq of its author and never deleted, not
/// even with its conversation. So every value put here is merged, never replaced, and a
/// read that raced a commit and saw the state before it cannot take back what the commit
/// put here. What another process commits to the same file is not seen until the store
/// notices the file changed (`ConfabStore.externalChangeCounter`), which forgets it all.
final class ClockCache: @unchecked Sendable {
    // Guards `clocks`.
    private let lock = NSLock()
    private var clocks: [ConversationID: VectorClock] = [:]
    /// The data version last seen on the store's writer (`externalChangeCounter`).
    private var dataVersion: Int64?

    func clock(of conversation: ConversationID) -> VectorClock? {
        lock.withLock { clocks[conversation] }
    }

    func merge(_ clock: VectorClock, of conversation: ConversationID) {
        lock.withLock { clocks[conversation, default: VectorClock()].merge(clock) }
    }

    /// Forgets every clock when another connection committed since the last call (or at
    /// the first: what was cached before it may predate such a commit); returns whether it
    /// did, for the store's other caches.
    func note(dataVersion version: Int64) -> Bool {
        lock.withLock {
            defer { dataVersion = version }
            guard dataVersion != version else { return false }
            clocks.removeAll()
            return true
        }
    }
}
