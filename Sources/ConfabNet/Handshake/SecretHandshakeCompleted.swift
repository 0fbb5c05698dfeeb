import ConfabModel

/// Inbound user event fired by `SecretHandshakeHandler` once the peer has proven its key
/// and the box-stream handlers are in place. Handlers further along wait for it before
/// they start: nothing may be written on a connection before the handshake is over.
struct SecretHandshakeCompleted: Sendable, Equatable {
    /// The peer's long-term key, as proven during the handshake.
    let remote: NodeID
    /// `sha256(ab)` of this connection (Protocol.md §3.5), for what is derived from it.
    var transcriptHash: [UInt8] = []
}
