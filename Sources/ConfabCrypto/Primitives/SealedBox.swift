import CSodium

/// Anonymous sealed boxes (`crypto_box_seal`) addressed to an Ed25519 identity through
/// its Curve25519 form. Used to hand a conversation key to each participant.
public enum SealedBox {
    public static let overhead = Int(crypto_box_sealbytes())

    public static func seal(_ plaintext: [UInt8], to recipient: SigningPublicKey) throws(CryptoError) -> [UInt8] {
        Sodium.ensureInitialized()
        let curvePK = try recipient.curve25519()
        var out = [UInt8](repeating: 0, count: plaintext.count + overhead)
        guard crypto_box_seal(&out, plaintext, UInt64(plaintext.count), curvePK) == 0 else {
            throw .operationFailed("sealed box")
        }
        return out
    }

    public static func open(_ sealed: [UInt8], with keyPair: SigningKeyPair) throws(CryptoError) -> SecureBytes {
        Sodium.ensureInitialized()
        guard sealed.count >= overhead else { throw .authenticationFailed("sealed box") }
        let curvePK = try keyPair.publicKey.curve25519()
        let curveSK = keyPair.curve25519SecretKey()
        var ok = false
        let opened = SecureBytes(count: sealed.count - overhead) { out in
            ok = curveSK.withUnsafeBytes { sk in
                crypto_box_seal_open(
                    out, sealed, UInt64(sealed.count), curvePK, sk.baseAddress!.assumingMemoryBound(to: UInt8.self))
                    == 0
            }
        }
        guard ok else { throw .authenticationFailed("sealed box") }
        return opened
    }
}
