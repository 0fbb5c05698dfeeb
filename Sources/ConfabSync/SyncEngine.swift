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
    /// Set when the engine is made; tests adjust it before the engine runs.
    public internal(set) var configuration: SyncConfiguration {
        didSet {
            if configuration.authorRateLimit != oldValue.authorRateLimit {
                budgets = configuration.authorRateLimit.map(AuthorBudgets.init)
            }
        }
    }
    /// Asked about every entry a peer offers before it is stored; nil admits everything.
    public internal(set) var admission: (any EntryAdmission)?
    public var role: NodeRole { configuration.role }
    var batchSize: Int { configuration.batchSize }
    var window: Int { configuration.window }
    var byteWindow: Int { configuration.byteWindow }
    var trustsRelay: (NodeID) -> Bool { configuration.trustsRelay }
    var now: @Sendable () -> ContinuousClock.Instant { configuration.now }
    var authorRateLimit: AuthorRateLimit? { configuration.authorRateLimit }
    var startedAt: Date { configuration.startedAt }
    var wallClock: @Sendable () -> Date { configuration.wallClock }
    var graftDelay: Duration { configuration.graftDelay }
    var authorPushWait: Duration { configuration.authorPushWait }
    var budgets: AuthorBudgets?
    /// New entries of authors over their rate, waiting for their budget (§12 step 4).
    var held = HeldEntries()
    /// Authors whose going over their rate was logged.
    var overRateLogged: Set<NodeID> = []
    var peers: [NodeID: PeerSyncState] = [:]
    var receiptPacer = ReceiptPacer()
    /// Entries that arrived before what they follow or depend on, kept a while and tried
    /// again as more arrives (Protocol.md §12 step 4).
    var deferred = DeferredEntries()
    /// Fork proofs already passed on from this node (conversation and author).
    var spreadProofs: Set<[UInt8]> = []
    /// Persons whose device list was seen to fork: logged once each (the store keeps the proof).
    var loggedDeviceListForks: Set<NodeID> = []
    /// The rooms this node holds (`holdRooms`): each is shared with the peers that said
    /// they joined it, and with nobody else (Protocol.md §18.4).
    var heldRooms: Set<ConversationID> = [] {
        didSet { treeConversations = heldRooms.union(heldLargeGroups) }
    }
    /// The large groups this node holds (`holdLargeGroups`): each is shared as a group is,
    /// with its members and trusted relays, but only those whose Hello lists `large-groups`
    /// (Protocol.md §19.6).
    var heldLargeGroups: Set<ConversationID> = [] {
        didSet { treeConversations = heldRooms.union(heldLargeGroups) }
    }
    /// The conversations that spread along the eager tree (Protocol.md §18.8, §19.6): the
    /// rooms and large groups held. Theirs are the tree's links, prunes and delayed
    /// acknowledgements, clocks of up to `Limits.maxRoomAuthors` and clocks announced
    /// without asking; whom each goes to is `sharing`'s to say.
    private(set) var treeConversations: Set<ConversationID> = []
    let logger: Logger

    public init(
        store: ConfabStore, configuration: SyncConfiguration, admission: (any EntryAdmission)? = nil,
        logger: Logger = Logger(label: "confab.sync")
    ) {
        self.store = store
        self.configuration = configuration
        self.admission = admission
        self.logger = logger
        budgets = configuration.authorRateLimit.map(AuthorBudgets.init)
    }

    /// An engine with the defaults of its role.
    public convenience init(store: ConfabStore, role: NodeRole, logger: Logger = Logger(label: "confab.sync")) {
        self.init(store: store, configuration: SyncConfiguration(role: role), logger: logger)
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
            var output = try handleEntries(entries, from: peer, decoded: decoded)
            try takeMetDeviceLists(after: output.appended, into: &output)
            return output
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
                output.merge(try spreadOthers(output.appended, from: nil))
                output.merge(try writeReceipts(receiptPacer.due(messages, now: now())))
            }
            return output
        case .prune(let rooms):
            return handlePrune(rooms, from: peer)
        case .deviceList(let person, let entries):
            return try handleDeviceList(entries, of: person, from: peer)
        case .ping, .pong, .bye, .typing, .rooms, .fileWant, .fileManifest, .fileChunk, .fileHave:
            // Typing is not sync: the node handles it before the engine (never stored), and
            // rooms' names, which only the node can turn into ids (`peerRooms`). File
            // messages are the file exchange's (FileExchange).
            return SyncOutput()
        }
    }

    /// Entries were written here: offer them to every connected peer that should have them.
    /// The output's `appended` holds them, so the node publishes them like received ones.
    public func didWrite(_ entries: [Entry]) throws -> SyncOutput {
        var output = try pushOwn(entries)
        output.appended = entries
        try takeMetDeviceLists(after: entries, into: &output)
        return output
    }

    /// The eager push (§12.5): this node's own new entries to every connected peer that
    /// should have them, taken as they were handed over rather than read back per peer;
    /// what they depend on reaches each peer from its own author, or by the lazy path.
    func pushOwn(_ entries: [Entry]) throws -> SyncOutput {
        try pushOwn(
            in: Set(entries.map(\.conversationID)),
            inviting: Set(entries.filter { $0.kind == .members }.map(\.conversationID)),
            fresh: FreshEntries(entries, me: store.me))
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
    /// session may be a new member; `fresh`: the entries written, when they were handed over.
    func pushOwn(
        in conversations: Set<ConversationID>, inviting: Set<ConversationID>, fresh: FreshEntries? = nil
    ) throws -> SyncOutput {
        var output = SyncOutput()
        // Peers of the tree whose link with this node is lazy are told by announcement.
        for tree in conversations.intersection(treeConversations) where grown[tree] == nil { grown[tree] = now() }
        var held = HeldHere.Cache()
        for peer in peers.keys where peers[peer]?.helloReceived == true {
            for conversation in conversations {
                // Asked once per peer: the offer below takes it as it is.
                let sharing = try sharing(conversation, with: peer)
                guard sharing != .none else { continue }
                let here = try held.of(conversation, in: store)
                let heardOf = peers[peer]?.theirs[conversation] != nil || peers[peer]?.announced[conversation] != nil
                switch OutboundPlan.eager(
                    sharing: sharing, held: here.clock, inviting: inviting.contains(conversation), heardOf: heardOf)
                {
                case .nothing:
                    continue
                case .invite(let clock):
                    // A clock, as the announcement would be: a member just added to a large
                    // group hears of it now, over a link that is still lazy.
                    output.push(announcement([conversation: clock], to: peer), to: peer)
                case .entries:
                    // On the tree my entries go over eager links; the others hear of them
                    // lazily.
                    guard !isLazy(conversation, with: peer) else { continue }
                    output.push(
                        try missingEntries(
                            conversation, for: peer, onlyMine: true, held: here, sharing: sharing, fresh: fresh),
                        to: peer)
                }
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

    // MARK: Timers

    /// Whether `tick` has anything to do now or later: receipts paced, entries held for
    /// their author's rate, growth to announce, lacks to ask for. While it has not, the
    /// node's housekeeping may sleep longer between ticks.
    public var hasTimers: Bool {
        receiptPacer.isWaiting || held.count > 0 || !held.dropped.isEmpty || !grown.isEmpty || !grafts.isEmpty
            || waitsForPushes || hasPendingAcks || waitsToSendDeviceLists
    }

    /// The engine's timer, every fraction of a second: writes the delivered receipts that
    /// came due (`ReceiptPacer` holds back receipts for a conversation that had one less
    /// than its interval ago), stores the entries that waited for their author's rate,
    /// announces conversations that grew with others' entries, and sends the device lists
    /// that waited for their peer's pace.
    public func tick() throws -> SyncOutput {
        guard hasTimers else { return SyncOutput() }
        var output = SyncOutput()
        if receiptPacer.isWaiting { output.merge(try writeReceipts(receiptPacer.due([], now: now()))) }
        output.merge(try releaseHeld())
        output.merge(try flushAcknowledgements())
        output.merge(try announceGrowth())
        output.merge(try askForMissing())
        output.merge(try releaseDeviceLists())
        return output
    }

    /// Conversations that grew with others' entries, and when each first grew since it was
    /// last announced.
    var grown: [ConversationID: ContinuousClock.Instant] = [:]
    /// How long another author's new entries wait before this node announces them: long
    /// enough for the author's own push to reach every peer it has a session with even on
    /// a busy machine (20 nodes on 2 cores queue for hundreds of milliseconds), so that the
    /// announcement finds them up to date and costs one small message.
    public static let lazyDelay: Duration = .milliseconds(500)
    /// How long a request has to be answered before another holder is asked.
    public static let graftRetry: Duration = .seconds(1)
    /// Whether the last timer left a lack unasked for only because its authors' pushes may
    /// still come: a later timer may ask, so a driver that lets time pass only while
    /// something is pending (the tests' harness) must go on.
    public internal(set) var waitsForPushes = false
    /// How often a peer's requests may have this node send again, per conversation, what
    /// it was sent and does not hold: a peer that asks again and again is sent the same
    /// entries no more often than this.
    public static let resendInterval: Duration = .seconds(5)
    /// What peers' clocks showed this node lacking (§12.5).
    var grafts = Grafts()

    // MARK: Helpers

    struct ChainKey: Hashable {
        let conversation: ConversationID
        let author: NodeID
    }

    func misbehaving(_ reason: String) -> SyncOutput {
        var output = SyncOutput()
        output.misbehavior = reason
        return output
    }
}
