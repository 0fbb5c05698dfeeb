import ConfabModel
import ConfabStore
import ConfabWire

extension SyncEngine {
    /// Entries messages for `entries` of one conversation, in order. A receiver checks the
    /// signature of each author's last entry in a message only, and takes the ones below it
    /// on the strength of the hash chain (Protocol.md §7 step 3): so that entry must be one
    /// whose signature this node made or checked. An entry taken here on a later entry's
    /// signature may carry none (an author signs only some of a run written together, §4.3,
    /// mine included) or a bad one (only its author can have made it so), and ending a
    /// message with it would have the receiver end the session with this honest node.
    ///
    /// So each author's entries are cut into runs that end on such an entry, and messages
    /// hold whole runs, taken in the order of their first entry, each message's entries in
    /// the given order. A run fits any message (§4.3: at most 64 entries and 256 KiB).
    /// Splitting the order itself and moving a cut run's unsigned entries to the next
    /// message lost entries: 16 authors with 16 unsigned entries each at the cut filled the
    /// next message with moved entries alone, which could end on nothing, so none of them
    /// went, while the plan counted them sent. Entries after an author's last signed one
    /// are left out (§12 step 3); `signedPrefix` spares every caller that can stop earlier.
    func entriesMessages(_ entries: [(author: NodeID, raw: [UInt8])]) -> [SessionMessage] {
        // Only the entries that end up last of their author in a message are checked, as a
        // receiver does; one that carries a signature that does not hold ends no run, and
        // the messages are made again without it.
        var verdicts: [Int: Bool] = [:]
        var bad = Set<Int>()
        while true {
            let messages = packRuns(entries) { EntryCodec.peekSignedHash(entries[$0].raw) != nil && !bad.contains($0) }
            var allHold = true
            for message in messages {
                var tops: [NodeID: Int] = [:]
                for index in message { tops[entries[index].author] = index }
                for index in tops.values {
                    let holds = verdicts[index] ?? signatureHolds(entries[index].raw)
                    verdicts[index] = holds
                    if !holds {
                        bad.insert(index)
                        allHold = false
                    }
                }
            }
            if allHold { return messages.map { .entries($0.map { entries[$0].raw }) } }
        }
    }

    /// The indices of `entries` per message: each author's entries cut into runs that end
    /// on an entry `ends` accepts, whole runs per message in the order of their first
    /// entry, within the batch size and the message budget (a larger run goes alone);
    /// entries after an author's last such entry are left out.
    private func packRuns(_ entries: [(author: NodeID, raw: [UInt8])], ends: (Int) -> Bool) -> [[Int]] {
        var open: [NodeID: [Int]] = [:]
        var runs: [[Int]] = []
        for (index, entry) in entries.enumerated() {
            open[entry.author, default: []].append(index)
            if ends(index), let run = open.removeValue(forKey: entry.author) { runs.append(run) }
        }
        runs.sort { $0[0] < $1[0] }
        // A run left unsigned and its signed entry always fit in one message, even when a
        // smaller batch is configured (the protocol allows 256).
        let batchSize = max(batchSize, Limits.maxUnsignedRun + 1)
        var messages: [[Int]] = []
        var batch: [Int] = []
        var bytes = 0
        // A run longer than §4.3 allows (a lying author's) still goes, alone: it reached this
        // node in messages within the protocol's bounds, each ending on a signed entry, so
        // it fits one of them.
        for run in runs {
            let cost = run.reduce(0) { $0 + SessionCodec.entryCost(entries[$1].raw.count) }
            if !batch.isEmpty, batch.count + run.count > batchSize || bytes + cost > SessionCodec.entriesBudget {
                messages.append(batch.sorted())
                batch = []
                bytes = 0
            }
            batch += run
            bytes += cost
        }
        if !batch.isEmpty { messages.append(batch.sorted()) }
        return messages
    }

    /// How many of `entries` (in the order they would be sent) to send now so that each
    /// author's last entry among them carries a valid signature: the longest such prefix.
    /// An author's entries past its last signed one are left for later, and so is everything
    /// after the first of them in the order, which may depend on it. A window that cuts a
    /// run of unsigned entries, or a `Want` answered up to a limit, thus stops at the run's
    /// signed entry below; what is left goes once acknowledgements make room (§12 step 3).
    func signedPrefix(_ entries: [(author: NodeID, raw: [UInt8])]) -> Int {
        var end = entries.count
        var verdicts: [Int: Bool] = [:]
        func holds(_ index: Int) -> Bool {
            if let known = verdicts[index] { return known }
            let verdict = signatureHolds(entries[index].raw)
            verdicts[index] = verdict
            return verdict
        }
        while true {
            var positions: [NodeID: [Int]] = [:]
            for index in 0..<end { positions[entries[index].author, default: []].append(index) }
            var cut = end
            for indices in positions.values where !holds(indices.last!) {
                // The first of this author's entries past its last signed one.
                let firstLeft = indices.lastIndex(where: holds).map { indices[$0 + 1] } ?? indices[0]
                cut = min(cut, firstLeft)
            }
            if cut == end { return end }
            end = cut
        }
    }

    /// Whether an entry held here carries its author's valid signature: none when it was
    /// left unsigned (§4.3), known when this node made or checked it lately, else checked now.
    private func signatureHolds(_ raw: [UInt8]) -> Bool {
        guard let hash = EntryCodec.peekSignedHash(raw) else { return false }
        if store.signatures.isKnownValid(hash) { return true }
        guard let entry = try? EntryCodec.decodeUnverified(raw) else { return false }
        return store.signatures.check(entry)
    }
}
