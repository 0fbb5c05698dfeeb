/// How a link connection failed below the dialogue.
public enum LinkTransportError: Error, Equatable, CustomStringConvertible {
    /// The other side closed before the handshake completed: with a code it does not
    /// accept, that is all a client ever sees (Protocol.md §3.10).
    case closedDuringHandshake
    case oversized(Int, limit: Int)
    case closed

    public var description: String {
        switch self {
        case .closedDuringHandshake: return "connection closed during the handshake"
        case .oversized(let length, let limit): return "a link message of \(length) bytes (limit \(limit))"
        case .closed: return "the connection closed"
        }
    }
}
