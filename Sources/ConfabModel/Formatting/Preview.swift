/// One-line message previews for conversation lists.
public enum Preview {
    /// Collapses whitespace runs (newlines included) to single spaces and cuts the text
    /// to `limit` characters with an ellipsis; "You: " marks my own messages.
    public static func line(_ text: String, mine: Bool, limit: Int = 60) -> String {
        let collapsed = text.split(whereSeparator: { $0.isWhitespace || $0.isNewline }).joined(separator: " ")
        let prefixed = mine ? "You: " + collapsed : collapsed
        guard prefixed.count > limit, limit > 1 else { return prefixed }
        return String(prefixed.prefix(limit - 1)) + "…"
    }
}
