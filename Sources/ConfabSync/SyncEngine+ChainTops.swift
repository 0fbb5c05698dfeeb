import ConfabModel
import ConfabStore
import ConfabWire

extension SyncEngine {
    /// Entries messages for `entries` of one conversation, in order. A receiver checks the
    /// signature of each author's last entry in a message only, and takes the ones below it
    /// on the strength of the hash chain (Protocol.md §7 step 3): so that entry must be one
    /// whose signature this node made or checked. An entry taken here on a later entry's
    /// signature may carry a bad one of its own (only its author can have made it so), and
    /// ending a message with it would have the receiver end the session with this honest
    /// node. Such an entry goes at the head of the next message instead, under the entries
    /// that follow it; the last message has none, so there it is left out (§12 step 3).
    func entriesMessages(_ entries: [(author: NodeID, raw: [UInt8])]) -> [SessionMessage] {
        var messages: [SessionMessage] = []
        var next = 0
        var carried: [(author: NodeID, raw: [UInt8])] = []
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
                if item.author != store.me, !topped.contains(item.author) {
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

    /// Whether an entry held here carries its author's valid signature: known when this node
    /// checked it lately, else checked now.
    private func signatureHolds(_ raw: [UInt8]) -> Bool {
        guard let entry = try? EntryCodec.decodeUnverified(raw) else { return false }
        return store.signatures.isKnownValid(entry.hash) || store.signatures.check(entry)
    }
}
