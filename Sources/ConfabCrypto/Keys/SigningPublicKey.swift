import CSodium

/// An Ed25519 public key: a node's identity on the network.
public struct SigningPublicKey: Hashable, Sendable, Comparable {
    public static let length = Int(crypto_sign_PUBLICKEYBYTES)
    public static let signatureLength = Int(crypto_sign_BYTES)

    public let bytes: [UInt8]

    public init(bytes: some Collection<UInt8>) throws(CryptoError) {
        try requireLength(bytes, Self.length, "Ed25519 public key")
        self.bytes = Array(bytes)
    }

    /// Verifies a detached signature over `message`.
    public func verify(signature: some ContiguousBytes, message: some ContiguousBytes) -> Bool {
        Sodium.ensureInitialized()
        return withBytePointer(signature) { sig, sigCount in
            guard sigCount == Self.signatureLength else { return false }
            return withBytePointer(message) { msg, n in crypto_sign_verify_detached(sig, msg, UInt64(n), bytes) == 0 }
        }
    }

    /// The Curve25519 (X25519) form of this key, for sealing boxes to its owner.
    public func curve25519() throws(CryptoError) -> [UInt8] {
        Sodium.ensureInitialized()
        var out = [UInt8](repeating: 0, count: Int(crypto_scalarmult_curve25519_BYTES))
        guard crypto_sign_ed25519_pk_to_curve25519(&out, bytes) == 0 else {
            throw .invalidKey("Ed25519 public key has no Curve25519 form")
        }
        return out
    }

    public static func < (lhs: SigningPublicKey, rhs: SigningPublicKey) -> Bool {
        lhs.bytes.lexicographicallyPrecedes(rhs.bytes)
    }
}
