import ConfabClient
import ConfabModel
import ConfabStore
import ConfabWire
import NIOCore

/// "Is typing…" (Protocol.md §10.2): said only to the other participants connected now, on
/// their own sessions, never stored and never passed on; believed only from a participant,
/// about a conversation this node holds, within a rate, for a few seconds; neither said nor
/// shown in a conversation of more than 32 (`Limits.maxParticipantsWithReceipts`).
extension Node {
    /// Tells the other participants connected now that this node's person is typing in
    /// `conversation` (or stopped), paced by `TypingPacer`. Nothing is sent while the
    /// setting is off (`ConfabStore.typingIndicators`), or by a relay.
    public func typing(_ active: Bool, in conversation: ConversationID) throws {
        let participants = try local.store.participants(of: conversation)
        guard participants.contains(me) else { throw StoreError.unknownConversation(conversation.hex) }
        guard options.role == .person, participants.count <= Limits.maxParticipantsWithReceipts,
            !largeGroups.contains(conversation),
            try local.store.typingIndicators(), typingPacer.shouldSignal(active, in: conversation)
        else { return }
        let message = SessionMessage.typing(.init(conversation: conversation, active: active))
        for peer in participants where peer != me && engine.hasGreeted(peer) {
            sessions.session(with: peer)?.send(message)
        }
    }

    /// A peer's typing message. A lie (a conversation it is not in, or this node is not
    /// in, one not held here) changes nothing, and neither does one over its rate; none of
    /// them is an error, since typing is worth too little to end a session over.
    func receiveTyping(_ typing: SessionMessage.Typing, from peer: NodeID) {
        let now = NIODeadline.now()
        guard options.role == .person, engine.hasGreeted(peer) else { return }
        if case .dropped(let first) = typingTable.admit(peer, now: now) {
            if first { logger.info("typing messages from \(peer.shortHex) over the rate: dropping them") }
            return
        }
        guard (try? local.store.typingIndicators()) == true,
            let participants = try? local.store.participants(of: typing.conversation),
            participants.contains(peer), participants.contains(me),
            participants.count <= Limits.maxParticipantsWithReceipts,
            !largeGroups.contains(typing.conversation)
        else { return }
        let key = TypingTable.Key(conversation: typing.conversation, peer: peer)
        if typing.active {
            let (shown, displaced) = typingTable.start(key, now: now)
            for old in displaced { emitTyping(old, active: false) }
            if shown { emitTyping(key, active: true) }
        } else if typingTable.stop(key) {
            emitTyping(key, active: false)
        }
    }

    /// A message from someone typing ends their indication there.
    func stopTyping(_ appended: [Entry]) {
        guard !typingTable.isEmpty else { return }
        for entry in appended where entry.kind == .message {
            let key = TypingTable.Key(conversation: entry.conversationID, peer: entry.author)
            if typingTable.stop(key) { emitTyping(key, active: false) }
        }
    }

    /// Indications not refreshed in time end; all of them once the setting is off.
    func expireTyping() {
        guard !typingTable.isEmpty else { return }
        let ended =
            (try? local.store.typingIndicators()) == false
            ? typingTable.removeAll() : typingTable.expire(now: .now())
        for key in ended { emitTyping(key, active: false) }
    }

    func emitTyping(_ key: TypingTable.Key, active: Bool) {
        let name = ((try? local.store.peer(key.peer)) ?? nil)?.name ?? key.peer.shortHex
        hub.emit(.typing(TypingEvent(conversation: key.conversation, peer: key.peer, name: name, active: active)))
    }
}
