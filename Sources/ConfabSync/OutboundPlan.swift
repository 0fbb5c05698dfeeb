import ConfabModel
import ConfabStore

/// What this node sends one peer of one conversation, decided from values alone
/// (Protocol.md §12 step 3, §12.5): whether my new entries go to it at once (the eager
/// path) or it is invited with a clock first, whether a grown conversation is announced to
/// it (the lazy path), and which of the entries it lacks go now, within its windows. The
/// engine reads from the store what a plan names and performs what it decides; nothing here
/// reads the store or a clock.
struct OutboundPlan {
    /// What my new entries in a conversation mean for one peer.
    enum Eager: Equatable {
        /// It should not have the conversation.
        case nothing
        /// A member that may be new (it has said and heard nothing of the conversation this
        /// session) gets this clock first, and answers for all of it.
        case invite(VectorClock)
        /// The entries of mine it lacks, now.
        case entries
    }

    /// `held`: the conversation's clock here; `inviting`: whether the entries may have made
    /// the peer a member; `heardOf`: whether the peer and this node spoke of it this session.
    static func eager(sharing: Sharing, held: VectorClock, inviting: Bool, heardOf: Bool) -> Eager {
        guard sharing != .none else { return .nothing }
        return inviting && !heardOf ? .invite(sharing.capping(held)) : .entries
    }

    /// The clock a conversation that grew with others' entries is announced to one peer
    /// with, or nil: not to a peer that should not have it, that is known to hold it all
    /// (its own clock covers it, as for the peers that sent the entries), or that was
    /// told this very clock last (two nodes re-announcing to each other would never stop).
    static func announcement(
        sharing: Sharing, held: VectorClock, theirs: VectorClock?, announced: VectorClock?
    ) -> VectorClock? {
        guard sharing != .none else { return nil }
        let mine = sharing.capping(held)
        if let theirs, theirs.covers(mine) { return nil }
        return announced == mine ? nil : mine
    }

    /// A run of one author's log to read: entries after `after`, at most `limit`, of the
    /// `held` this node offers.
    struct Read: Equatable {
        let author: NodeID
        let after: UInt64
        let limit: Int
        let held: UInt64
    }

    /// What goes to the peer now, and where that leaves what was sent to it.
    struct Offer {
        /// In display order, each author's run ending on a signed entry.
        let entries: [(author: NodeID, raw: [UInt8])]
        let bytes: Int
        /// Per author, the highest seq the peer holds or was sent.
        let sent: VectorClock
        /// The highest seq of my own log written to the peer, when this offer moved it.
        let written: UInt64?
        /// Whether something it lacks waits for room in the byte window (or for the signed
        /// entry above it): offered again once the peer acknowledges.
        let starved: Bool
    }

    let me: NodeID
    /// What the peer holds or was sent, my entries nobody took counting as unsent.
    let sent: VectorClock
    let written: UInt64
    let byteRoom: Int
    /// Whether nothing sent to the peer waits for its acknowledgement: then one entry
    /// larger than the byte window may go.
    let idle: Bool
    /// The runs to read, per author, within the window of entries in flight.
    let reads: [Read]
    /// Per author relayed above a gap (entries the peer was neither seen to hold nor sent),
    /// what was sent before: the gap stays unsent, so a request for it is answered.
    let belowGaps: [NodeID: UInt64]

    /// `held`: the conversation as far as the peer may have it; `firstUnsent`: my lowest
    /// entry no node was seen to take; `theirs`, `sent`, `written`: the peer's state this
    /// session. `onlyMine`: the eager path offers my entries alone; what they depend on
    /// reaches the peer from its authors, or by the lazy path. `relaying`: a room's eager
    /// tree (Protocol.md §18.8) offers only the authors it names, and only their entries
    /// after the seq it gives, those just stored here: what the peer lacks before them it
    /// may hold already, from another link this node does not hear about.
    init(
        me: NodeID, held: VectorClock, firstUnsent: UInt64?, theirs: VectorClock?, sent: VectorClock?,
        written: UInt64?, onlyMine: Bool, relaying: [NodeID: UInt64]? = nil, window: Int, batchSize: Int,
        byteRoom: Int, idle: Bool
    ) {
        let theirs = theirs ?? VectorClock()
        var sent = (sent ?? VectorClock()).merging(theirs)
        let written = written ?? 0
        // My entries nobody has been seen to take are offered once per session, whatever
        // the peer's clock claims: only what was really sent counts as sent (§9).
        if let unsent = firstUnsent, unsent > written, unsent - 1 < sent[me] {
            sent[me] = max(unsent - 1, written)
        }
        var reads: [Read] = []
        var belowGaps: [NodeID: UInt64] = [:]
        for (author, held) in held.sortedEntries where !onlyMine || author == me {
            if let relaying {
                guard let floor = relaying[author] else { continue }
                if floor > sent[author] {
                    belowGaps[author] = sent[author]
                    sent[author] = floor
                }
            }
            guard held > sent[author] else { continue }
            let inFlight = sent[author] > theirs[author] ? sent[author] - theirs[author] : 0
            guard inFlight < UInt64(window) else { continue }
            let room = Int(min(UInt64(window) - inFlight, UInt64(batchSize * 4)))
            reads.append(Read(author: author, after: sent[author], limit: room, held: held))
        }
        self.me = me
        self.sent = sent
        self.belowGaps = belowGaps
        self.written = written
        self.byteRoom = byteRoom
        self.idle = idle
        self.reads = reads
    }

    /// What goes now, from what was read for each of `reads` (the author's entries after
    /// `after`, in seq order, at most `limit`): in display order across authors (clock sum,
    /// then author, then seq), so the receiver never gets an entry before what its clock
    /// names; within the byte window; each author's run cut back to its last entry that
    /// `signedPrefix` lets end it (Protocol.md §12 step 3).
    func offer(
        _ logs: [NodeID: [SequencedEntry]], signedPrefix: ([(author: NodeID, raw: [UInt8])]) -> Int
    ) -> Offer {
        typealias Candidate = (author: NodeID, seq: UInt64, clockSum: UInt64, raw: [UInt8])
        var candidates: [Candidate] = []
        var cutoff = UInt64.max
        for read in reads {
            // Deleted here: a hole the receiver could not apply past, so offer nothing
            // more of this author; others who hold the entries will send them. Nothing above
            // what the peer may have goes either: a former member's cap is its removal.
            let contiguous = (logs[read.author] ?? []).enumerated().prefix {
                $0.element.seq == read.after + UInt64($0.offset) + 1 && $0.element.seq <= read.held
            }.map(\.element)
            guard let last = contiguous.last else { continue }
            candidates += contiguous.map { (read.author, $0.seq, $0.clockSum, $0.raw) }
            // Cut short by the window (not by a hole): what other authors wrote after this
            // author's last candidate may depend on the rest, so it waits too.
            if contiguous.count == read.limit, last.seq < read.held { cutoff = min(cutoff, last.clockSum) }
        }
        candidates.sort { ($0.clockSum, $0.author, $0.seq) < ($1.clockSum, $1.author, $1.seq) }
        var offered: [Candidate] = []
        var bytes = 0
        var starved = false
        for candidate in candidates where candidate.clockSum <= cutoff {
            // A prefix of the display order holds a prefix of each author's log, and
            // nothing in it depends on what waits for room.
            if bytes + candidate.raw.count > byteRoom, !(offered.isEmpty && idle) {
                starved = true
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
            starved = true
        }
        var sent = sent
        var written: UInt64?
        for candidate in offered {
            sent[candidate.author] = max(sent[candidate.author], candidate.seq)
            if candidate.author == me { written = max(written ?? self.written, candidate.seq) }
        }
        for (author, below) in belowGaps { sent[author] = below }
        return Offer(
            entries: offered.map { ($0.author, $0.raw) }, bytes: bytes, sent: sent, written: written, starved: starved)
    }
}
