/// What a reaction entry's sealed plaintext holds (Protocol.md §4.5, `ReactionPlaintext`):
/// which message, which emoji, and whether the reactor adds it or takes it back.
public struct ReactionContent: Sendable, Equatable {
    public let target: MessageRef
    public let emoji: String
    public let removed: Bool

    public init(target: MessageRef, emoji: String, removed: Bool) {
        self.target = target
        self.emoji = emoji
        self.removed = removed
    }
}
