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
    /// Entries per Entries message.
    public var batchSize = 256
    /// Entries per author that may be in flight (sent, not yet acknowledged) to one peer.
    public var window = 1024
    /// Asked about every entry a peer offers before it is stored; nil admits everything.
    public var admission: (any EntryAdmission)?
    var peers: [NodeID: PeerSyncState] = [:]
    private let logger: Logger

    public init(store: ConfabStore, role: NodeRole, logger: Logger = Logger(label: "confab.sync")) {
        self.store = store
        self.role = role
        self.logger = logger
    }

    public var connectedPeers: [NodeID] { Array(peers.keys) }

    /// A session opened: the peer's state starts empty until its Hello arrives.
    public func peerConnected(_ peer: NodeID) {
        peers[peer] = PeerSyncState()
    }

    public func peerDisconnected(_ peer: NodeID) {
        peers[peer] = nil
    }

    public func role(of peer: NodeID) -> NodeRole? { peers[peer]?.role }

    /// Handles one message from a peer.
    public func handle(_ message: SessionMessage, from peer: NodeID) throws -> SyncOutput {
        guard peers[peer] != nil else { return SyncOutput() }
        switch message {
        case .hello(let hello):
            return try handleHello(hello, from: peer)
        case .clocks(let clocks):
            guard peers[peer]?.helloReceived == true else { return misbehaving("clocks before hello") }
            return try handleClocks(clocks, from: peer)
        case .entries(let entries):
            guard peers[peer]?.helloReceived == true else { return misbehaving("entries before hello") }
            return try handleEntries(entries, from: peer)
        case .want(let want):
            guard peers[peer]?.helloReceived == true else { return misbehaving("want before hello") }
            var output = SyncOutput()
            if try shouldShare(want.conversation, with: peer) {
                let entries = try store.entries(
                    in: want.conversation, author: want.author, after: want.after, limit: batchSize)
                output.replies += SessionCodec.entriesMessages(entries, maxCount: batchSize)
            }
            return output
        case .ping, .pong, .bye:
            return SyncOutput()
        }
    }

    /// Entries were written here (authored, or stored from a peer): offer them to every
    /// connected peer that should have them.
    public func localAppended(_ entries: [Entry], except source: NodeID? = nil) throws -> SyncOutput {
        var output = SyncOutput()
        let conversations = Set(entries.map(\.conversationID))
        for peer in peers.keys where peer != source && peers[peer]?.helloReceived == true {
            for conversation in conversations where try shouldShare(conversation, with: peer) {
                output.push(try missingEntries(conversation, for: peer), to: peer)
            }
        }
        return output
    }

    /// Another process wrote to these conversations: offer what peers lack.
    public func offer(_ conversations: Set<ConversationID>) throws -> SyncOutput {
        var output = SyncOutput()
        for peer in peers.keys where peers[peer]?.helloReceived == true {
            for conversation in conversations.sorted() where try shouldShare(conversation, with: peer) {
                output.push(try missingEntries(conversation, for: peer), to: peer)
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
            output.push(try announcement(for: peer), to: peer)
            for conversation in try sharedClocks(with: peer).keys {
                output.push(try missingEntries(conversation, for: peer), to: peer)
            }
        }
        return output
    }

    // MARK: Handlers

    private func handleHello(_ hello: SessionMessage.Hello, from peer: NodeID) throws -> SyncOutput {
        guard peers[peer]?.helloReceived == false else { return misbehaving("second hello") }
        guard hello.version >= 1 else { return misbehaving("protocol version \(hello.version)") }
        peers[peer]?.role = hello.role
        var output = SyncOutput()
        output.replies = try announcement(for: peer)
        return output
    }

    private func handleClocks(_ clocks: [SessionMessage.ConversationClock], from peer: NodeID) throws -> SyncOutput {
        var output = SyncOutput()
        var announce: [SessionMessage.ConversationClock] = []
        for item in clocks {
            let conversation = item.conversation
            peers[peer]?.theirs[conversation, default: VectorClock()].merge(item.clock)
            let mine = try store.clock(of: conversation)
            if mine.isEmpty {
                // An invitation (or a relay's offer): say we hold nothing, so the peer sends
                // the whole conversation, its create entry first.
                if !item.clock.isEmpty, peers[peer]?.announced[conversation] == nil {
                    peers[peer]?.announced[conversation] = VectorClock()
                    announce.append(.init(conversation: conversation, clock: VectorClock()))
                }
                continue
            }
            guard try shouldShare(conversation, with: peer) else { continue }
            if try store.recordPeerClock(item.clock, peer: peer, conversation: conversation) > 0 {
                output.statusChanged.insert(conversation)
            }
            output.replies += try missingEntries(conversation, for: peer)
            // The peer holds what we lack: tell it what we hold, once per change, and it
            // will send the rest.
            if !mine.covers(item.clock), peers[peer]?.announced[conversation] != mine {
                peers[peer]?.announced[conversation] = mine
                announce.append(.init(conversation: conversation, clock: mine))
            }
        }
        if !announce.isEmpty { output.replies += SessionCodec.clocksMessages(announce) }
        return output
    }

    private func handleEntries(_ batch: [[UInt8]], from peer: NodeID) throws -> SyncOutput {
        var output = SyncOutput()
        var touched = Set<ConversationID>()
        let (batch, counted) = try admitted(batch, from: peer, output: &output, touched: &touched)
        let results = try store.append(batch: batch)
        var messagesFromOthers = Set<ConversationID>()
        for (index, (bytes, result)) in zip(batch, results).enumerated() {
            let appended = if case .success(.appended) = result { true } else { false }
            if counted[index], !appended { admission?.notStored(size: bytes.count) }
            switch result {
            case .success(.appended(let entry)):
                // The peer holds what it sent (its clock covers it): never offer it back,
                // whatever later pushes to this peer (a receipt, a resync) carry.
                peers[peer]?.theirs[entry.conversationID, default: VectorClock()].merge(
                    VectorClock([entry.author: entry.seq]))
                output.appended.append(entry)
                touched.insert(entry.conversationID)
                if entry.kind == .message, entry.author != store.me { messagesFromOthers.insert(entry.conversationID) }
                if entry.kind == .receipt, entry.author != store.me {
                    output.statusChanged.insert(entry.conversationID)
                }
            case .success(.duplicate):
                if let conversation = EntryCodec.peekConversationID(bytes) { touched.insert(conversation) }
            case .failure(let rejection) where rejection.isRecoverable:
                // Arrived ahead of what it follows; the acknowledgement below tells the peer
                // where we stand and it sends from there.
                logger.debug("entry from \(peer.shortHex) not yet applicable: \(rejection)")
                if let conversation = EntryCodec.peekConversationID(bytes) { touched.insert(conversation) }
            case .failure(let rejection):
                output.misbehavior = "sent an invalid entry: \(rejection)"
                output.rejectedEntry = rejection.category.rawValue
                return output
            }
        }
        // Acknowledge: our clock of every conversation the batch touched.
        var acks: [SessionMessage.ConversationClock] = []
        for conversation in touched.sorted() {
            let mine = try store.clock(of: conversation)
            peers[peer]?.announced[conversation] = mine
            acks.append(.init(conversation: conversation, clock: mine))
        }
        if !acks.isEmpty { output.replies += SessionCodec.clocksMessages(acks) }
        // New entries go on to every other peer that should have them.
        output.merge(try localAppended(output.appended, except: peer))
        output.pendingReceipts = messagesFromOthers
        return output
    }

    /// Stored messages of others are delivered: one coalesced receipt per conversation,
    /// offered to every connected peer that should have it, the sender included.
    public func acknowledgeDelivery(_ conversations: Set<ConversationID>) throws -> SyncOutput {
        var receipts: [Entry] = []
        for conversation in conversations.sorted() {
            if let receipt = try store.acknowledgeDelivery(conversation) { receipts.append(receipt) }
        }
        var output = try localAppended(receipts)
        output.appended = receipts
        return output
    }

    // MARK: Helpers

    /// The entries of a batch the admission policy takes; the conversations of the others
    /// are acknowledged like the rest, so the sender learns they were not stored.
    private func admitted(
        _ batch: [[UInt8]], from peer: NodeID, output: inout SyncOutput, touched: inout Set<ConversationID>
    ) throws -> (entries: [[UInt8]], counted: [Bool]) {
        guard let admission else { return (batch, Array(repeating: false, count: batch.count)) }
        var kept: [[UInt8]] = []
        var counted: [Bool] = []
        var participants: [ConversationID: [NodeID]] = [:]
        for bytes in batch {
            // Undecodable entries go on to validation, which rejects them as it always does.
            guard let peek = EntryCodec.peek(bytes) else {
                kept.append(bytes)
                counted.append(false)
                continue
            }
            if let named = peek.participants, participants[peek.conversation]?.isEmpty ?? true {
                participants[peek.conversation] = named
            }
            if participants[peek.conversation] == nil {
                participants[peek.conversation] = try store.participants(of: peek.conversation)
            }
            let members = participants[peek.conversation] ?? []
            if let reason = admission.refusal(of: peek, size: bytes.count, participants: members, from: peer) {
                output.refused[reason, default: 0] += 1
                touched.insert(peek.conversation)
            } else {
                kept.append(bytes)
                counted.append(true)
            }
        }
        return (kept, counted)
    }

    /// The Clocks message for a peer: what it should know we hold.
    private func announcement(for peer: NodeID) throws -> [SessionMessage] {
        var items: [SessionMessage.ConversationClock] = []
        for (conversation, clock) in try sharedClocks(with: peer).sorted(by: { $0.key < $1.key }) {
            peers[peer]?.announced[conversation] = clock
            items.append(.init(conversation: conversation, clock: clock))
        }
        // Nothing to share is said too, with one empty Clocks message.
        return SessionCodec.clocksMessages(items)
    }

    private func sharedClocks(with peer: NodeID) throws -> [ConversationID: VectorClock] {
        try store.clocks(sharedWith: peer, everything: peers[peer]?.role == .relay)
    }

    /// Participants get their conversations; relays get everything.
    private func shouldShare(_ conversation: ConversationID, with peer: NodeID) throws -> Bool {
        if peers[peer]?.role == .relay { return true }
        return try store.participants(of: conversation).contains(peer)
    }

    /// Entries of `conversation` the peer neither holds nor has in flight, within the
    /// window, the creator's log first (a receiver needs the create entry before anything).
    private func missingEntries(_ conversation: ConversationID, for peer: NodeID) throws -> [SessionMessage] {
        guard var state = peers[peer] else { return [] }
        let mine = try store.clock(of: conversation)
        let theirs = state.theirs[conversation] ?? VectorClock()
        var sent = (state.sent[conversation] ?? VectorClock()).merging(theirs)
        let creator = try store.creator(of: conversation)
        let authors = mine.sortedEntries.map(\.author).sorted { a, b in
            if a == creator { return b != creator }
            if b == creator { return false }
            return a < b
        }
        var offered: [[UInt8]] = []
        for author in authors {
            while mine[author] > sent[author], sent[author] - theirs[author] < UInt64(window) {
                let room = min(UInt64(batchSize), UInt64(window) - (sent[author] - theirs[author]))
                let entries = try store.sequencedEntries(
                    in: conversation, author: author, after: sent[author], limit: Int(room))
                // Deleted here: a hole the receiver could not apply past, so offer nothing
                // more of this author; others who hold the entries will send them.
                let contiguous = entries.enumerated().prefix { $0.element.seq == sent[author] + UInt64($0.offset) + 1 }
                guard !contiguous.isEmpty else { break }
                offered += contiguous.map(\.element.raw)
                sent[author] += UInt64(contiguous.count)
            }
        }
        state.sent[conversation] = sent
        peers[peer] = state
        return SessionCodec.entriesMessages(offered, maxCount: batchSize)
    }

    private func misbehaving(_ reason: String) -> SyncOutput {
        var output = SyncOutput()
        output.misbehavior = reason
        return output
    }
}
