/// Inbound user event fired by `BoxStreamDecryptHandler` when the peer's goodbye arrives:
/// its direction ended in an orderly way and nothing it sent was lost.
struct BoxStreamGoodbyeReceived: Sendable, Equatable {}
