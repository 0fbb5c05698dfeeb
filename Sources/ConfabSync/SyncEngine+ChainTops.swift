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
    /// message with it would have the receiver end the session with this honest node. Such
    /// an entry goes at the head of the next message instead, under the entries that follow
    /// it; the last message has none, so there it is left out (§12 step 3), which
    /// `signedPrefix` spares every caller that can stop earlier.
    func entriesMessages(_ entries: [(author: NodeID, raw: [UInt8])]) -> [SessionMessage] {
        var messages: [SessionMessage] = []
        var next = 0
        var carried: [(author: NodeID, raw: [UInt8])] = []
        // A run left unsigned and its signed entry always fit in one message, even when a
        // smaller batch is configured (the protocol allows 256).
        let batchSize = max(batchSize, Limits.maxUnsignedRun + 1)
        while next < entries.count || !carried.isEmpty {
            var batch = carried
            carried = []
            var bytes = batch.reduce(0) { $0 + SessionCodec.entryCost($1.raw.count) }
            let first = next
            while next < entries.count, batch.count < batchSize {
                let cost = SessionCodec.entryCost(entries[next].raw.count)
                guard batch.isEmpty || bytes + cost <= SessionCodec.entriesBudget else { break }
                batch.append(entries[next])
                bytes += cost
                next += 1
            }
            // A message of carried entries alone has nothing to put above them either.
            let last = next == entries.count || next == first
            var topped = Set<NodeID>()
            var kept: [(author: NodeID, raw: [UInt8])] = []
            for item in batch.reversed() {
                if !topped.contains(item.author) {
                    guard signatureHolds(item.raw) else {
                        if !last { carried.insert(item, at: 0) }
                        continue
                    }
                    topped.insert(item.author)
                }
                kept.append(item)
            }
            if !kept.isEmpty { messages.append(.entries(kept.reversed().map(\.raw))) }
        }
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
