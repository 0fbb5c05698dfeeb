import ConfabModel
import ConfabStore
import ConfabWire
import Foundation
import Logging

/// The lazy path (Protocol.md §12.5): conversations that grew with others' entries are
/// announced after a delay, and what peers' clocks show lacking is asked for from one
/// holder; paced delivered receipts.
extension SyncEngine {
    /// Others' entries just stored here: their conversations are announced lazily, and
    /// those of rooms and large groups go on along the eager tree too (§18.8, §19.6).
    func spreadOthers(_ appended: [Entry], from sender: NodeID?) throws -> SyncOutput {
        let others = appended.filter { $0.author != store.me }
        noteGrowth(of: others)
        return try relay(others, from: sender)
    }

    func noteGrowth(of entries: [Entry]) {
        for conversation in Set(entries.map(\.conversationID)) where grown[conversation] == nil {
            grown[conversation] = now()
        }
    }

    /// Tells every peer that should have them where the grown conversations stand, in
    /// one Clocks message per peer. A peer that still lacks something after its own delay
    /// asks for it with a request (§12.5); one that holds it all says nothing.
    func announceGrowth() throws -> SyncOutput {
        let due = now()
        var output = SyncOutput()
        let ready = grown.filter { due - $0.value >= Self.lazyDelay }
        guard !ready.isEmpty else { return output }
        var announcements: [NodeID: [SessionMessage.ConversationClock]] = [:]
        for conversation in ready.keys.sorted() {
            grown[conversation] = nil
            let held = try store.clock(of: conversation)
            // The peers that sent the entries are known to hold them (`theirs`): skipped.
            for peer in peers.keys.sorted() where peers[peer]?.helloReceived == true {
                guard
                    let mine = OutboundPlan.announcement(
                        sharing: try sharing(conversation, with: peer), held: held,
                        theirs: peers[peer]?.theirs[conversation], announced: peers[peer]?.announced[conversation])
                else { continue }
                announcements[peer, default: []].append(clockItem(conversation, mine, to: peer))
                peers[peer]?.announced[conversation] = mine
            }
        }
        for (peer, clocks) in announcements { output.push(SessionCodec.clocksMessages(clocks), to: peer) }
        return output
    }

    /// What peers' clocks showed missing here and has not arrived since: asked for, per
    /// conversation, from one connected peer that holds it and was not asked since its
    /// last news (in turns, `Grafts.holder`), or, when all were, again after a doubling
    /// wait, with a request carrying this node's clock (§12.5).
    func askForMissing() throws -> SyncOutput {
        waitsForPushes = false
        guard !grafts.isEmpty else { return SyncOutput() }
        let due = now()
        var requests: [NodeID: [SessionMessage.ConversationClock]] = [:]
        // With messages waiting in this node's own inbox, what it lacks is most likely in
        // them: 100 nodes on 2 cores each asked a holder every second or so for entries
        // already queued here, for a minute. A lack that lasts is asked for all the same.
        let queued = configuration.backlog() > SyncConfiguration.backlogAllowance
        for (conversation, lack) in grafts.due(at: due, delay: graftDelay, retry: Self.graftRetry) {
            if queued, due - lack.since < Grafts.maxAnswerWait {
                waitsForPushes = true
                continue
            }
            let mine = try store.clock(of: conversation)
            let holders = peers.keys.sorted().compactMap { peer -> (peer: NodeID, clock: VectorClock)? in
                guard let theirs = peers[peer]?.theirs[conversation], !mine.covers(theirs) else { return nil }
                return (peer, theirs)
            }
            guard !holders.isEmpty else {
                grafts.forget(conversation)
                continue
            }
            let authors = Set(holders.flatMap { $0.clock.entries.filter { $0.value > mine[$0.key] }.keys })
            if authors.allSatisfy({ awaitsPush(from: $0, in: conversation, lackingSince: lack.since, at: due) })
                || treeWillBring(conversation, holders: holders, lackingSince: lack.since, at: due)
            {
                waitsForPushes = true
                continue
            }
            grafts.judgeLastRequest(conversation, mine: mine)
            guard let lack = grafts.lacking[conversation],
                let holder = grafts.holder(for: lack, among: holders, mine: mine, at: due, retry: Self.graftRetry)
            else { continue }
            let claim = holders.first { $0.peer == holder }?.clock ?? VectorClock()
            // What a lack that lasts looks like from here (a node of a room was once seen
            // stuck at 1,641 of 2,000 messages): whom it asked, how long it has lacked, and
            // what waits for dependencies.
            logger.debug(
                "asking \(holder.shortHex) for \(conversation.shortHex): lacking \(mine.lacking(claim)) entries for \(due - lack.since), \(lack.asked.count) holders asked since news, \(deferred.count) entries waiting"
            )
            grafts.asked(holder, for: conversation, mine: mine, claim: claim, at: due)
            graft([conversation], with: holder, asking: true)
            requests[holder, default: []].append(.init(conversation: conversation, clock: mine))
        }
        var output = SyncOutput()
        for (peer, clocks) in requests { output.push(SessionCodec.clocksMessages(clocks, request: true), to: peer) }
        return output
    }

    /// Whether what this node lacks of `author`'s log is still to come by the author's own
    /// push: it has a session with this node, and the lack began, or its last push was
    /// stored, less than `authorPushWait` ago. Authors push their new entries to every
    /// member they have a session with, and a session's first exchange brings what the
    /// other lacks (§12 step 3), so asking another holder sooner only makes a copy. On the
    /// tree (a room, a large group) an author pushes only over eager links (§18.8).
    func awaitsPush(
        from author: NodeID, in conversation: ConversationID, lackingSince since: ContinuousClock.Instant,
        at now: ContinuousClock.Instant
    ) -> Bool {
        guard let state = peers[author], state.helloReceived, !isLazy(conversation, with: author) else {
            return false
        }
        return now - max(since, state.lastOwnPush ?? since) < authorPushWait
    }

    /// Stored messages of others are delivered: one coalesced receipt per conversation,
    /// offered to every connected peer that should have it, the sender included.
    func writeReceipts(_ conversations: Set<ConversationID>) throws -> SyncOutput {
        var receipts: [Entry] = []
        for conversation in conversations.sorted() {
            if let receipt = try store.acknowledgeDelivery(conversation) { receipts.append(receipt) }
        }
        guard !receipts.isEmpty else { return SyncOutput() }
        return try didWrite(receipts)
    }
}
