import ConfabModel
import ConfabStore
import ConfabWire
import Foundation
import Logging

/// Per-author rate (Protocol.md §12 step 4): new entries of an author over its budget
/// wait aside, taken a run at a time as the budget refills.
extension SyncEngine {
    /// Whether an entry its author says it wrote at `timestamp` is new here: written since
    /// this node started and less than `historyAge` ago. Only new entries count against
    /// their author's rate; catching up on history goes at full speed.
    func isNew(_ timestamp: Int64, wall: Date) -> Bool {
        guard let limit = authorRateLimit else { return false }
        let age = limit.historyAge / .seconds(1)
        let cutoff = max(startedAt.timeIntervalSince1970, wall.timeIntervalSince1970 - age)
        return Double(timestamp) >= cutoff * 1000
    }

    /// Counts a stored entry against its author's budget, if it is new and not ours.
    func charge(_ entry: Entry, size: Int) {
        guard budgets != nil, entry.author != store.me, isNew(entry.timestamp, wall: wallClock()) else { return }
        budgets?.charge(entry.author, bytes: size, now: now())
    }

    /// The entries of a batch that go on to be stored now. New entries of an author over
    /// its rate, or with entries already waiting (so that each log is taken in order),
    /// wait aside instead; beyond the bound of what waits they are dropped, to be asked for
    /// again. Either way they are not acknowledged, and the session goes on.
    func holdOverRate(
        _ batch: [[UInt8]], from peer: NodeID, output: inout SyncOutput, touched: inout Set<ConversationID>
    ) -> [[UInt8]] {
        let time = now()
        // Nobody over its rate and nothing waiting (the usual case): nothing to look at.
        guard budgets != nil, held.count > 0 || budgets?.anyInDebt(now: time) == true else { return batch }
        let wall = wallClock()
        var kept: [[UInt8]] = []
        for bytes in batch {
            // Undecodable entries go on to validation, which rejects them as it always does.
            guard let position = EntryCodec.peekPosition(bytes), position.author != store.me,
                isNew(position.timestamp, wall: wall),
                held.holds(position.author) || budgets?.inDebt(position.author, now: time) == true
            else {
                kept.append(bytes)
                continue
            }
            touched.insert(position.conversation)
            switch held.add(.init(bytes: bytes, position: position, source: peer)) {
            case .held:
                output.heldForRate += 1
                noteOverRate(position.author)
            case .dropped:
                output.droppedForRate += 1
                noteOverRate(position.author)
            case .duplicate:
                output.duplicatesReceived += 1
            }
        }
        return kept
    }

    func noteOverRate(_ author: NodeID) {
        guard let limit = authorRateLimit else { return }
        if overRateLogged.count >= 1024 { overRateLogged = [] }
        guard overRateLogged.insert(author).inserted else { return }
        logger.info(
            "new entries of \(author.shortHex) come faster than \(Int(limit.entriesPerSecond))/s (bursts of \(Int(limit.burstEntries))): kept aside and taken as its budget refills"
        )
    }

    /// The timer's part: entries that waited for their author's budget are stored, oldest
    /// first, a batch at a time while the budget lasts, and acknowledged to the peers that
    /// sent them (whose window for that author they held); then what was dropped is asked
    /// for again.
    func releaseHeld() throws -> SyncOutput {
        var output = SyncOutput()
        guard budgets != nil, held.count > 0 || !held.dropped.isEmpty else { return output }
        var touched = Set<ConversationID>()
        var messages = Set<ConversationID>()
        var acks: [NodeID: Set<ConversationID>] = [:]
        for author in held.authors {
            while budgets?.inDebt(author, now: now()) == false {
                let items = held.take(author, limit: batchSize)
                guard !items.isEmpty else { break }
                try storeReleased(items, into: &output, touched: &touched, messages: &messages, acks: &acks)
            }
        }
        try retryDeferred(touched, into: &output, touched: &touched, messages: &messages)
        for (peer, conversations) in acks.sorted(by: { $0.key < $1.key }) where peers[peer]?.helloReceived == true {
            output.push(try acknowledgement(conversations, to: peer), to: peer)
        }
        try askForDropped(into: &output)
        output.merge(try spreadOthers(output.appended, from: nil))
        output.merge(try writeReceipts(receiptPacer.due(messages, now: now())))
        return output
    }

    /// Stores entries that waited, as if they had just arrived from the peers that sent
    /// them; one that turns out invalid is dropped and logged (as one kept aside for a
    /// dependency is), without ending a session.
    func storeReleased(
        _ items: [HeldEntries.Item], into output: inout SyncOutput, touched: inout Set<ConversationID>,
        messages: inout Set<ConversationID>, acks: inout [NodeID: Set<ConversationID>]
    ) throws {
        let batch = items.map(\.bytes)
        for item in items { acks[item.source, default: []].insert(item.position.conversation) }
        let (kept, counted) = try admitted(batch, from: items.map(\.source), output: &output, touched: &touched)
        let results = try store.append(
            batch: kept.map { batch[$0] }, keepsOthers: role == .relay, invitations: invitations,
            vouchers: kept.count < batch.count ? batch : [])
        for ((index, peek), result) in zip(zip(kept, counted), results) {
            let appended = if case .success(.appended) = result { true } else { false }
            if !appended, let peek { admission?.notStored(peek, size: batch[index].count) }
            try absorb(batch[index], result, from: nil, into: &output, touched: &touched, messages: &messages)
            // The peer that sent it holds it: never offered back to it (§12.3).
            if case .success(.appended(let entry)) = result {
                peers[items[index].source]?.theirs[entry.conversationID, default: VectorClock()].merge(
                    VectorClock([entry.author: entry.seq]))
            }
        }
    }

    /// Logs cut short here because too much waited: once their author is within its rate
    /// and nothing of it waits, the rest is asked for (`Want`) from a peer that sent it or
    /// holds it. A log that asking does not move on is left to later sessions, which offer
    /// it again anyway.
    func askForDropped(into output: inout SyncOutput) throws {
        let time = now()
        for key in held.dropped.keys.sorted() {
            guard var record = held.dropped[key], !held.holds(key.author),
                budgets?.inDebt(key.author, now: time) == false
            else { continue }
            let mine = try store.clock(of: key.conversation)[key.author]
            guard mine < record.upTo else {
                held.dropped[key] = nil
                continue
            }
            let holders =
                record.sources
                + peers.keys.sorted().filter { peer in
                    (peers[peer]?.theirs[key.conversation]?[key.author] ?? 0) > mine
                }
            let source = holders.first { peers[$0]?.helloReceived == true }
            // Nobody to ask, or the last answer did not move the log on.
            if source == nil || record.askedAfter.map({ $0 >= mine }) == true {
                record.fruitless += 1
            } else {
                record.fruitless = 0
            }
            guard record.fruitless < HeldEntries.maxFruitless else {
                held.dropped[key] = nil
                continue
            }
            guard let source else {
                held.dropped[key] = record
                continue
            }
            record.askedAfter = mine
            held.dropped[key] = record
            output.push([.want(.init(conversation: key.conversation, author: key.author, after: mine))], to: source)
        }
    }
}
