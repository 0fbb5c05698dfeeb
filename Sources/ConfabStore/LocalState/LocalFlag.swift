/// Per-conversation flags that stay on this machine and are never replicated.
public enum LocalFlag: String, Sendable, CaseIterable {
    case archived, pinned, muted, markedUnread
}
