import ConfabClient
import ConfabWire

extension Node {
    /// My person's name changed. A name travels only in a session's first message, its
    /// `Hello` (Protocol.md §12 step 1), so each session ends with `Bye("renamed")` and is
    /// dialled again once closed: peers hear the new name within a round trip.
    public func renamed() {
        for session in sessions.sessions {
            redialOnClose.insert(session.remote)
            session.close(reason: .renamed)
        }
    }
}
