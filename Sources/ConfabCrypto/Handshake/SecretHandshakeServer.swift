/// The listening side of the secret handshake, as a state machine over bytes (no I/O).
///
/// Usage: pass the first 64 bytes received to `receiveClientChallenge` and send what it
/// returns (message 2); pass the next 112 bytes to `receiveClientAuth`, which returns
/// message 4 and the session keys. The client's identity is known only then: a server that
/// admits only some peers checks `outcome.remotePublicKey` and closes instead of sending
/// message 4. Any thrown error means: close the connection, send nothing.
public struct SecretHandshakeServer: Sendable {
    // The ephemeral secret lives only in the states that need it, so it is released (and
    // wiped) once message 3 has been processed.
    private enum State: Sendable {
        case awaitingClientChallenge(ephemeral: Curve25519KeyPair)
        case awaitingClientAuth(AfterChallenge)
        case finished
        case failed
    }

    /// What the server must remember between messages 1 and 3.
    private struct AfterChallenge: Sendable {
        let ephemeral: Curve25519KeyPair
        let clientChallengeMac: [UInt8]
        let ab: SecureBytes
        let aB: SecureBytes
    }

    private let networkKey: [UInt8]
    private let keyPair: SigningKeyPair
    private var state: State

    /// Message 2, sent only once message 1 checked out: `HMAC_K(b_pub) ‖ b_pub`.
    private let challenge: [UInt8]

    /// - Parameters:
    ///   - networkKey: the 32-byte key `K`; clients on another network are turned away at
    ///     message 1.
    ///   - ephemeralKeyPair: only for tests that need fixed bytes; leave nil otherwise.
    public init(
        networkKey: some Collection<UInt8>, keyPair: SigningKeyPair, ephemeralKeyPair: Curve25519KeyPair? = nil
    ) throws(SecretHandshakeError) {
        self.networkKey = try SecretHandshake.validateNetworkKey(networkKey)
        self.keyPair = keyPair
        let ephemeral = ephemeralKeyPair ?? .generate()
        self.state = .awaitingClientChallenge(ephemeral: ephemeral)
        self.challenge = SecretHandshake.challenge(networkKey: self.networkKey, ephemeralPublicKey: ephemeral.publicKey)
    }

    /// Consumes message 1 and returns message 2.
    ///
    /// Validates, in order: the length is 64; the HMAC under `K` over the client's ephemeral
    /// key matches (else the client is on another network, or the bytes were altered); the
    /// client's ephemeral key is not of small order (`ab` and `aB` are computable).
    public mutating func receiveClientChallenge(
        _ message: some Collection<UInt8>
    ) throws(SecretHandshakeError)
        -> [UInt8]
    {
        guard case .awaitingClientChallenge(let ephemeral) = state else {
            throw .outOfOrder("client challenge received twice or after failure")
        }
        state = .failed
        let opened = try SecretHandshake.openChallenge(Array(message), networkKey: networkKey, messageNumber: 1)
        let ab = try SecretHandshake.sharedSecret(
            ephemeral.secretKey, opened.ephemeralPublicKey, orThrow: .ephemeralKeyRejected(message: 1))
        let aB = try SecretHandshake.sharedSecret(
            keyPair.curve25519SecretKey(), opened.ephemeralPublicKey, orThrow: .ephemeralKeyRejected(message: 1))
        state = .awaitingClientAuth(
            AfterChallenge(ephemeral: ephemeral, clientChallengeMac: opened.mac, ab: ab, aB: aB))
        return challenge
    }

    /// Consumes message 3; returns message 4 and the session keys.
    ///
    /// Validates, in order: the length is 112; the box opens under `sha256(K‖ab‖aB)` (else
    /// the client dialled a different server key, or the bytes were altered); the first 64
    /// opened bytes are a valid signature, by the Ed25519 key in the last 32, over
    /// `K ‖ B ‖ sha256(ab)` (so the client holds that key and meant this server and
    /// session); that key has a Curve25519 form (`Ab`). Message 4 is
    /// `secretbox_{sha256(K‖ab‖aB‖Ab), 0}(sign_B(K ‖ sig_A ‖ A ‖ sha256(ab)))`.
    public mutating func receiveClientAuth(
        _ message: some Collection<UInt8>
    ) throws(SecretHandshakeError)
        -> (accept: [UInt8], outcome: SecretHandshakeOutcome)
    {
        guard case .awaitingClientAuth(let session) = state else {
            throw .outOfOrder("client auth before client challenge, twice, or after failure")
        }
        state = .failed
        guard message.count == SecretHandshake.clientAuthLength else {
            throw .wrongLength(message: 3, expected: SecretHandshake.clientAuthLength, actual: message.count)
        }
        let authKey = SecretHandshake.clientAuthKey(networkKey: networkKey, ab: session.ab, aB: session.aB)
        guard let opened = try? SecretBox.open(Array(message), nonce: SecretHandshake.zeroNonce, key: authKey) else {
            throw .clientAuthUnreadable
        }
        let clientSignature = Array(opened[0..<SigningPublicKey.signatureLength])
        guard let clientPublicKey = try? SigningPublicKey(bytes: opened[SigningPublicKey.signatureLength...]) else {
            throw .clientSignatureInvalid  // unreachable: the box length fixes the key length
        }

        let sessionHash = SecretHandshake.sessionHash(ab: session.ab)
        var clientProof = SecretHandshake.clientProofPayload(
            networkKey: networkKey, serverPublicKey: keyPair.publicKey, sessionHash: sessionHash)
        let valid = clientPublicKey.verify(signature: clientSignature, message: clientProof)
        clientProof.wipe()
        guard valid else { throw .clientSignatureInvalid }

        guard let clientCurveKey = try? clientPublicKey.curve25519() else { throw .clientKeyUnusable }
        let sharedAb = try SecretHandshake.sharedSecret(
            session.ephemeral.secretKey, clientCurveKey, orThrow: .clientKeyUnusable)
        let acceptKey = SecretHandshake.serverAcceptKey(
            networkKey: networkKey, ab: session.ab, aB: session.aB, sharedAb: sharedAb)

        var serverProof = SecretHandshake.serverProofPayload(
            networkKey: networkKey, clientSignature: clientSignature, clientPublicKey: clientPublicKey,
            sessionHash: sessionHash)
        let serverSignature = keyPair.sign(serverProof)
        serverProof.wipe()
        guard let accept = try? SecretBox.seal(serverSignature, nonce: SecretHandshake.zeroNonce, key: acceptKey) else {
            throw .primitiveFailed("secretbox")
        }

        state = .finished
        let outcome = SecretHandshake.outcome(
            acceptKey: acceptKey, localPublicKey: keyPair.publicKey, remotePublicKey: clientPublicKey,
            localChallengeMac: Array(challenge.prefix(HMAC.tagLength)),
            remoteChallengeMac: session.clientChallengeMac, sessionHash: sessionHash)
        return (accept, outcome)
    }
}
