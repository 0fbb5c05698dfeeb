import ConfabModel
import ConfabStore
import ConfabWire
import Foundation
import Logging

/// What peers send: Hello, clocks and requests, entries (checked, stored or deferred) and
/// their acknowledgements (Protocol.md §12).
extension SyncEngine {
    func handleHello(_ hello: SessionMessage.Hello, from peer: NodeID) throws -> SyncOutput {
        guard peers[peer]?.helloReceived == false else { return misbehaving("second hello") }
        guard hello.version >= 1 else { return misbehaving("protocol version \(hello.version)") }
        peers[peer]?.role = hello.role
        peers[peer]?.isTrustedRelay = hello.role == .relay && trustsRelay(peer)
        peers[peer]?.tellsRequests = hello.features.contains(SessionCodec.requestsFeature)
        peers[peer]?.readsPartialClocks = hello.features.contains(SessionCodec.partialClocksFeature)
        peers[peer]?.readsLargeGroups = hello.features.contains(SessionCodec.largeGroupsFeature)
        peers[peer]?.readsDeviceLists = hello.features.contains(SessionCodec.deviceListsFeature)
        var output = SyncOutput()
        // Lists first: whose devices are whose is what the entries that follow are read by.
        output.replies = try greetDeviceLists(peer)
        // Links of the tree's conversations shared with it start lazy, as every link of a
        // new session does (`PeerSyncState.eagerSince`).
        let shared = try sharedClocks(with: peer)
        output.replies += announcement(shared, to: peer)
        // What this node knows against an author of a shared conversation, the peer learns
        // too, so it stops taking that author's log as well.
        for proof in try store.forkProofs(in: Set(shared.keys)) {
            output.replies.append(.forkProof(first: proof.first, second: proof.second))
        }
        return output
    }

    /// A peer's clocks: what it holds. Each makes this node send the peer its own entries
    /// the peer lacks (the author's eager path), and, when the clocks are a request, every
    /// author's (§12.5). What the peer holds and this node lacks is asked for later, by a
    /// request to one holder, unless it arrives meanwhile.
    func handleClocks(
        _ clocks: [SessionMessage.ConversationClock], from peer: NodeID, request: Bool, resends: Bool
    ) throws -> SyncOutput {
        var output = SyncOutput()
        var invitations: [SessionMessage.ConversationClock] = []
        for received in clocks {
            let conversation = received.conversation
            // A partial clock names the authors that moved since the peer's last clock of
            // the conversation, which this node kept if it shares or was invited to it;
            // merged, it is the peer's whole clock, or less where nothing was kept.
            var item = received
            if received.partial {
                let known = peers[peer]?.theirs[conversation] ?? peers[peer]?.invited[conversation] ?? VectorClock()
                item = .init(conversation: conversation, clock: known.merging(received.clock))
            }
            // What the peer was known to hold, and that with this clock: no conversation has
            // more authors, so a peer whose clocks add up to more lies.
            let first = peers[peer]?.theirs[conversation] == nil
            let held = peers[peer]?.theirs[conversation] ?? VectorClock()
            let merged = held.merging(item.clock)
            let here = try store.clock(of: conversation)
            let width = clockWidth(of: conversation, held: here, from: peer)
            guard merged.width <= width else {
                return misbehaving("clocks of conversation \(conversation.shortHex) name more than \(width) authors")
            }
            let sharing = try sharing(conversation, with: peer)
            let mine = sharing.capping(here)
            guard !mine.isEmpty, sharing != .none else {
                // Not held here, or held but not the peer's: the same answer either way,
                // once, so nobody learns which conversations this node holds. For one not
                // held it is how an invitation arrives: the answer asks for the whole
                // conversation, its create entry first. The peer's claim is not kept.
                // At most `maxAnswered` such answers per session: a flood of made-up ids
                // costs this node a bounded set, freed with the session.
                if !item.clock.isEmpty, peers[peer]?.announced[conversation] == nil,
                    let answered = peers[peer]?.answered, !answered.contains(conversation),
                    answered.count < PeerSyncState.maxAnswered
                {
                    peers[peer]?.answered.insert(conversation)
                    invitations.append(.init(conversation: conversation, clock: VectorClock()))
                    if mine.isEmpty, item.clock.width <= Limits.maxClockWidth,
                        (peers[peer]?.invited.count ?? .max) < PeerSyncState.maxInvitations
                    {
                        peers[peer]?.invited[conversation] = item.clock
                    }
                } else if peers[peer]?.invited[conversation] != nil {
                    // Kept whole, for the partial clocks that follow; a wide one (a large
                    // group's) is not kept: 1,024 of them would take hundreds of megabytes.
                    peers[peer]?.invited[conversation] =
                        item.clock.width <= Limits.maxClockWidth ? item.clock : nil
                }
                continue
            }
            // Whether the peer says something new: it holds more than it was known to.
            let news = !held.covers(item.clock)
            // A request's whole clock is the peer's word about itself, and what it is
            // answered by: where it says it holds less than this node took it to hold (an
            // entry that reached it above a gap and was never stored, or a claim of its
            // own), it is sent that again. Taking the larger of the two left a node that
            // lacked the start of 16 logs being sent only their ends, for good.
            peers[peer]?.theirs[conversation] = request && !received.partial ? item.clock : merged
            peers[peer]?.acknowledge(conversation)
            if request {
                peers[peer]?.requested[conversation] = mine
                // A peer that holds nothing of it answers an invitation (a large group it
                // was just added to): every holder in session is asked so, and a link made
                // eager by each would bring each later entry once per holder (§18.8).
                if !item.clock.isEmpty { graft([conversation], with: peer, asking: false) }
            }
            // What the peer still lacks though it was sent (refused there, or pushed out
            // while it waited for what it depends on) would otherwise never be offered
            // again in this session. Only a request marked as one says so: an older
            // peer's every acknowledgement counts as a request, and most lag what is on
            // its way.
            if resends {
                peers[peer]?.resend(conversation, lacking: item.clock, at: now(), interval: Self.resendInterval)
            }
            let written = peers[peer]?.written[conversation] ?? 0
            if try store.recordPeerClock(item.clock, peer: peer, conversation: conversation, sentUpTo: written) > 0 {
                output.statusChanged.insert(conversation)
            }
            // Over a lazy link of the tree the peer asks for what it lacks, which makes the
            // link eager; until then my own entries reach it along the tree (§18.8).
            if request || !isLazy(conversation, with: peer) {
                let answer = try missingEntries(conversation, for: peer, sharing: sharing)
                // The other side of the stuck-node case (a request answered with less than it
                // lacks): what this node sent for what the peer said it lacks.
                if request {
                    let sent = answer.reduce(0) { count, message in
                        if case .entries(let entries) = message { return count + entries.count }
                        return count
                    }
                    logger.debug(
                        "request from \(peer.shortHex) for \(conversation.shortHex): it lacks \(item.clock.lacking(mine)), sending \(sent), sent before \(peers[peer]?.sent[conversation].map { item.clock.lacking($0) } ?? 0) beyond its clock"
                    )
                }
                output.replies += answer
            }
            if !mine.covers(item.clock) {
                grafts.note(
                    conversation, holder: peer, news: news, atLinkStart: first && isLazy(conversation, with: peer),
                    at: now())
            }
        }
        if !invitations.isEmpty { output.replies += SessionCodec.clocksMessages(invitations, request: true) }
        output.replies += try offerStarved(to: peer)
        return output
    }

    /// The most authors a peer's clocks of `conversation` may name in a session, merged: a
    /// room's or a large group's has no member list of 64 to bound it (§18.3, §19.6). Nor
    /// has one not held here from a peer that reads large groups: it may be inviting this
    /// node to one, whose clock names every author that wrote in it.
    func clockWidth(of conversation: ConversationID, held: VectorClock, from peer: NodeID) -> Int {
        if treeConversations.contains(conversation) { return Limits.maxRoomAuthors }
        if held.isEmpty, peers[peer]?.readsLargeGroups == true { return Limits.maxRoomAuthors }
        return Limits.maxClockWidth
    }

    func handleEntries(_ batch: [[UInt8]], from peer: NodeID, decoded: DecodedBatch?) throws -> SyncOutput {
        var output = SyncOutput()
        var touched = Set<ConversationID>()
        var messagesFromOthers = Set<ConversationID>()
        output.entriesReceived += batch.count
        output.entryBytesReceived += batch.reduce(0) { $0 + $1.count }
        let arriving = holdOverRate(batch, from: peer, output: &output, touched: &touched)
        // Claims are read from the decoded entries while none was held back (the usual case).
        let (kept, counted) = try admitted(
            arriving, from: Array(repeating: peer, count: arriving.count),
            decoded: arriving.count == batch.count ? decoded : nil, output: &output, touched: &touched)
        let received = batch
        let batch = kept.map { arriving[$0] }
        output.merge(
            try takeListsForDeviceCreates(batch, decoded: kept.count == received.count ? decoded : nil, from: peer))
        // What is held back or refused still vouches for what it follows (§7 step 3): the
        // peer ended its chains at entries it checked, not at the ones kept here.
        let results = try store.append(
            batch: batch, keepsOthers: role == .relay, invitations: Set(peers[peer]?.invited.keys ?? [:].keys),
            vouchers: batch.count < received.count ? received : [], decoded: decoded)
        for (index, (bytes, result)) in zip(batch, results).enumerated() {
            if case .success(.duplicate) = result { output.duplicatesReceived += 1 }
            let appended = if case .success(.appended) = result { true } else { false }
            if !appended, let peek = counted[index] { admission?.notStored(peek, size: bytes.count) }
            try absorb(bytes, result, from: peer, into: &output, touched: &touched, messages: &messagesFromOthers)
            if output.misbehavior != nil { return output }
        }
        try retryDeferred(touched, into: &output, touched: &touched, messages: &messagesFromOthers)
        // An invitation whose conversation is now held: what the peer announced counts.
        for conversation in touched {
            if let clock = peers[peer]?.invited[conversation], try shouldShare(conversation, with: peer) {
                peers[peer]?.invited[conversation] = nil
                peers[peer]?.theirs[conversation, default: VectorClock()].merge(clock)
            }
        }
        if output.appended.contains(where: { $0.author == peer }) { peers[peer]?.lastOwnPush = now() }
        output.replies += try acknowledgement(acknowledgeNow(touched, batch: output.appended, from: peer), to: peer)
        // Others' entries are not pushed on: their authors push to everyone they reach,
        // and the other peers are told lazily, by a clock at the next tick (§12.5) — but
        // for rooms, which go on along their eager tree at once (§18.8).
        output.replies += pruneIfCopies(batch, results, from: peer)
        output.merge(try spreadOthers(output.appended, from: peer))
        // Then the delivered receipt, paced: it is written after the messages are stored,
        // so the node publishes them in one output.
        output.merge(try writeReceipts(receiptPacer.due(messagesFromOthers, now: now())))
        return output
    }

    /// Acknowledges entries: our clock of every conversation they touched that the peer
    /// should have. One it should not have (held here but not shared with it) gets the
    /// answer an unknown one gets, an empty clock, so entries cannot probe which
    /// conversations this node holds any more than clocks can (§12 steps 3–4).
    func acknowledgement(_ conversations: Set<ConversationID>, to peer: NodeID) throws -> [SessionMessage] {
        var acks: [SessionMessage.ConversationClock] = []
        for conversation in conversations.sorted() {
            let mine = try sharing(conversation, with: peer).capping(store.clock(of: conversation))
            // Only shared conversations are remembered: entries naming made-up or unshared
            // ids are answered (with an empty clock) but leave nothing behind.
            acks.append(clockItem(conversation, mine, to: peer))
            if !mine.isEmpty { peers[peer]?.announced[conversation] = mine }
        }
        return acks.isEmpty ? [] : SessionCodec.clocksMessages(acks)
    }

    /// What one entry's outcome means for the session and for the node.
    func absorb(
        _ bytes: [UInt8], _ result: Result<AppendOutcome, AppendRejection>, from peer: NodeID?,
        into output: inout SyncOutput, touched: inout Set<ConversationID>, messages: inout Set<ConversationID>
    ) throws {
        switch result {
        case .success(.appended(let entry)):
            // The peer holds what it sent (its clock covers it): never offer it back,
            // whatever later pushes to this peer (a receipt, a resync) carry.
            if let peer {
                peers[peer]?.theirs[entry.conversationID, default: VectorClock()].merge(
                    VectorClock([entry.author: entry.seq]))
                grafts.stored(entry.conversationID, author: entry.author, seq: entry.seq, from: peer, at: now())
            }
            output.appended.append(entry)
            touched.insert(entry.conversationID)
            charge(entry, size: bytes.count)
            if [.message, .edit, .file].contains(entry.kind), entry.author != store.me {
                messages.insert(entry.conversationID)
            }
            if entry.kind == .receipt, entry.author != store.me { output.statusChanged.insert(entry.conversationID) }
        case .success(.duplicate):
            if let conversation = EntryCodec.peekConversationID(bytes) { touched.insert(conversation) }
        case .failure(let rejection) where rejection.isRecoverable:
            // Arrived ahead of what it follows or depends on: kept a while and tried again
            // as more arrives; the acknowledgement tells the peer where we stand.
            logger.debug("entry from \(peer?.shortHex ?? "here") not yet applicable: \(rejection)")
            if let conversation = EntryCodec.peekConversationID(bytes) {
                touched.insert(conversation)
                deferred.add(bytes, conversation: conversation)
            }
            // It holds what it sent: when the entry is taken later, the eager tree does
            // not pass it back (§18.8).
            if let peer, let conversation = EntryCodec.peekConversationID(bytes),
                treeConversations.contains(conversation),
                let entry = try? EntryCodec.decodeUnverified(bytes)
            {
                peers[peer]?.theirs[entry.conversationID, default: VectorClock()].merge(
                    VectorClock([entry.author: entry.seq]))
            }
        case .failure(let rejection):
            if let proof = rejection.proof {
                logger.warning(
                    "\(proof.author.shortHex) forked its log in conversation \(proof.conversation.shortHex) at seq \(proof.seq)"
                )
                try spread(proof, into: &output)
            }
            if rejection.isSessionError, peer != nil {
                output.misbehavior = "sent an invalid entry: \(rejection)"
                output.rejectedEntry = rejection.category.rawValue
            } else {
                // Depends on what this node holds (a fork, a forked author, a conversation
                // it is not in): the sender may be honest, so the session goes on.
                logger.info("entry from \(peer?.shortHex ?? "here") not stored: \(rejection)")
                output.notStored[rejection.category.rawValue, default: 0] += 1
                if let conversation = EntryCodec.peekConversationID(bytes) { touched.insert(conversation) }
            }
        }
    }

    /// Tries the deferred entries of the conversations that just grew, until nothing more
    /// applies.
    func retryDeferred(
        _ conversations: Set<ConversationID>, into output: inout SyncOutput, touched: inout Set<ConversationID>,
        messages: inout Set<ConversationID>
    ) throws {
        var pending = conversations
        while !pending.isEmpty {
            var grew = Set<ConversationID>()
            for conversation in pending.sorted() {
                let waiting = deferred.take(conversation)
                guard !waiting.isEmpty else { continue }
                let before = output.appended.count
                let results = try store.append(batch: waiting, keepsOthers: role == .relay, invitations: invitations)
                for (bytes, result) in zip(waiting, results) {
                    try absorb(bytes, result, from: nil, into: &output, touched: &touched, messages: &messages)
                }
                if output.appended.count > before { grew.insert(conversation) }
            }
            pending = grew
        }
    }
}
