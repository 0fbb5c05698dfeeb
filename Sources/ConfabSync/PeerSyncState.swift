import ConfabModel
import ConfabWire

/// What the engine knows about one connected peer, for the life of one session.
struct PeerSyncState {
    var role: NodeRole?
    /// Whether this node treats the peer as a relay: it said so in its Hello *and* this
    /// node trusts it to be one (Protocol.md §14.1). A claim alone gets nothing.
    var isTrustedRelay = false
    /// Whether its Hello lists the feature "requests": then only its `Clocks` with
    /// `request` set ask for other authors' entries; a peer without it asks with every
    /// Clocks (Protocol.md §12.5).
    var tellsRequests = false
    /// Whether its Hello lists the feature "partial-clocks": then the clocks it is sent
    /// after the first of each conversation name only the authors that moved (§10.2).
    var readsPartialClocks = false
    /// Whether its Hello lists the feature "large-groups": only then is it offered, sent or
    /// announced anything of a large group, whatever its membership (Protocol.md §19).
    var readsLargeGroups = false
    /// Whether its Hello lists the feature "device-lists": only then is it sent `DeviceList`
    /// messages (Protocol.md §20.9).
    var readsDeviceLists = false
    /// Per person, the head (the hash of the last entry) of the list the peer holds as far as
    /// this session shows: sent to it, or received from it. A list goes to it once per head.
    var deviceListHeads: [NodeID: EntryHash] = [:]
    /// Persons whose lists wait for `sendingDeviceLists` to let them go, first come first.
    var pendingDeviceLists: [NodeID] = []
    var sendingDeviceLists = DeviceListPace(limit: SyncEngine.deviceListsSentPerMinute)
    var receivingDeviceLists = DeviceListPace(limit: SyncEngine.deviceListsReceivedPerMinute)
    /// Whether lists it sent over its pace were logged: once a session.
    var deviceListFloodLogged = false
    /// Valid lists it sent of persons not met here yet, by person: most often the people of a
    /// conversation it is inviting this node to, whose entries come after the lists. Taken
    /// when the person is met, forgotten with the session; at most `maxUnmetDeviceLists`
    /// lists of `maxUnmetDeviceListBytes` in all: what a minute of lists at the receiving
    /// pace brings of an invitation to a group whose people have short lists.
    var unmetDeviceLists: [NodeID: [[UInt8]]] = [:]
    static let maxUnmetDeviceLists = 64
    static let maxUnmetDeviceListBytes = 4 << 20
    /// Conversations it asked for with a request, and this node's clock when it asked: it
    /// is sent every author's entries up to that clock, as the window lets them go, until
    /// its clock covers it.
    var requested: [ConversationID: VectorClock] = [:]
    /// The highest clock the peer announced per conversation it shares with this node:
    /// what it says it holds. Conversations it does not share are not remembered.
    var theirs: [ConversationID: VectorClock] = [:]
    /// Clocks of conversations it invited this node to (announced, not held here yet):
    /// they count only once the conversation is held and shared, and at most
    /// `maxInvitations` are kept, so made-up conversations cost nothing.
    var invited: [ConversationID: VectorClock] = [:]
    static let maxInvitations = 1024
    /// What was sent to it this session, acknowledged or not: the flow-control window is
    /// the distance between this and `theirs`.
    var sent: [ConversationID: VectorClock] = [:]
    /// The highest seq of my own log actually written to it this session, per
    /// conversation: its clock acknowledges my entries only up to this (Protocol.md §9).
    var written: [ConversationID: UInt64] = [:]
    /// The last clock announced to it per conversation, so the same clock is not announced
    /// twice in a row (two nodes re-announcing to each other would never stop).
    var announced: [ConversationID: VectorClock] = [:]
    /// Conversations not held here (or not shared with the peer) it was answered about:
    /// each once, and at most `maxAnswered` in a session.
    var answered: Set<ConversationID> = []
    static let maxAnswered = 4096
    /// Bytes of entries sent to it per conversation (pushed or in answer to Want) since it
    /// last acknowledged that conversation with a Clocks naming it; their sum is held
    /// within the engine's `byteWindow`.
    var unacknowledged: [ConversationID: Int] = [:]
    var unacknowledgedBytes = 0
    /// Conversations whose entries waited for room in the byte window: offered again when
    /// an acknowledgement makes room.
    var starved: Set<ConversationID> = []
    /// When entries of a conversation were last sent to it: what was sent since less than
    /// the engine's `resendInterval` is on its way, or waiting there for what it depends on.
    var lastSent: [ConversationID: ContinuousClock.Instant] = [:]
    /// Per conversation and author, the highest seq sent in answer to a Want: later Wants
    /// are answered only beyond it, so asking again gets nothing twice (Protocol.md §12.2).
    var served: [ConversationID: VectorClock] = [:]
    /// When the peer last pushed entries of its own that were stored here: while it does,
    /// what this node lacks of its log is on its way (§12.5).
    var lastOwnPush: ContinuousClock.Instant?
    /// The rooms it said it has joined, as ids (Protocol.md §18.4): the rooms held here
    /// among them are shared with it. Its word is enough: anyone on the network may read a
    /// room, so a peer that lies gets only what it could have joined.
    var rooms: Set<ConversationID> = []
    /// The conversations of the eager tree (rooms, large groups) in which this link is
    /// eager, and since when: what the peer stored since then it passed on here at once
    /// (Protocol.md §18.8). A request either way made it so. Every other link is lazy:
    /// others' entries are only announced over it. So a link is lazy wherever a
    /// conversation becomes shared over a session, however it does (the peer names a room,
    /// this node joins one, the peer is added to a large group), without anyone marking it.
    private(set) var eagerSince: [ConversationID: ContinuousClock.Instant] = [:]
    /// When this node last asked the peer for each conversation with a request: entries
    /// already held that come back soon after are the answer racing another copy, not a
    /// push to prune.
    var askedAt: [ConversationID: ContinuousClock.Instant] = [:]
    /// Conversations of the tree whose entries it passed on and this node acknowledges at
    /// its next timer, in one Clocks for all of them (§18.8).
    var pendingAcks: Set<ConversationID> = []

    var helloReceived: Bool { role != nil }
}

extension PeerSyncState {
    /// Sets the link eager in a conversation of the tree (keeping since when, if it was) or
    /// lazy (§18.8).
    mutating func setLink(_ conversation: ConversationID, eager: Bool, at now: ContinuousClock.Instant) {
        if eager {
            if eagerSince[conversation] == nil { eagerSince[conversation] = now }
        } else {
            eagerSince[conversation] = nil
        }
    }

    /// Whether the link is eager in `conversation`; only the tree's conversations ever are.
    func isEager(_ conversation: ConversationID) -> Bool { eagerSince[conversation] != nil }
}

extension PeerSyncState {
    /// Whether it still waits for other authors' entries of the conversation it asked for;
    /// a request its clock has caught up with is forgotten.
    mutating func stillWants(_ conversation: ConversationID) -> Bool {
        guard let asked = requested[conversation] else { return false }
        if (theirs[conversation] ?? VectorClock()).covers(asked) {
            requested[conversation] = nil
            return false
        }
        return true
    }
}

extension PeerSyncState {
    /// A request whose clock lacks entries counted as sent: they are counted as unsent
    /// again, so the answer offers them, unless entries of the conversation were sent less
    /// than `interval` ago (they may be on their way, or wait there for what they depend
    /// on). Resent entries count as sent then too, so this happens once per `interval`.
    mutating func resend(
        _ conversation: ConversationID, lacking clock: VectorClock, at now: ContinuousClock.Instant,
        interval: Duration
    ) {
        guard let counted = sent[conversation], !clock.covers(counted) else { return }
        if let last = lastSent[conversation], now - last < interval { return }
        // `missingEntries` starts from what the peer was seen to hold.
        sent[conversation] = nil
    }

    /// What the byte window still lets through.
    func room(within window: Int) -> Int { window - unacknowledgedBytes }

    mutating func noteSent(_ bytes: Int, in conversation: ConversationID) {
        guard bytes > 0 else { return }
        unacknowledged[conversation, default: 0] += bytes
        unacknowledgedBytes += bytes
    }

    /// The peer named the conversation in a Clocks: it has handled every Entries message it
    /// acknowledges that way (an honest peer acknowledges each one, stored or not, §12 step
    /// 4), so none of that conversation's bytes count as in flight any more.
    mutating func acknowledge(_ conversation: ConversationID) {
        unacknowledgedBytes -= unacknowledged.removeValue(forKey: conversation) ?? 0
    }
}
