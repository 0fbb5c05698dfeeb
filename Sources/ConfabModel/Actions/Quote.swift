/// The message a reply answers, as this node holds it now: the latest text of an edited
/// one, "message deleted" for one its author deleted, nothing yet for one not held (a
/// reference that never resolves — to a message that does not exist — stays that way and
/// changes nothing else).
public struct Quote: Sendable, Equatable, Codable {
    public let ref: MessageRef
    public let authorName: String
    /// nil when deleted, not held, or not decryptable.
    public let text: String?
    public let isDeleted: Bool
    /// Whether the message is held here (a message of this conversation at `ref`).
    public let isHeld: Bool

    public init(ref: MessageRef, authorName: String, text: String?, isDeleted: Bool, isHeld: Bool) {
        self.ref = ref
        self.authorName = authorName
        self.text = text
        self.isDeleted = isDeleted
        self.isHeld = isHeld
    }

    /// What a quote line shows of the original after its author's name.
    public var summary: String {
        if isDeleted { return ChatMessage.deletedText }
        guard isHeld else { return "a message not held here" }
        return text ?? "(message could not be decrypted)"
    }

    /// One line: the author, then the text collapsed and cut to `limit` characters.
    public func line(limit: Int = 60) -> String {
        Preview.line(TextSanitizer.line(authorName) + ": " + TextSanitizer.line(summary), mine: false, limit: limit)
    }

    /// The quote as it reads now that `message` (the original) changed or arrived.
    public func updated(with message: ChatMessage) -> Quote {
        guard message.ref == ref else { return self }
        return Quote(
            ref: ref, authorName: message.authorName, text: message.isDeleted ? nil : message.text,
            isDeleted: message.isDeleted, isHeld: true)
    }
}

extension ChatMessage {
    /// "Bob: the text" on one line, as a quote of this message reads.
    public var quoteLine: String {
        let text = isDeleted ? ChatMessage.deletedText : self.text ?? "(message could not be decrypted)"
        return TextSanitizer.line(authorName) + ": " + TextSanitizer.line(text)
    }
}
