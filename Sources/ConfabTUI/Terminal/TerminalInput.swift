/// What the terminal reports: keys as they are decoded, and new sizes.
public enum TerminalInput: Hashable, Sendable {
    /// The keys decoded from one read (several when typed fast or pasted without
    /// bracketed paste), in order.
    case keys([Key])
    case resize(width: Int, height: Int)
}
