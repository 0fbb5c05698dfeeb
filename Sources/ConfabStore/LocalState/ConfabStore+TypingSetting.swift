import ConfabModel

/// Whether this person shares "is typing…" with others, and sees theirs (Protocol.md
/// §10.2). On by default; it stays on this machine, like the conversation flags, and a
/// running node reads it each time it would send or show one, so a change from any
/// process (`confab typing off`, Ctrl+T in the chat) counts at once.
extension ConfabStore {
    private static let typingKey = "typingIndicators"

    public func typingIndicators() throws -> Bool {
        try metaValue(Self.typingKey) != "off"
    }

    public func setTypingIndicators(_ on: Bool) throws {
        try setMetaValue(Self.typingKey, on ? "on" : "off")
    }
}
