/// What a message's sealed plaintext holds (Protocol.md §4.5, `MessagePlaintext`): the text,
/// the message it replies to, and who it mentions. An edit's plaintext has the same shape;
/// only its text and mentions count.
public struct MessageContent: Sendable, Equatable {
    public var text: String
    public var replyTo: MessageRef?
    public var mentions: [Mention]

    public init(text: String, replyTo: MessageRef? = nil, mentions: [Mention] = []) {
        self.text = text
        self.replyTo = replyTo
        self.mentions = mentions
    }
}

/// One `@name` in a message's text: the mentioned person's key, and the UTF-8 byte range of
/// the text that names them (the `@` included). Names are claims and may collide, so the
/// key is what counts: every reader draws the range as `@` and its own name for that key.
public struct Mention: Sendable, Hashable {
    public let person: NodeID
    /// Offset of the range's first byte in the text's UTF-8.
    public let start: Int
    /// Length of the range in UTF-8 bytes.
    public let length: Int

    public init(person: NodeID, start: Int, length: Int) {
        self.person = person
        self.start = start
        self.length = length
    }

    public var end: Int { start + length }
}
