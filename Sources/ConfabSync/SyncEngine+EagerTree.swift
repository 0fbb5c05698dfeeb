import ConfabModel
import ConfabStore
import ConfabWire

/// Rooms and large groups spread along an eager tree (Protocol.md §18.8, §19.6), after
/// Plumtree: their members keep sessions with a few of the others, not with all, so an
/// author's own push reaches a handful and the lazy path alone takes a timer round per hop.
/// Links start lazy; a request over one makes it eager, so the tree grows where entries
/// were missing and mends where a node left. Each node passes the entries of others it
/// stores on at once over its eager links, and a link that brings what the node already
/// held is pruned to lazy on both sides. Which peers a conversation of the tree is shared
/// with is `sharing`'s rule (a room's by its `Rooms`, a large group's by its members): the
/// tree only chooses, among them, who is passed what at once.
extension SyncEngine {
    /// Others' entries of the tree's conversations just stored here go on to every peer it
    /// is shared with whose link is eager, the one that sent them excepted: only these
    /// entries, not what the peer may lack before them (it may hold that from another
    /// link; if not, it asks).
    func relay(_ appended: [Entry], from sender: NodeID?) throws -> SyncOutput {
        var floors: [ConversationID: [NodeID: UInt64]] = [:]
        for entry in appended where entry.author != store.me && treeConversations.contains(entry.conversationID) {
            let below = entry.seq - 1
            floors[entry.conversationID, default: [:]][entry.author] = min(
                floors[entry.conversationID]?[entry.author] ?? below, below)
        }
        var output = SyncOutput()
        for (room, floor) in floors.sorted(by: { $0.key < $1.key }) {
            // A link stays eager after the peer left the room or the group: asked each time.
            let targets = try peers.keys.sorted().compactMap { peer -> (NodeID, Sharing)? in
                guard peer != sender, let state = peers[peer], state.helloReceived, state.isEager(room) else {
                    return nil
                }
                let sharing = try sharing(room, with: peer)
                return sharing == .none ? nil : (peer, sharing)
            }
            guard !targets.isEmpty else { continue }
            // Read once for every peer they go to.
            var runs: [NodeID: [SequencedEntry]] = [:]
            for (author, below) in floor {
                runs[author] = try store.sequencedEntries(in: room, author: author, after: below, limit: batchSize)
            }
            let here = try HeldHere(room, in: store)
            for (peer, sharing) in targets {
                // A peer holds its own log.
                let theirs = floor.filter { $0.key != peer }
                guard !theirs.isEmpty else { continue }
                output.push(
                    try missingEntries(
                        room, for: peer, held: here, sharing: sharing, relaying: theirs, relayed: runs),
                    to: peer)
            }
        }
        return output
    }

    /// Entries of the tree's conversations already held came from `peer` without this node
    /// asking it: the link is pruned to lazy in those conversations, here and (by a
    /// `Prune`) there.
    func pruneIfCopies(
        _ batch: [[UInt8]], _ results: [Result<AppendOutcome, AppendRejection>], from peer: NodeID
    ) -> [SessionMessage] {
        guard let state = peers[peer], !treeConversations.isEmpty else { return [] }
        var rooms = Set<ConversationID>()
        for (bytes, result) in zip(batch, results) {
            guard case .success(.duplicate) = result, let room = EntryCodec.peekConversationID(bytes),
                treeConversations.contains(room), state.isEager(room)
            else { continue }
            // An answer to this node's own request may race the copy another link pushed:
            // asking is what brought it, so the link stays as it is.
            if let asked = state.askedAt[room], now() - asked < Self.graftRetry { continue }
            rooms.insert(room)
        }
        guard !rooms.isEmpty else { return [] }
        for room in rooms { peers[peer]?.setLink(room, eager: false, at: now()) }
        return [.prune(rooms.sorted())]
    }

    /// A conversation of the tree became shared with a peer (it named a room, this node
    /// joined one, or a large group became held here): the link starts lazy on both sides,
    /// and becomes eager when either asks the other for what it lacks. So the tree grows where entries are missing, from each node towards
    /// one that held them first, rather than by flooding every link and pruning: on a busy
    /// machine prunes come seconds late, and 100 real nodes on 2 cores got each entry 6
    /// to 8 times before they did.
    func startLink(_ room: ConversationID, with peer: NodeID) {
        peers[peer]?.setLink(room, eager: false, at: now())
    }

    /// Whether what this node lacks of a conversation of the tree is most likely on its way
    /// along it: a peer that holds it has had an eager link with this node since before the
    /// lack began, so it passed it on when it stored it, and the lack began less than
    /// `authorPushWait` ago. On a busy machine a request sooner brings a copy of what is
    /// queued. A peer whose link is newer (a session that opened after a partition) holds
    /// what it stored before: that is asked for at once (`Grafts.Lack.atLinkStart`).
    func treeWillBring(
        _ room: ConversationID, holders: [(peer: NodeID, clock: VectorClock)],
        lackingSince since: ContinuousClock.Instant,
        at now: ContinuousClock.Instant
    ) -> Bool {
        guard treeConversations.contains(room), now - since < authorPushWait else { return false }
        return holders.contains { peers[$0.peer]?.eagerSince[room].map { $0 < since } == true }
    }

    /// Of the conversations an `Entries` message touched, those acknowledged at once: all
    /// but those of the tree of which it brought only others' entries, passed on along it.
    /// Those wait for the timer, one Clocks per peer for every such one since: on a tree every
    /// entry is one message, and an acknowledgement per message would double the count.
    /// What the author pushed is acknowledged at once: that moves its message to "sent".
    func acknowledgeNow(
        _ touched: Set<ConversationID>, batch appended: [Entry], from peer: NodeID
    ) -> Set<ConversationID> {
        let fromAuthor = Set(appended.filter { $0.author == peer }.map(\.conversationID))
        let later = touched.filter { treeConversations.contains($0) && !fromAuthor.contains($0) }
        guard !later.isEmpty else { return touched }
        peers[peer]?.pendingAcks.formUnion(later)
        return touched.subtracting(later)
    }

    /// The acknowledgements that waited for the timer.
    func flushAcknowledgements() throws -> SyncOutput {
        var output = SyncOutput()
        for peer in peers.keys.sorted() {
            guard let pending = peers[peer]?.pendingAcks, !pending.isEmpty else { continue }
            peers[peer]?.pendingAcks = []
            output.push(try acknowledgement(pending, to: peer), to: peer)
        }
        return output
    }

    var hasPendingAcks: Bool { peers.values.contains { !$0.pendingAcks.isEmpty } }

    /// The peer pruned its link with this node in these rooms or large groups: it is told
    /// of their new entries by announcements only. Conversations not of the tree here are
    /// not remembered.
    func handlePrune(_ conversations: [ConversationID], from peer: NodeID) -> SyncOutput {
        guard peers[peer]?.helloReceived == true else { return misbehaving("prune before hello") }
        for tree in treeConversations.intersection(conversations) {
            peers[peer]?.setLink(tree, eager: false, at: now())
        }
        return SyncOutput()
    }

    /// A request over a link, either way, makes it eager in the conversations of the tree
    /// it names (Plumtree's graft): the node that asked had no eager link that brought what
    /// it lacked.
    func graft(_ conversations: some Sequence<ConversationID>, with peer: NodeID, asking: Bool) {
        for conversation in conversations where treeConversations.contains(conversation) {
            peers[peer]?.setLink(conversation, eager: true, at: now())
            if asking { peers[peer]?.askedAt[conversation] = now() }
        }
    }

    /// Whether the link with `peer` is lazy in `conversation`: one of the tree's in which
    /// no request made it eager. Over such a link neither side's own entries nor others'
    /// are pushed, only announced (§18.8).
    func isLazy(_ conversation: ConversationID, with peer: NodeID) -> Bool {
        treeConversations.contains(conversation) && peers[peer]?.isEager(conversation) != true
    }
}
