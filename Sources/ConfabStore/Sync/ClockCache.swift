import ConfabModel
import Synchronization

/// Each conversation's clock as this store last committed or read it, so that the sync
/// engine, which asks for a clock with nearly every message it handles, does not open a
/// read each time (6% of a group member's CPU on a LAN, in a profile).
///
/// Heads only grow: a head is replaced by the next seq of its author and never deleted, not
/// even with its conversation. So every value put here is merged, never replaced, and a
/// read that raced a commit and saw the state before it cannot take back what the commit
/// put here. What another process commits to the same file is not seen until the store's
/// owner sees the file changed (`ConfabStore.externalChangeCounter`) and forgets it all
/// (`ConfabStore.forgetCaches`).
final class ClockCache: Sendable {
    private let clocks = Mutex<[ConversationID: VectorClock]>([:])

    func clock(of conversation: ConversationID) -> VectorClock? {
        clocks.withLock { $0[conversation] }
    }

    func merge(_ clock: VectorClock, of conversation: ConversationID) {
        clocks.withLock { $0[conversation, default: VectorClock()].merge(clock) }
    }

    /// A room left: its heads went with it (the one place heads are deleted).
    func forget(_ conversation: ConversationID) {
        clocks.withLock { $0[conversation] = nil }
    }

    func removeAll() {
        clocks.withLock { $0.removeAll() }
    }
}
