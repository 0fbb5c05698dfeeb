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

    /// Entries of `conversation` the peer neither holds nor has in flight, within the
    /// window per author, in display order across authors (clock sum, then author, then
    /// seq): an entry's clock sum is above that of everything it depends on, so the
    /// receiver never gets an entry before what its clock names (Protocol.md §12 step 3).
    /// The creator's create entry has the smallest sum of all and goes first.
    /// `onlyMine`: only this node's own entries (the eager path, §12.5); what they depend
    /// on comes from its authors, or by the lazy path. By default, every author's while
    /// the peer's request for the conversation stands, and only mine otherwise.
    /// `held`: what the store holds of the conversation, when the caller read it already
    /// (once for all the peers it offers to; nothing is written in between).
    func missingEntries(
        _ conversation: ConversationID, for peer: NodeID, onlyMine: Bool? = nil, held: HeldHere? = nil
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
        let mine = try sharing(conversation, with: peer).capping(here.clock)
        let theirs = state.theirs[conversation] ?? VectorClock()
        var sent = (state.sent[conversation] ?? VectorClock()).merging(theirs)
        let me = store.me
        let written = state.written[conversation] ?? 0
        // My entries nobody has been seen to take are offered once per session, whatever
        // the peer's clock claims: only what was really sent counts as sent (§9).
        if let unsent = here.firstUnsent, unsent > written, unsent - 1 < sent[me] {
            sent[me] = max(unsent - 1, written)
        }
        typealias Candidate = (author: NodeID, seq: UInt64, clockSum: UInt64, raw: [UInt8])
        var candidates: [Candidate] = []
        var cutoff = UInt64.max
        for (author, held) in mine.sortedEntries where !onlyMine || author == me {
            guard held > sent[author] else { continue }
            let inFlight = sent[author] > theirs[author] ? sent[author] - theirs[author] : 0
            guard inFlight < UInt64(window) else { continue }
            let room = Int(min(UInt64(window) - inFlight, UInt64(batchSize * 4)))
            let entries = try store.sequencedEntries(in: conversation, author: author, after: sent[author], limit: room)
            // Deleted here: a hole the receiver could not apply past, so offer nothing
            // more of this author; others who hold the entries will send them.
            let contiguous = entries.enumerated().prefix { $0.element.seq == sent[author] + UInt64($0.offset) + 1 }
                .map(\.element)
            guard let last = contiguous.last else { continue }
            candidates += contiguous.map { (author, $0.seq, $0.clockSum, $0.raw) }
            // Cut short by the window (not by a hole): what other authors wrote after this
            // author's last candidate may depend on the rest, so it waits too.
            if contiguous.count == room, last.seq < held { cutoff = min(cutoff, last.clockSum) }
        }
        candidates.sort { ($0.clockSum, $0.author, $0.seq) < ($1.clockSum, $1.author, $1.seq) }
        var offered: [Candidate] = []
        var bytes = 0
        for candidate in candidates where candidate.clockSum <= cutoff {
            // A prefix of the display order holds a prefix of each author's log, and
            // nothing in it depends on what waits for room.
            if bytes + candidate.raw.count > byteRoom, !(offered.isEmpty && state.unacknowledgedBytes == 0) {
                state.starved.insert(conversation)
                break
            }
            offered.append(candidate)
            bytes += candidate.raw.count
        }
        // Each author's run ends on a signed entry; what a window cut off below one waits
        // for the next acknowledgement.
        let signed = signedPrefix(offered.map { ($0.author, $0.raw) })
        if signed < offered.count {
            offered.removeSubrange(signed...)
            bytes = offered.reduce(0) { $0 + $1.raw.count }
            state.starved.insert(conversation)
        }
        for candidate in offered {
            sent[candidate.author] = max(sent[candidate.author], candidate.seq)
            if candidate.author == me { state.written[conversation] = max(written, candidate.seq) }
        }
        state.sent[conversation] = sent
        state.noteSent(bytes, in: conversation)
        if !offered.isEmpty { state.lastSent[conversation] = now() }
        peers[peer] = state
        return entriesMessages(offered.map { ($0.author, $0.raw) })
    }
}
