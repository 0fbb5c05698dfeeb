import ConfabCrypto
import ConfabModel
import ConfabStore

extension Resolver {
    /// The forms a message can be named in, for errors and help.
    public static let messageForms =
        "an id as \"history --json\" prints it (CONVERSATION/AUTHOR/SEQ), AUTHOR/SEQ (AUTHOR a peer's name, "
        + "a key prefix, or \"me\"), or \"last\" (the newest message)"

    /// A message of `conversation` as a person or script names it (`messageForms`): it must
    /// be held there and not deleted for everyone.
    public func message(_ text: String, in conversation: ConversationID) throws -> MessageRef {
        let query = text.trimmingCharacters(in: .whitespaces)
        let ref: MessageRef
        if query.lowercased() == "last" {
            guard let newest = try store.history(conversation, limit: 20).last(where: { !$0.isDeleted }) else {
                throw ResolveError.unknownMessage(query, why: "the conversation has no message yet")
            }
            ref = newest.ref
        } else {
            var parts = query.split(separator: "/", omittingEmptySubsequences: false).map(String.init)
            guard (2...3).contains(parts.count), let seq = UInt64(parts.removeLast()), seq >= 1 else {
                throw ResolveError.unknownMessage(query, why: "name a message as \(Self.messageForms)")
            }
            if parts.count == 2 {
                let prefix = parts.removeFirst().lowercased()
                guard !prefix.isEmpty, conversation.hex.hasPrefix(prefix) else {
                    throw ResolveError.unknownMessage(
                        query, why: "that id belongs to another conversation, not \(conversation.shortHex)")
                }
            }
            ref = MessageRef(author: try author(parts[0], in: conversation), seq: seq)
        }
        guard let message = try store.message(conversation, author: ref.author, seq: ref.seq) else {
            throw ResolveError.unknownMessage(
                query, why: "no such message in this conversation (\"confab history --json\" shows each message's id)")
        }
        guard !message.isDeleted else {
            throw ResolveError.unknownMessage(query, why: "it was deleted for everyone")
        }
        return ref
    }

    /// An author in a message reference: "me", a full key, or a participant by key prefix
    /// or name.
    private func author(_ text: String, in conversation: ConversationID) throws -> NodeID {
        if ["me", "you"].contains(text.lowercased()) { return store.me }
        if let key = Self.exactKey(text) { return key }
        let participants = try store.conversation(conversation)?.participants.map(\.id) ?? []
        if text.count >= 4, Hex.isHexPrefix(text) {
            let matches = (participants + [store.me]).filter { $0.hex.hasPrefix(text.lowercased()) }
            if matches.count == 1 { return matches[0] }
        }
        return try peer(text)
    }
}

extension Resolver {
    /// A participant's name as shown here, sanitised (it came from the network).
    public func authorName(_ author: NodeID, in conversation: ConversationID) throws -> String {
        let participant = try store.conversation(conversation)?.participants.first { $0.id == author }
        return TextSanitizer.line(participant?.name ?? author.shortHex)
    }
}
