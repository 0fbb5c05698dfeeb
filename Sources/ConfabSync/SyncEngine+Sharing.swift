import ConfabModel
import ConfabStore
import ConfabWire
import Foundation
import Logging

/// Which conversations a peer should have: members, invitations, trusted relays
/// (Protocol.md §14.1).
extension SyncEngine {
    /// The Clocks message for a peer at the start of a session: what it should know we
    /// hold, asking for everything it holds beyond (§12 step 2).
    /// Rooms and large groups are announced without asking: what this node lacks of one is
    /// asked for from one holder after the graft delay (§12.5), and goes on from here along
    /// the tree, so that a node that joins, or whose sessions come back after a partition,
    /// is not sent the same history by each of its peers (§18.8, §19.6).
    func announcement(_ shared: [ConversationID: VectorClock], to peer: NodeID) -> [SessionMessage] {
        var items: [SessionMessage.ConversationClock] = []
        var tree: [SessionMessage.ConversationClock] = []
        for (conversation, clock) in shared.sorted(by: { $0.key < $1.key }) {
            peers[peer]?.announced[conversation] = clock
            if treeConversations.contains(conversation) {
                tree.append(.init(conversation: conversation, clock: clock))
            } else {
                items.append(.init(conversation: conversation, clock: clock))
            }
        }
        // Nothing to share is said too, with one empty Clocks message.
        var messages = tree.isEmpty || !items.isEmpty ? SessionCodec.clocksMessages(items, request: true) : []
        if !tree.isEmpty { messages += SessionCodec.clocksMessages(tree) }
        return messages
    }

    /// This node's clock of a conversation as `peer` is sent it in an announcement or an
    /// acknowledgement: partial — the authors that moved since the clock last announced to
    /// it, `announced` — when it reads them and that clock is behind this one (§10.2);
    /// whole otherwise (the first of the session, an empty one, or one that went back).
    func clockItem(
        _ conversation: ConversationID, _ mine: VectorClock, to peer: NodeID
    ) -> SessionMessage.ConversationClock {
        guard peers[peer]?.readsPartialClocks == true, !mine.isEmpty,
            let told = peers[peer]?.announced[conversation], mine.covers(told)
        else { return .init(conversation: conversation, clock: mine) }
        return .init(conversation: conversation, clock: mine.moved(since: told), partial: true)
    }

    func sharedClocks(with peer: NodeID) throws -> [ConversationID: VectorClock] {
        var clocks = try store.clocks(sharedWith: peer, everything: peers[peer]?.isTrustedRelay == true)
        for room in heldRooms { clocks[room] = nil }
        if peers[peer]?.readsLargeGroups != true {
            for group in heldLargeGroups { clocks[group] = nil }
        }
        for room in heldRooms.intersection(peers[peer]?.rooms ?? []) { clocks[room] = try store.clock(of: room) }
        // A node of an earlier version refuses a personal create and a device's create as
        // malformed, and is nobody's device: it is offered neither, relays included (§20.15,
        // §20.11).
        if peers[peer]?.readsDeviceLists != true {
            for conversation in try store.conversationsNeedingDeviceLists() { clocks[conversation] = nil }
        }
        return clocks
    }

    /// Participants get their conversations, former members theirs up to their removal;
    /// trusted relays get everything (Protocol.md §12 step 3).
    func shouldShare(_ conversation: ConversationID, with peer: NodeID) throws -> Bool {
        try sharing(conversation, with: peer) != .none
    }

    func sharing(_ conversation: ConversationID, with peer: NodeID) throws -> Sharing {
        if heldRooms.contains(conversation) {
            return peers[peer]?.rooms.contains(conversation) == true ? .everything : .none
        }
        // A node that does not read large groups would take one for a group whose clocks
        // and keys it cannot read: it is offered nothing of one, relays included (§19).
        if heldLargeGroups.contains(conversation), peers[peer]?.readsLargeGroups != true { return .none }
        if peers[peer]?.readsDeviceLists != true, try store.needsDeviceLists(conversation) { return .none }
        if peers[peer]?.isTrustedRelay == true { return .everything }
        return try store.sharing(conversation, with: peer)
    }

    /// Conversations any connected peer invited this node to: entries kept aside, or held
    /// for their author's rate, may be taken for them as for the batch that brought them.
    var invitations: Set<ConversationID> {
        peers.values.reduce(into: Set<ConversationID>()) { $0.formUnion($1.invited.keys) }
    }

    /// Whether the peer may fetch the files of `conversation` (Protocol.md §17.3): its
    /// members now, and trusted relays. A former member is served none: the exchange names
    /// files, not positions in the log, so it could not be held to what came before its
    /// removal.
    public func sharesFiles(of conversation: ConversationID, with peer: NodeID) throws -> Bool {
        if heldRooms.contains(conversation) { return peers[peer]?.rooms.contains(conversation) == true }
        if heldLargeGroups.contains(conversation), peers[peer]?.readsLargeGroups != true { return false }
        if peers[peer]?.readsDeviceLists != true, try store.needsDeviceLists(conversation) { return false }
        if peers[peer]?.isTrustedRelay == true { return true }
        return try store.participants(of: conversation).contains(peer)
    }
}
