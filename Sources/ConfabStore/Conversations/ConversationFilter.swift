/// Which conversations a list shows.
public enum ConversationFilter: Sendable {
    /// Everything not archived (the inbox).
    case inbox
    case archived
    case all
}
