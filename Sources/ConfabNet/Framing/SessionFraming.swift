import ConfabWire

/// How session messages are delimited inside the box-stream's plaintext: each one is
/// `u32be(length) ‖ SessionCodec bytes` (Protocol.md §10.1). Box-stream frame boundaries
/// carry no meaning, so a message may span frames and a frame may hold several messages.
enum SessionFraming {
    static let lengthPrefixBytes = 4
    /// A length above this is refused before a single byte of the body is buffered.
    static let maxMessageBytes = SessionCodec.maxMessageBytes
}
