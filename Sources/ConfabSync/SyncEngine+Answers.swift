import ConfabModel
import ConfabStore
import ConfabWire
import Foundation
import Logging

/// Answers to Want and requests: what a peer lacks, within its windows, in runs that end on
/// a signed entry.
extension SyncEngine {
    /// Answers a Want only beyond what earlier Wants of this session got, and only within
    /// the byte window, so that asking again, or faster than it acknowledges, gets a peer
    /// nothing more (Protocol.md §12.2).
    func answer(_ want: SessionMessage.Want, from peer: NodeID) throws -> SyncOutput {
        var output = SyncOutput()
        guard var state = peers[peer] else { return output }
        let room = state.room(within: byteWindow)
        let sharing = try sharing(want.conversation, with: peer)
        guard room > 0, sharing != .none else { return output }
        let after = max(want.after, state.served[want.conversation]?[want.author] ?? 0)
        let cap = sharing.capping(VectorClock([want.author: Limits.maxSeq]))[want.author]
        let held = try store.sequencedEntries(
            in: want.conversation, author: want.author, after: after, limit: batchSize
        ).prefix { $0.seq <= cap }
        var entries: [(author: NodeID, raw: [UInt8])] = []
        var seqs: [UInt64] = []
        var bytes = 0
        for entry in held {
            if bytes + entry.raw.count > room, !(entries.isEmpty && state.unacknowledgedBytes == 0) { break }
            entries.append((want.author, entry.raw))
            seqs.append(entry.seq)
            bytes += entry.raw.count
        }
        // Up to a signed entry only: the rest is asked for again, from there (§12.2).
        let count = signedPrefix(entries)
        guard count > 0 else { return output }
        bytes = entries[..<count].reduce(0) { $0 + $1.raw.count }
        entries.removeSubrange(count...)
        let last = seqs[count - 1]
        state.served[want.conversation, default: VectorClock()].merge(VectorClock([want.author: last]))
        state.noteSent(bytes, in: want.conversation)
        peers[peer] = state
        output.replies = entriesMessages(entries)
        return output
    }

    /// The conversations the byte window held back, offered again now that an
    /// acknowledgement may have made room; those that still do not fit wait again.
    func offerStarved(to peer: NodeID) throws -> [SessionMessage] {
        guard let starved = peers[peer]?.starved, !starved.isEmpty else { return [] }
        peers[peer]?.starved = []
        var messages: [SessionMessage] = []
        for conversation in starved.sorted() {
            messages += try missingEntries(conversation, for: peer)
        }
        return messages
    }

    /// Entries of `conversation` the peer neither holds nor has in flight, as an
    /// `OutboundPlan` chooses them: within the window per author, in display order across
    /// authors, within the byte window, each author's run ending on a signed entry
    /// (Protocol.md §12 step 3). The creator's create entry has the smallest sum of all and
    /// goes first. `onlyMine`: only this node's own entries (the eager path, §12.5); by
    /// default, every author's while the peer's request for the conversation stands, and
    /// only mine otherwise. `held` and `sharing`, when the caller read them already (once
    /// for all the peers it offers to; nothing is written in between); `fresh`: my entries
    /// just written, taken from memory instead of the store; `relaying`: a room's entries
    /// just stored here, per author the seq below them, with `relayed` their runs as read
    /// once for every peer they go to (the eager tree, Protocol.md §18.8).
    func missingEntries(
        _ conversation: ConversationID, for peer: NodeID, onlyMine: Bool? = nil, held: HeldHere? = nil,
        sharing: Sharing? = nil, fresh: FreshEntries? = nil, relaying: [NodeID: UInt64]? = nil,
        relayed: [NodeID: [SequencedEntry]] = [:]
    ) throws -> [SessionMessage] {
        guard var state = peers[peer] else { return [] }
        let onlyMine = onlyMine ?? !state.stillWants(conversation)
        let byteRoom = state.room(within: byteWindow)
        guard byteRoom > 0 else {
            peers[peer]?.starved.insert(conversation)
            return []
        }
        let here = try held ?? HeldHere(conversation, in: store)
        // A former member is sent nothing written after its removal.
        let sharing = try sharing ?? self.sharing(conversation, with: peer)
        let me = store.me
        let plan = OutboundPlan(
            me: me, held: sharing.capping(here.clock), firstUnsent: here.firstUnsent,
            theirs: state.theirs[conversation], sent: state.sent[conversation], written: state.written[conversation],
            onlyMine: onlyMine && relaying == nil, relaying: relaying, window: window, batchSize: batchSize,
            byteRoom: byteRoom, idle: state.unacknowledgedBytes == 0)
        var logs: [NodeID: [SequencedEntry]] = [:]
        for read in plan.reads {
            if let run = relayed[read.author] {
                // Read from the seq the relay starts at: the plan reads no lower.
                logs[read.author] = Array(run.drop { $0.seq <= read.after }.prefix(read.limit))
                continue
            }
            logs[read.author] =
                try
                (read.author == me
                ? fresh?.entries(in: conversation, after: read.after, limit: read.limit, top: here.clock[me])
                : nil)
                ?? store.sequencedEntries(in: conversation, author: read.author, after: read.after, limit: read.limit)
        }
        let offer = plan.offer(logs, signedPrefix: signedPrefix)
        if offer.starved { state.starved.insert(conversation) }
        state.sent[conversation] = offer.sent
        if let written = offer.written { state.written[conversation] = written }
        state.noteSent(offer.bytes, in: conversation)
        if !offer.entries.isEmpty { state.lastSent[conversation] = now() }
        peers[peer] = state
        return entriesMessages(offer.entries)
    }
}
