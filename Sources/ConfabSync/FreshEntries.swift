import ConfabModel
import ConfabStore
import ConfabWire

/// My entries just written, held in memory as the store holds them: the eager push takes
/// from here what it offers each peer of them, instead of reading back from the store,
/// once per peer, the bytes it was handed.
struct FreshEntries {
    private var logs: [ConversationID: [SequencedEntry]] = [:]

    init(_ entries: [Entry], me: NodeID) {
        for entry in entries where entry.author == me {
            // The clock sum the store orders the entry by: an entry of mine names no more
            // of any log than is held here, so no component is capped (`orderingSum`).
            logs[entry.conversationID, default: []].append(
                SequencedEntry(seq: entry.seq, clockSum: entry.clock.sum, raw: EntryCodec.encode(entry)))
        }
        for (conversation, log) in logs {
            let sorted = log.sorted { $0.seq < $1.seq }
            // Only a run without holes answers for a stretch of the log.
            let contiguous = zip(sorted, sorted.dropFirst()).allSatisfy { $0.seq + 1 == $1.seq }
            logs[conversation] = contiguous ? sorted : nil
        }
    }

    /// My entries in `conversation` after `after`, at most `limit`, as the store would
    /// return them; nil when not all of them are here: the run must reach back to `after`
    /// and up to `top`, my last entry held.
    func entries(in conversation: ConversationID, after: UInt64, limit: Int, top: UInt64) -> [SequencedEntry]? {
        guard let log = logs[conversation], let first = log.first, let last = log.last,
            after + 1 >= first.seq, last.seq == top
        else { return nil }
        return Array(log.drop { $0.seq <= after }.prefix(limit))
    }
}
