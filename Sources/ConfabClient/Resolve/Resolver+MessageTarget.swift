import ConfabCrypto
import ConfabModel
import ConfabStore

extension Resolver {
    /// Where `confab send TARGET` writes: a conversation (by id prefix, a peer's most recent
    /// thread, or a title), else a known peer with no thread yet, whose first message starts
    /// one.
    /// When the text names neither, the peer error (listing known peers) is the helpful one.
    public func messageTarget(_ text: String) throws -> MessageTarget {
        try namedMessageTarget(text).target
    }

    /// `messageTarget`, and who it reaches for people to read (`displayName(of:)`), found in
    /// one pass: the peer the text names is looked up once, whether it has a thread or not.
    public func namedMessageTarget(_ text: String) throws -> (target: MessageTarget, name: String) {
        let query = text.trimmingCharacters(in: .whitespaces).lowercased()
        if let room = try room(query) { return (.conversation(room), try conversationName(room)) }
        if query.count >= 4, Hex.isHexPrefix(query) {
            let matches = try store.conversationIDs().filter { $0.hex.hasPrefix(query) }
            if matches.count == 1 { return (.conversation(matches[0]), try conversationName(matches[0])) }
            // A prefix of several conversations names none of them: the text may name a
            // peer, whose message then starts a thread.
            if matches.count > 1 {
                let peer = try self.peer(text)
                return (.newConversation(with: peer), try peerName(peer))
            }
        }
        let peer: NodeID
        do {
            peer = try self.peer(text)
        } catch let error as ResolveError where error.isUnknown {
            if let titled = try conversation(titled: query) {
                return (.conversation(titled), try conversationName(titled))
            }
            if let room = try joinedRoom(query) { return (.conversation(room), try conversationName(room)) }
            // Neither: the peer error, listing known peers, is the helpful one.
            throw error
        }
        if let conversation = try store.latestConversation(with: peer) {
            // A thread deleted here is written in again (its id stays the pair's), and has
            // no name of its own until then: the peer's is the one the person asked for.
            let name = try store.conversationName(conversation).map(TextSanitizer.line) ?? peerName(peer)
            return (.conversation(conversation), name)
        }
        return (.newConversation(with: peer), try peerName(peer))
    }

    /// Who a target reaches, for people to read: a title or a peer's name, sanitised (it
    /// came from the network).
    public func displayName(of target: MessageTarget) throws -> String {
        switch target {
        case .conversation(let id): try conversationName(id)
        case .newConversation(let peer): try peerName(peer)
        }
    }

    private func conversationName(_ id: ConversationID) throws -> String {
        TextSanitizer.line(try store.conversationName(id) ?? id.shortHex)
    }

    private func peerName(_ peer: NodeID) throws -> String {
        TextSanitizer.line(try store.peer(peer)?.name ?? peer.shortHex)
    }
}
