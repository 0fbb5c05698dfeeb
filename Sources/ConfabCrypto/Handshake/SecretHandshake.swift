/// Secure Scuttlebutt's secret handshake, version 1: the wire constants and the key
/// schedule that `SecretHandshakeClient` and `SecretHandshakeServer` share.
///
/// Notation (as in Docs/protocol-handshake-boxstream.md): `K` network key; `a`/`A` the
/// client's ephemeral/long-term keys, `b`/`B` the server's; `ab`, `aB`, `Ab` the three
/// X25519 shared secrets, where a capital letter means the long-term key converted to
/// Curve25519 (`Ab` is spelled `sharedAb` in code, identifiers being lower camel case).
public enum SecretHandshake {
    public static let networkKeyLength = 32
    /// Messages 1 and 2: `HMAC_K(ephemeral pk) ‖ ephemeral pk`.
    public static let challengeLength = 64
    /// Message 3: secretbox of `sig_A ‖ A` (64 + 32 bytes) plus its 16-byte tag.
    public static let clientAuthLength = 112
    /// Message 4: secretbox of `sig_B` (64 bytes) plus its 16-byte tag.
    public static let serverAcceptLength = 80
    /// Nonce bytes taken from each challenge HMAC to start a box-stream.
    public static let streamNonceLength = 24

    /// Messages 3 and 4 use an all-zero nonce; safe because each of their keys is used for
    /// exactly one box.
    static let zeroNonce = [UInt8](repeating: 0, count: SecretBox.nonceLength)

    static func validateNetworkKey(_ key: some Collection<UInt8>) throws(SecretHandshakeError) -> [UInt8] {
        guard key.count == networkKeyLength else { throw .invalidNetworkKey(actual: key.count) }
        return Array(key)
    }

    /// `HMAC_K(ephemeralPublicKey) ‖ ephemeralPublicKey`.
    static func challenge(networkKey: [UInt8], ephemeralPublicKey: [UInt8]) -> [UInt8] {
        // Both inputs are length-checked by the callers, so HMAC cannot fail here.
        let mac = (try? HMAC.authenticate(ephemeralPublicKey, key: networkKey)) ?? []
        return mac + ephemeralPublicKey
    }

    /// Checks length and HMAC of a challenge; returns the HMAC (the peer's stream nonce
    /// source) and the peer's ephemeral key.
    static func openChallenge(
        _ message: [UInt8], networkKey: [UInt8], messageNumber: Int
    ) throws(SecretHandshakeError) -> (mac: [UInt8], ephemeralPublicKey: [UInt8]) {
        guard message.count == challengeLength else {
            throw .wrongLength(message: messageNumber, expected: challengeLength, actual: message.count)
        }
        let mac = Array(message[0..<HMAC.tagLength])
        let ephemeral = Array(message[HMAC.tagLength...])
        guard (try? HMAC.verify(tag: mac, message: ephemeral, key: networkKey)) == true else {
            throw .challengeRejected(message: messageNumber)
        }
        return (mac, ephemeral)
    }

    /// One Diffie-Hellman step, with its failure mapped to the handshake error that names
    /// the message whose key caused it.
    static func sharedSecret(
        _ secretKey: SecureBytes, _ publicKey: [UInt8], orThrow failure: SecretHandshakeError
    ) throws(SecretHandshakeError) -> SecureBytes {
        do {
            return try ScalarMult.sharedSecret(secretKey: secretKey, publicKey: publicKey)
        } catch {
            throw failure
        }
    }

    /// `sha256(ab)`: binds both signatures to this session's ephemeral keys.
    static func sessionHash(ab: SecureBytes) -> SecureBytes {
        SHA256Hasher.secretDigest(ab)
    }

    /// Key of message 3's box: `sha256(K ‖ ab ‖ aB)`.
    static func clientAuthKey(networkKey: [UInt8], ab: SecureBytes, aB: SecureBytes) -> SecureBytes {
        var hasher = SHA256Hasher()
        hasher.update(networkKey)
        hasher.update(ab)
        hasher.update(aB)
        return hasher.finalizeSecret()
    }

    /// Key of message 4's box: `sha256(K ‖ ab ‖ aB ‖ Ab)`.
    static func serverAcceptKey(
        networkKey: [UInt8], ab: SecureBytes, aB: SecureBytes, sharedAb: SecureBytes
    ) -> SecureBytes {
        var hasher = SHA256Hasher()
        hasher.update(networkKey)
        hasher.update(ab)
        hasher.update(aB)
        hasher.update(sharedAb)
        return hasher.finalizeSecret()
    }

    /// What the client signs: `K ‖ B ‖ sha256(ab)`. The caller wipes the result.
    static func clientProofPayload(
        networkKey: [UInt8], serverPublicKey: SigningPublicKey, sessionHash: SecureBytes
    )
        -> [UInt8]
    {
        var payload = [UInt8]()
        // Reserved up front so appending never reallocates and strands an unwiped copy.
        payload.reserveCapacity(networkKey.count + SigningPublicKey.length + sessionHash.count)
        payload += networkKey
        payload += serverPublicKey.bytes
        sessionHash.withUnsafeBytes { payload.append(contentsOf: $0) }
        return payload
    }

    /// What the server signs: `K ‖ sig_A ‖ A ‖ sha256(ab)`. The caller wipes the result.
    static func serverProofPayload(
        networkKey: [UInt8], clientSignature: [UInt8], clientPublicKey: SigningPublicKey, sessionHash: SecureBytes
    ) -> [UInt8] {
        var payload = [UInt8]()
        payload.reserveCapacity(
            networkKey.count + clientSignature.count + SigningPublicKey.length + sessionHash.count)
        payload += networkKey
        payload += clientSignature
        payload += clientPublicKey.bytes
        sessionHash.withUnsafeBytes { payload.append(contentsOf: $0) }
        return payload
    }

    /// The box-stream keys and nonces. Both directions start from
    /// `sha256(sha256(K ‖ ab ‖ aB ‖ Ab))` (the message-4 key hashed once more, so the
    /// stream keys differ from anything used during the handshake), which is then hashed
    /// with the public key of the side that is to *receive* that direction.
    static func outcome(
        acceptKey: SecureBytes,
        localPublicKey: SigningPublicKey, remotePublicKey: SigningPublicKey,
        localChallengeMac: [UInt8], remoteChallengeMac: [UInt8], sessionHash: SecureBytes
    ) -> SecretHandshakeOutcome {
        let streamSecret = SHA256Hasher.secretDigest(acceptKey)
        var encrypt = SHA256Hasher()
        encrypt.update(streamSecret)
        encrypt.update(remotePublicKey.bytes)
        var decrypt = SHA256Hasher()
        decrypt.update(streamSecret)
        decrypt.update(localPublicKey.bytes)
        return SecretHandshakeOutcome(
            remotePublicKey: remotePublicKey,
            encryptionKey: encrypt.finalizeSecret(),
            encryptionNonce: Array(remoteChallengeMac.prefix(streamNonceLength)),
            decryptionKey: decrypt.finalizeSecret(),
            decryptionNonce: Array(localChallengeMac.prefix(streamNonceLength)),
            transcriptHash: sessionHash.withUnsafeBytes { Array($0) })
    }
}
