import ConfabModel
import Synchronization

/// Each conversation's membership log as committed, with how many membership events it was
/// read from. Nearly every write reads the log (to check an entry's author against the
/// members it saw, to seal to the epoch in force), and reading it parses every event.
///
/// Membership events are only ever added, never changed or removed, so a log read from N
/// committed events is the log of any state that holds N events: `ConfabStore.membershipLog`
/// counts them (one indexed count) and takes the cached log when the counts agree. A log
/// read inside a write is kept only once that write is committed: a write undone would
/// otherwise leave a log of events that no longer exist, with a count the next event brings
/// back.
final class MembershipLogCache: Sendable {
    private let logs = Mutex<[ConversationID: (events: Int, log: MembershipLog)]>([:])

    func log(of conversation: ConversationID, events: Int) -> MembershipLog? {
        logs.withLock { logs in
            guard let cached = logs[conversation], cached.events == events else { return nil }
            return cached.log
        }
    }

    /// Keeps the newest log: one read from more events replaces one read from fewer.
    func keep(_ log: MembershipLog, of conversation: ConversationID, events: Int) {
        logs.withLock { logs in
            if (logs[conversation]?.events ?? 0) <= events { logs[conversation] = (events, log) }
        }
    }

    func removeAll() {
        logs.withLock { $0.removeAll() }
    }
}
