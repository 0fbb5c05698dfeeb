import ConfabModel
import ConfabStore
import ConfabWire
import Foundation
import Logging

/// The replication engine: decides, from the store and what each peer announced, what to
/// send whom (Protocol.md §12). It does no I/O of its own, so two engines and two stores
/// can be tested by handing messages across directly.
///
/// Not thread-safe: the node owns one and calls it from one isolation domain.
public final class SyncEngine {
    public let store: ConfabStore
    public let role: NodeRole
    /// Entries per Entries message, and per `Want` answer and release of entries held for
    /// their author's rate. A message still takes a whole run of entries left unsigned
    /// (64, Protocol.md §4.3) when this is set lower.
    public var batchSize = 256
    /// Entries per author that may be in flight (sent, not yet acknowledged) to one peer.
    public var window = 1024
    /// Bytes of entries that may be in flight to one peer, pushed or in answer to Want:
    /// what a peer that reads slowly, or not at all, makes this node buffer for it. An
    /// entry larger than the window goes when nothing else is in flight.
    public var byteWindow = 2 << 20
    /// Asked about every entry a peer offers before it is stored; nil admits everything.
    public var admission: (any EntryAdmission)?
    /// Whether a peer that says it is a relay is trusted as one (offered every
    /// conversation held). A claim in Hello alone gets nothing (Protocol.md §14.1).
    public var trustsRelay: (NodeID) -> Bool = { _ in false }
    /// The engine's clock, for pacing receipts and rates; tests pass a virtual one.
    public var now: @Sendable () -> ContinuousClock.Instant = { .now }
    /// How fast this node takes each other author's new entries (a person's node); over it,
    /// they wait aside until the author's budget refills. Nil: no limit (a relay limits
    /// each peer's rate instead, Protocol.md §14.5).
    public var authorRateLimit: AuthorRateLimit? {
        didSet { budgets = authorRateLimit.map(AuthorBudgets.init) }
    }
    /// When this node started, by the wall clock: what authors wrote before is history,
    /// never held back for their rate.
    public var startedAt = Date()
    /// The wall clock, against which entries' timestamps are judged new or history.
    public var wallClock: @Sendable () -> Date = { Date() }
    var budgets: AuthorBudgets?
    /// New entries of authors over their rate, waiting for their budget (§12 step 4).
    var held = HeldEntries()
    /// Authors whose going over their rate was logged.
    private var overRateLogged: Set<NodeID> = []
    var peers: [NodeID: PeerSyncState] = [:]
    private var receiptPacer = ReceiptPacer()
    /// Entries that arrived before what they follow or depend on, kept a while and tried
    /// again as more arrives (Protocol.md §12 step 4).
    var deferred = DeferredEntries()
    /// Fork proofs already passed on from this node (conversation and author).
    private var spreadProofs: Set<[UInt8]> = []
    private let logger: Logger

    public init(store: ConfabStore, role: NodeRole, logger: Logger = Logger(label: "confab.sync")) {
        self.store = store
        self.role = role
        self.logger = logger
    }

    /// A session opened: the peer's state starts empty until its Hello arrives.
    public func peerConnected(_ peer: NodeID) {
        peers[peer] = PeerSyncState()
    }

    public func peerDisconnected(_ peer: NodeID) {
        peers[peer] = nil
    }

    /// Whether the peer's Hello has arrived on its current session.
    public func hasGreeted(_ peer: NodeID) -> Bool {
        peers[peer]?.helloReceived == true
    }

    /// Handles one message from a peer; `decoded`: its entries already decoded, if it is an
    /// `Entries` message.
    public func handle(
        _ message: SessionMessage, from peer: NodeID, decoded: DecodedBatch? = nil
    ) throws -> SyncOutput {
        guard peers[peer] != nil else { return SyncOutput() }
        switch message {
        case .hello(let hello):
            return try handleHello(hello, from: peer)
        case .clocks(let clocks):
            guard let state = peers[peer], state.helloReceived else { return misbehaving("clocks before hello") }
            // A peer that cannot say "request" asks with every clock (§12.5).
            return try handleClocks(clocks, from: peer, request: !state.tellsRequests, resends: false)
        case .request(let clocks):
            guard peers[peer]?.helloReceived == true else { return misbehaving("clocks before hello") }
            return try handleClocks(clocks, from: peer, request: true, resends: true)
        case .entries(let entries):
            guard peers[peer]?.helloReceived == true else { return misbehaving("entries before hello") }
            return try handleEntries(entries, from: peer, decoded: decoded)
        case .want(let want):
            guard peers[peer]?.helloReceived == true else { return misbehaving("want before hello") }
            return try answer(want, from: peer)
        case .forkProof(let first, let second):
            guard peers[peer]?.helloReceived == true else { return misbehaving("fork proof before hello") }
            var output = SyncOutput()
            // A proof that does not verify, or concerns nothing held here, is ignored: it
            // proves nothing against anyone, but an honest node may hold other logs.
            if let proof = try store.recordForkProof(first: first, second: second) {
                logger.warning(
                    "\(proof.author.shortHex) forked its log in conversation \(proof.conversation.shortHex) at seq \(proof.seq) (proof from \(peer.shortHex))"
                )
                try spread(proof, into: &output)
                // Entries kept aside because their clocks name more of that author's log
                // than is held here no longer wait for it (Protocol.md §7 step 4).
                var touched = Set<ConversationID>()
                var messages = Set<ConversationID>()
                try retryDeferred([proof.conversation], into: &output, touched: &touched, messages: &messages)
                noteGrowth(of: output.appended.filter { $0.author != store.me })
                output.merge(try writeReceipts(receiptPacer.due(messages, now: now())))
            }
            return output
        case .ping, .pong, .bye, .typing, .fileWant, .fileManifest, .fileChunk, .fileHave:
            // Typing is not sync: the node handles it before the engine (never stored). File
            // messages are the file exchange's (FileExchange).
            return SyncOutput()
        }
    }

    /// Entries were written here: offer them to every connected peer that should have them.
    /// The output's `appended` holds them, so the node publishes them like received ones.
    public func didWrite(_ entries: [Entry]) throws -> SyncOutput {
        var output = try pushOwn(entries)
        output.appended = entries
        return output
    }

    /// The eager push (§12.5): this node's own new entries to every connected peer that
    /// should have them; what they depend on reaches each peer from its own author, or by
    /// the lazy path.
    private func pushOwn(_ entries: [Entry]) throws -> SyncOutput {
        try pushOwn(
            in: Set(entries.map(\.conversationID)),
            inviting: Set(entries.filter { $0.kind == .members }.map(\.conversationID)))
    }

    /// Another process wrote entries of mine to these conversations (the node saw them in
    /// the outbox): they go out by the eager path, as if written here — mine only, so that
    /// what others wrote still reaches each peer from its author or by the lazy path, once.
    /// Which kinds they are is not known here: a peer that has heard nothing of one of them
    /// in this session (a conversation just started, or one it was just added to) is
    /// invited with a clock, and answers for all of it.
    public func pushOwn(in conversations: Set<ConversationID>) throws -> SyncOutput {
        try pushOwn(in: conversations, inviting: conversations)
    }

    /// `inviting`: conversations in which a peer that has heard nothing of them this
    /// session may be a new member.
    private func pushOwn(in conversations: Set<ConversationID>, inviting: Set<ConversationID>) throws -> SyncOutput {
        var output = SyncOutput()
        var held = HeldHere.Cache()
        for peer in peers.keys where peers[peer]?.helloReceived == true {
            for conversation in conversations {
                let sharing = try sharing(conversation, with: peer)
                guard sharing != .none else { continue }
                let here = try held.of(conversation, in: store)
                // A member just added has not heard of the conversation: it is invited
                // with a clock first, and answers for all of it (§12 step 3).
                if inviting.contains(conversation), peers[peer]?.theirs[conversation] == nil,
                    peers[peer]?.announced[conversation] == nil
                {
                    output.push(announcement([conversation: sharing.capping(here.clock)], to: peer), to: peer)
                    continue
                }
                output.push(try missingEntries(conversation, for: peer, onlyMine: true, held: here), to: peer)
            }
        }
        return output
    }

    /// Another process wrote to these conversations: offer what peers lack.
    public func offer(_ conversations: Set<ConversationID>) throws -> SyncOutput {
        var output = SyncOutput()
        var held = HeldHere.Cache()
        for peer in peers.keys where peers[peer]?.helloReceived == true {
            for conversation in conversations.sorted() where try shouldShare(conversation, with: peer) {
                let here = try held.of(conversation, in: store)
                output.push(try missingEntries(conversation, for: peer, onlyMine: false, held: here), to: peer)
            }
        }
        return output
    }

    /// Announces every shared conversation to every peer and sends what each lacks: used
    /// after another process wrote to the store, and on an explicit resync.
    public func resyncAll() throws -> SyncOutput {
        var output = SyncOutput()
        for peer in peers.keys where peers[peer]?.helloReceived == true {
            peers[peer]?.announced = [:]
            let shared = try sharedClocks(with: peer)
            output.push(announcement(shared, to: peer), to: peer)
            for conversation in shared.keys.sorted() {
                output.push(try missingEntries(conversation, for: peer, onlyMine: false), to: peer)
            }
        }
        return output
    }

    // MARK: Handlers

    private func handleHello(_ hello: SessionMessage.Hello, from peer: NodeID) throws -> SyncOutput {
        guard peers[peer]?.helloReceived == false else { return misbehaving("second hello") }
        guard hello.version >= 1 else { return misbehaving("protocol version \(hello.version)") }
        peers[peer]?.role = hello.role
        peers[peer]?.isTrustedRelay = hello.role == .relay && trustsRelay(peer)
        peers[peer]?.tellsRequests = hello.features.contains(SessionCodec.requestsFeature)
        var output = SyncOutput()
        let shared = try sharedClocks(with: peer)
        output.replies = announcement(shared, to: peer)
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
    private func handleClocks(
        _ clocks: [SessionMessage.ConversationClock], from peer: NodeID, request: Bool, resends: Bool
    ) throws -> SyncOutput {
        var output = SyncOutput()
        var invitations: [SessionMessage.ConversationClock] = []
        for item in clocks {
            let conversation = item.conversation
            let sharing = try sharing(conversation, with: peer)
            let mine = sharing.capping(try store.clock(of: conversation))
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
                    if mine.isEmpty, (peers[peer]?.invited.count ?? .max) < PeerSyncState.maxInvitations {
                        peers[peer]?.invited[conversation] = item.clock
                    }
                }
                continue
            }
            // Whether the peer says something new: it holds more than it was known to.
            let news = !(peers[peer]?.theirs[conversation] ?? VectorClock()).covers(item.clock)
            peers[peer]?.theirs[conversation, default: VectorClock()].merge(item.clock)
            peers[peer]?.acknowledge(conversation)
            if request { peers[peer]?.requested[conversation] = mine }
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
            output.replies += try missingEntries(conversation, for: peer)
            if !mine.covers(item.clock) { grafts.note(conversation, holder: peer, news: news, at: now()) }
        }
        if !invitations.isEmpty { output.replies += SessionCodec.clocksMessages(invitations, request: true) }
        output.replies += try offerStarved(to: peer)
        return output
    }

    /// Answers a Want only beyond what earlier Wants of this session got, and only within
    /// the byte window, so that asking again, or faster than it acknowledges, gets a peer
    /// nothing more (Protocol.md §12.2).
    private func answer(_ want: SessionMessage.Want, from peer: NodeID) throws -> SyncOutput {
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
    private func offerStarved(to peer: NodeID) throws -> [SessionMessage] {
        guard let starved = peers[peer]?.starved, !starved.isEmpty else { return [] }
        peers[peer]?.starved = []
        var messages: [SessionMessage] = []
        for conversation in starved.sorted() {
            messages += try missingEntries(conversation, for: peer)
        }
        return messages
    }

    private func handleEntries(_ batch: [[UInt8]], from peer: NodeID, decoded: DecodedBatch?) throws -> SyncOutput {
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
        output.replies += try acknowledgement(touched, to: peer)
        // Others' entries are not pushed on: their authors push to everyone they reach,
        // and the other peers are told lazily, by a clock at the next tick (§12.5).
        noteGrowth(of: output.appended.filter { $0.author != store.me })
        // Then the delivered receipt, paced: it is written after the messages are stored,
        // so the node publishes them in one output.
        output.merge(try writeReceipts(receiptPacer.due(messagesFromOthers, now: now())))
        return output
    }

    /// Acknowledges entries: our clock of every conversation they touched that the peer
    /// should have. One it should not have (held here but not shared with it) gets the
    /// answer an unknown one gets, an empty clock, so entries cannot probe which
    /// conversations this node holds any more than clocks can (§12 steps 3–4).
    private func acknowledgement(_ conversations: Set<ConversationID>, to peer: NodeID) throws -> [SessionMessage] {
        var acks: [SessionMessage.ConversationClock] = []
        for conversation in conversations.sorted() {
            let mine = try sharing(conversation, with: peer).capping(store.clock(of: conversation))
            // Only shared conversations are remembered: entries naming made-up or unshared
            // ids are answered (with an empty clock) but leave nothing behind.
            if !mine.isEmpty { peers[peer]?.announced[conversation] = mine }
            acks.append(.init(conversation: conversation, clock: mine))
        }
        return acks.isEmpty ? [] : SessionCodec.clocksMessages(acks)
    }

    /// What one entry's outcome means for the session and for the node.
    private func absorb(
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
    private func retryDeferred(
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

    /// The engine's timer, every fraction of a second: writes the delivered receipts that
    /// came due (`ReceiptPacer` holds back receipts for a conversation that had one less
    /// than its interval ago), stores the entries that waited for their author's rate,
    /// and announces conversations that grew with others' entries.
    public func tick() throws -> SyncOutput {
        var output = SyncOutput()
        if receiptPacer.isWaiting { output.merge(try writeReceipts(receiptPacer.due([], now: now()))) }
        output.merge(try releaseHeld())
        output.merge(try announceGrowth())
        output.merge(try askForMissing())
        return output
    }

    /// Conversations that grew with others' entries, and when each first grew since it was
    /// last announced.
    private var grown: [ConversationID: ContinuousClock.Instant] = [:]
    /// How long another author's new entries wait before this node announces them: long
    /// enough for the author's own push to reach every peer it has a session with even on
    /// a busy machine (20 nodes on 2 cores queue for hundreds of milliseconds), so that the
    /// announcement finds them up to date and costs one small message.
    public static let lazyDelay: Duration = .milliseconds(500)
    /// How long what a peer's clock shows this node lacking may take to arrive before it is
    /// asked for: the same margin, for the author's push or an answer already on its way.
    public var graftDelay: Duration = .milliseconds(500)
    /// How long a request has to be answered before another holder is asked.
    public static let graftRetry: Duration = .seconds(1)
    /// How long entries lacked here whose author has a session with this node wait for its
    /// push before another holder is asked for them: counted from when the lack began or
    /// from the author's last push stored here, whichever is later. A busy node (50 nodes
    /// on 2 cores) can still have the author's push in its socket or inbox when the graft
    /// delay is over, and another holder's answer to a request made then is a second copy.
    public var authorPushWait: Duration = .seconds(3)
    /// Whether the last timer left a lack unasked for only because its authors' pushes may
    /// still come: a later timer may ask, so a driver that lets time pass only while
    /// something is pending (the tests' harness) must go on.
    public private(set) var waitsForPushes = false
    /// How often a peer's requests may have this node send again, per conversation, what
    /// it was sent and does not hold: a peer that asks again and again is sent the same
    /// entries no more often than this.
    public static let resendInterval: Duration = .seconds(5)
    /// What peers' clocks showed this node lacking (§12.5).
    var grafts = Grafts()

    private func noteGrowth(of entries: [Entry]) {
        for conversation in Set(entries.map(\.conversationID)) where grown[conversation] == nil {
            grown[conversation] = now()
        }
    }

    /// Tells every peer that should have them where the grown conversations stand, in
    /// one Clocks message per peer. A peer that still lacks something after its own delay
    /// asks for it with a request (§12.5); one that holds it all says nothing.
    private func announceGrowth() throws -> SyncOutput {
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
                let sharing = try sharing(conversation, with: peer)
                guard sharing != .none else { continue }
                let mine = sharing.capping(held)
                if let theirs = peers[peer]?.theirs[conversation], theirs.covers(mine) { continue }
                guard peers[peer]?.announced[conversation] != mine else { continue }
                peers[peer]?.announced[conversation] = mine
                announcements[peer, default: []].append(.init(conversation: conversation, clock: mine))
            }
        }
        for (peer, clocks) in announcements { output.push(SessionCodec.clocksMessages(clocks), to: peer) }
        return output
    }

    /// What peers' clocks showed missing here and has not arrived since: asked for, per
    /// conversation, from one connected peer that holds it and was not asked since its
    /// last news (in turns, `Grafts.holder`), or, when all were, again after a doubling
    /// wait, with a request carrying this node's clock (§12.5).
    private func askForMissing() throws -> SyncOutput {
        waitsForPushes = false
        guard !grafts.isEmpty else { return SyncOutput() }
        let due = now()
        var requests: [NodeID: [SessionMessage.ConversationClock]] = [:]
        for (conversation, lack) in grafts.due(at: due, delay: graftDelay, retry: Self.graftRetry) {
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
            if authors.allSatisfy({ awaitsPush(from: $0, lackingSince: lack.since, at: due) }) {
                waitsForPushes = true
                continue
            }
            grafts.judgeLastRequest(conversation, mine: mine)
            guard let lack = grafts.lacking[conversation],
                let holder = grafts.holder(for: lack, among: holders, mine: mine, at: due, retry: Self.graftRetry)
            else { continue }
            let claim = holders.first { $0.peer == holder }?.clock ?? VectorClock()
            grafts.asked(holder, for: conversation, mine: mine, claim: claim, at: due)
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
    /// other lacks (§12 step 3), so asking another holder sooner only makes a copy.
    private func awaitsPush(
        from author: NodeID, lackingSince since: ContinuousClock.Instant, at now: ContinuousClock.Instant
    ) -> Bool {
        guard let state = peers[author], state.helloReceived else { return false }
        return now - max(since, state.lastOwnPush ?? since) < authorPushWait
    }

    /// Stored messages of others are delivered: one coalesced receipt per conversation,
    /// offered to every connected peer that should have it, the sender included.
    private func writeReceipts(_ conversations: Set<ConversationID>) throws -> SyncOutput {
        var receipts: [Entry] = []
        for conversation in conversations.sorted() {
            if let receipt = try store.acknowledgeDelivery(conversation) { receipts.append(receipt) }
        }
        guard !receipts.isEmpty else { return SyncOutput() }
        return try didWrite(receipts)
    }

    // MARK: Helpers

    /// Passes a fork proof to every connected peer that shares its conversation, once.
    private func spread(_ proof: ForkProof, into output: inout SyncOutput) throws {
        output.forkProofs.append(proof)
        guard spreadProofs.insert(proof.conversation.bytes + proof.author.bytes).inserted else { return }
        for peer in peers.keys where peers[peer]?.helloReceived == true {
            if try shouldShare(proof.conversation, with: peer) {
                output.push([.forkProof(first: proof.first, second: proof.second)], to: peer)
            }
        }
    }

    /// The indices of the entries of a batch the admission policy takes (each sent by the
    /// peer at the same index of `sources`), and for each what it counted; the
    /// conversations of the others are acknowledged like the rest, so the sender learns
    /// they were not stored.
    private func admitted(
        _ batch: [[UInt8]], from sources: [NodeID], decoded: DecodedBatch? = nil, output: inout SyncOutput,
        touched: inout Set<ConversationID>
    ) throws -> (kept: [Int], counted: [EntryPeek?]) {
        guard let admission else { return (Array(batch.indices), Array(repeating: nil, count: batch.count)) }
        let peeks = decoded.flatMap { $0.raw == batch ? $0 : nil }
        var kept: [Int] = []
        var counted: [EntryPeek?] = []
        var participants: [ConversationID: [NodeID]] = [:]
        // Where each author's entries were first refused, and why.
        var cuts: [ChainKey: (index: Int, reason: String)] = [:]
        for (index, bytes) in batch.enumerated() {
            // Undecodable entries go on to validation, which rejects them as it always does.
            guard let peek = peeks?.peek(index) ?? EntryCodec.peek(bytes) else {
                kept.append(index)
                counted.append(nil)
                continue
            }
            // A held conversation's participants are the ones stored; a create entry's own
            // list counts only for a conversation not held (a bogus create in the same
            // batch cannot open a held conversation to other keys).
            if participants[peek.conversation] == nil {
                participants[peek.conversation] = try store.participants(of: peek.conversation)
            }
            if let named = peek.participants, participants[peek.conversation]?.isEmpty ?? true {
                participants[peek.conversation] = named
            }
            let members = participants[peek.conversation] ?? []
            if let reason = admission.refusal(
                of: peek, size: bytes.count, participants: members, from: sources[index])
            {
                output.refused[reason, default: 0] += 1
                touched.insert(peek.conversation)
                let chain = ChainKey(conversation: peek.conversation, author: peek.author)
                if cuts[chain] == nil { cuts[chain] = (index, reason) }
            } else {
                kept.append(index)
                counted.append(peek)
            }
        }
        return endingOnSignedEntries(batch, kept: kept, counted: counted, cuts: cuts, output: &output)
    }

    private struct ChainKey: Hashable {
        let conversation: ConversationID
        let author: NodeID
    }

    /// What a refusal cut short is taken only up to a signed entry (Protocol.md §4.3): an
    /// author's entries kept below a refused one, past its last entry that carries a
    /// signature, are refused with it. Stored, they would end this node's copy of that log
    /// on an entry it could never send on as the last of a message (§12 step 3); refused,
    /// their sender keeps them queued and offers them again.
    private func endingOnSignedEntries(
        _ batch: [[UInt8]], kept: [Int], counted: [EntryPeek?], cuts: [ChainKey: (index: Int, reason: String)],
        output: inout SyncOutput
    ) -> (kept: [Int], counted: [EntryPeek?]) {
        guard !cuts.isEmpty else { return (kept, counted) }
        var dropped = Set<Int>()
        var open = Set(cuts.keys)
        // From the end: the kept entries of a cut chain that came before its refusal, down to
        // the first one found signed. (Those after it are not stored anyway: a gap.)
        for position in kept.indices.reversed() {
            guard let peek = counted[position] else { continue }
            let chain = ChainKey(conversation: peek.conversation, author: peek.author)
            guard open.contains(chain), let (cut, reason) = cuts[chain], kept[position] < cut else { continue }
            if EntryCodec.peekSignedHash(batch[kept[position]]) != nil {
                open.remove(chain)
                continue
            }
            dropped.insert(position)
            output.refused[reason, default: 0] += 1
            admission?.notStored(peek, size: batch[kept[position]].count)
        }
        let remaining = kept.indices.filter { !dropped.contains($0) }
        return (remaining.map { kept[$0] }, remaining.map { counted[$0] })
    }

    /// The Clocks message for a peer at the start of a session: what it should know we
    /// hold, asking for everything it holds beyond (§12 step 2).
    private func announcement(_ shared: [ConversationID: VectorClock], to peer: NodeID) -> [SessionMessage] {
        var items: [SessionMessage.ConversationClock] = []
        for (conversation, clock) in shared.sorted(by: { $0.key < $1.key }) {
            peers[peer]?.announced[conversation] = clock
            items.append(.init(conversation: conversation, clock: clock))
        }
        // Nothing to share is said too, with one empty Clocks message.
        return SessionCodec.clocksMessages(items, request: true)
    }

    private func sharedClocks(with peer: NodeID) throws -> [ConversationID: VectorClock] {
        try store.clocks(sharedWith: peer, everything: peers[peer]?.isTrustedRelay == true)
    }

    /// Participants get their conversations, former members theirs up to their removal;
    /// trusted relays get everything (Protocol.md §12 step 3).
    private func shouldShare(_ conversation: ConversationID, with peer: NodeID) throws -> Bool {
        try sharing(conversation, with: peer) != .none
    }

    private func sharing(_ conversation: ConversationID, with peer: NodeID) throws -> Sharing {
        if peers[peer]?.isTrustedRelay == true { return .everything }
        return try store.sharing(conversation, with: peer)
    }

    /// Conversations any connected peer invited this node to: entries kept aside, or held
    /// for their author's rate, may be taken for them as for the batch that brought them.
    private var invitations: Set<ConversationID> {
        peers.values.reduce(into: Set<ConversationID>()) { $0.formUnion($1.invited.keys) }
    }

    /// Whether the peer may fetch the files of `conversation` (Protocol.md §17.3): its
    /// members now, and trusted relays. A former member is served none: the exchange names
    /// files, not positions in the log, so it could not be held to what came before its
    /// removal.
    public func sharesFiles(of conversation: ConversationID, with peer: NodeID) throws -> Bool {
        if peers[peer]?.isTrustedRelay == true { return true }
        return try store.participants(of: conversation).contains(peer)
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
    private func missingEntries(
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

    private func misbehaving(_ reason: String) -> SyncOutput {
        var output = SyncOutput()
        output.misbehavior = reason
        return output
    }
}

// MARK: Per-author rate (Protocol.md §12 step 4)

extension SyncEngine {
    /// Whether an entry its author says it wrote at `timestamp` is new here: written since
    /// this node started and less than `historyAge` ago. Only new entries count against
    /// their author's rate; catching up on history goes at full speed.
    private func isNew(_ timestamp: Int64, wall: Date) -> Bool {
        guard let limit = authorRateLimit else { return false }
        let age = limit.historyAge / .seconds(1)
        let cutoff = max(startedAt.timeIntervalSince1970, wall.timeIntervalSince1970 - age)
        return Double(timestamp) >= cutoff * 1000
    }

    /// Counts a stored entry against its author's budget, if it is new and not ours.
    fileprivate func charge(_ entry: Entry, size: Int) {
        guard budgets != nil, entry.author != store.me, isNew(entry.timestamp, wall: wallClock()) else { return }
        budgets?.charge(entry.author, bytes: size, now: now())
    }

    /// The entries of a batch that go on to be stored now. New entries of an author over
    /// its rate, or with entries already waiting (so that each log is taken in order),
    /// wait aside instead; beyond the bound of what waits they are dropped, to be asked for
    /// again. Either way they are not acknowledged, and the session goes on.
    fileprivate func holdOverRate(
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

    private func noteOverRate(_ author: NodeID) {
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
    fileprivate func releaseHeld() throws -> SyncOutput {
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
        noteGrowth(of: output.appended.filter { $0.author != store.me })
        output.merge(try writeReceipts(receiptPacer.due(messages, now: now())))
        return output
    }

    /// Stores entries that waited, as if they had just arrived from the peers that sent
    /// them; one that turns out invalid is dropped and logged (as one kept aside for a
    /// dependency is), without ending a session.
    private func storeReleased(
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
    private func askForDropped(into output: inout SyncOutput) throws {
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
