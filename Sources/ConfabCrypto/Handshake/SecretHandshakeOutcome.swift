/// What a completed handshake yields: who the peer proved to be, and the keys and starting
/// nonces for the two box-stream directions of the connection.
public struct SecretHandshakeOutcome: Sendable {
    /// The peer's long-term Ed25519 key, proven by its signature during the handshake.
    public let remotePublicKey: SigningPublicKey
    /// Key for the box-stream this side sends.
    public let encryptionKey: SecureBytes
    /// Starting nonce (24 bytes) for the box-stream this side sends.
    public let encryptionNonce: [UInt8]
    /// Key for the box-stream this side receives.
    public let decryptionKey: SecureBytes
    /// Starting nonce (24 bytes) for the box-stream this side receives.
    public let decryptionNonce: [UInt8]
    /// `H = sha256(ab)` (Protocol.md §3.5): the same on both sides of one connection and on
    /// no other, so what is derived from it (the link words of §20.10) tells two connections apart.
    public let transcriptHash: [UInt8]

    public init(
        remotePublicKey: SigningPublicKey,
        encryptionKey: SecureBytes, encryptionNonce: [UInt8],
        decryptionKey: SecureBytes, decryptionNonce: [UInt8], transcriptHash: [UInt8] = []
    ) {
        self.remotePublicKey = remotePublicKey
        self.encryptionKey = encryptionKey
        self.encryptionNonce = encryptionNonce
        self.decryptionKey = decryptionKey
        self.decryptionNonce = decryptionNonce
        self.transcriptHash = transcriptHash
    }
}
