/// What became of one connection to a link offer.
public enum LinkAttempt: Sendable {
    case connected(LinkConnection)
    /// The handshake failed on a check (Protocol.md §3.3–§3.6): a wrong code, a replayed or
    /// altered message. These count against the offer's tries.
    case refused(String)
    /// Closed or timed out with no wrong message: counts for nothing.
    case abandoned(String)
}
