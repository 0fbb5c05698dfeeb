import ConfabModel
import ConfabStore
import ConfabWire

/// What the node must do after the engine handled an input.
public struct SyncOutput: Sendable {
    /// Messages for the peer whose message was handled (or, for local changes, nobody).
    public var replies: [SessionMessage] = []
    /// Messages for other connected peers (live push).
    public var pushes: [NodeID: [SessionMessage]] = [:]
    /// Entries newly stored, received or written here, in the order they were stored.
    public var appended: [Entry] = []
    /// Device lists stored now (each person's, after the entries it took), and the seqs of
    /// its entries that were new here: the system lines they wrote are news.
    public var deviceListsTaken: [(person: NodeID, listSeqs: ClosedRange<UInt64>)] = []
    /// Conversations in which some of my messages changed status (sent, delivered, read).
    public var statusChanged: Set<ConversationID> = []
    /// Set when the peer sent something no honest node sends: the session must close.
    public var misbehavior: String?
    /// Entries the admission policy refused, by reason: not stored, not acknowledged.
    public var refused: [EntryRefusal: Int] = [:]
    /// Set with `misbehavior` when an entry was invalid: its rejection category (§7).
    public var rejectedEntry: String?
    /// Entries not stored for a reason that depends on what this node holds (a fork, a
    /// forked author, a conversation it is not in), by category: logged and counted, but
    /// the sender may be honest, so the session goes on.
    public var notStored: [String: Int] = [:]
    /// Fork proofs this node learned while handling the input (Protocol.md §7.1).
    public var forkProofs: [ForkProof] = []
    /// Entries that came in an `Entries` message, how many of them were already held,
    /// and their bytes: what dissemination costs (a node should get each entry about once).
    public var entriesReceived = 0
    public var duplicatesReceived = 0
    public var entryBytesReceived = 0
    /// New entries of authors over their rate that were kept aside (not stored, not
    /// acknowledged yet), and those dropped because too many waited (asked for again).
    public var heldForRate = 0
    public var droppedForRate = 0
    /// Device lists the peer sent beyond its pace, dropped unread (Protocol.md §20.9).
    public var droppedDeviceLists = 0

    /// Whether nothing was sent, stored or changed: what a timer that found nothing to do
    /// returns.
    public var isEmpty: Bool {
        replies.isEmpty && pushes.isEmpty && appended.isEmpty && statusChanged.isEmpty && misbehavior == nil
            && entriesReceived == 0 && heldForRate == 0 && droppedForRate == 0 && droppedDeviceLists == 0
    }

    public init() {}

    mutating func push(_ messages: [SessionMessage], to peer: NodeID) {
        guard !messages.isEmpty else { return }
        pushes[peer, default: []] += messages
    }

    /// Both outputs as one: what a driver that asked the engine twice for one input sends.
    public mutating func merge(_ other: SyncOutput) {
        replies += other.replies
        for (peer, messages) in other.pushes { push(messages, to: peer) }
        appended += other.appended
        statusChanged.formUnion(other.statusChanged)
        refused.merge(other.refused, uniquingKeysWith: +)
        notStored.merge(other.notStored, uniquingKeysWith: +)
        forkProofs += other.forkProofs
        entriesReceived += other.entriesReceived
        duplicatesReceived += other.duplicatesReceived
        entryBytesReceived += other.entryBytesReceived
        heldForRate += other.heldForRate
        droppedForRate += other.droppedForRate
        droppedDeviceLists += other.droppedDeviceLists
        if misbehavior == nil {
            misbehavior = other.misbehavior
            rejectedEntry = other.rejectedEntry
        }
    }
}
