/// What the screen side feeds the chat: keys and size changes. The full-screen terminal
/// produces these; tests and benchmarks can too.
public enum ChatInput: Sendable {
    case keys([Key])
    case resize(width: Int, height: Int)
}
