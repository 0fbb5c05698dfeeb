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
    /// `generation`: the device lists' (`DeviceAuthorsCache`) the log was folded under; a
    /// log of another one counted its events' authors otherwise.
    private let logs = Mutex<[ConversationID: (events: Int, generation: Int, log: MembershipLog)]>([:])

    func log(of conversation: ConversationID, events: Int, generation: Int) -> MembershipLog? {
        logs.withLock { logs in
            guard let cached = logs[conversation], cached.events == events, cached.generation == generation
            else { return nil }
            return cached.log
        }
    }

    /// Keeps the newest log: one read from more events replaces one read from fewer, and one
    /// of a newer generation any of an older.
    func keep(_ log: MembershipLog, of conversation: ConversationID, events: Int, generation: Int) {
        logs.withLock { logs in
            let held = logs[conversation]
            if (held?.generation ?? 0, held?.events ?? 0) <= (generation, events) {
                logs[conversation] = (events, generation, log)
            }
        }
    }

    func removeAll() {
        logs.withLock { $0.removeAll() }
    }
}
