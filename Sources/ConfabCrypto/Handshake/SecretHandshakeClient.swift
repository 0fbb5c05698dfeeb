/// The dialling side of the secret handshake, as a state machine over bytes (no I/O).
///
/// Usage: send `challenge` (message 1); pass the 64 bytes received next to
/// `receiveServerChallenge`, send what it returns (message 3); pass the 80 bytes received
/// next to `receiveServerAccept`, which yields the session keys. Any thrown error means:
/// close the connection. After an error every further step throws `outOfOrder`.
public struct SecretHandshakeClient: Sendable {
    // The ephemeral secret lives only in the state that needs it, so it is released (and
    // wiped) as soon as message 2 has been processed.
    private enum State: Sendable {
        case awaitingServerChallenge(ephemeral: Curve25519KeyPair)
        case awaitingServerAccept(AfterChallenge)
        case finished
        case failed
    }

    /// What the client must remember between messages 2 and 4.
    private struct AfterChallenge: Sendable {
        let serverChallengeMac: [UInt8]
        let serverEphemeralKey: [UInt8]
        let ab: SecureBytes
        let aB: SecureBytes
        let sessionHash: SecureBytes
        let clientSignature: [UInt8]
    }

    private let networkKey: [UInt8]
    private let keyPair: SigningKeyPair
    private let serverPublicKey: SigningPublicKey
    private let serverCurveKey: [UInt8]
    private var state: State

    /// Message 1, to be sent first: `HMAC_K(a_pub) ‖ a_pub`.
    public let challenge: [UInt8]

    /// - Parameters:
    ///   - networkKey: the 32-byte key `K` that separates networks; a server on another
    ///     network rejects message 1.
    ///   - serverPublicKey: the identity the client insists on talking to.
    ///   - ephemeralKeyPair: only for tests that need fixed bytes; leave nil otherwise so a
    ///     fresh key is drawn per connection.
    /// - Throws: `invalidNetworkKey` or `serverKeyUnusable`; nothing has been sent yet.
    public init(
        networkKey: some Collection<UInt8>, keyPair: SigningKeyPair, serverPublicKey: SigningPublicKey,
        ephemeralKeyPair: Curve25519KeyPair? = nil
    ) throws(SecretHandshakeError) {
        self.networkKey = try SecretHandshake.validateNetworkKey(networkKey)
        self.keyPair = keyPair
        self.serverPublicKey = serverPublicKey
        guard let curve = try? serverPublicKey.curve25519() else { throw .serverKeyUnusable }
        self.serverCurveKey = curve
        let ephemeral = ephemeralKeyPair ?? .generate()
        self.state = .awaitingServerChallenge(ephemeral: ephemeral)
        self.challenge = SecretHandshake.challenge(networkKey: self.networkKey, ephemeralPublicKey: ephemeral.publicKey)
    }

    /// Consumes message 2 and returns message 3.
    ///
    /// Validates, in order: the length is 64; the HMAC under `K` over the server's ephemeral
    /// key matches (else the server is on another network, or the bytes were altered); the
    /// server's ephemeral key is not of small order (`ab`); the expected server key gives a
    /// usable `aB`. Message 3 is `secretbox_{sha256(K‖ab‖aB), 0}(sig_A ‖ A)` with
    /// `sig_A = sign_A(K ‖ B ‖ sha256(ab))`; only the holder of B's secret key can open it.
    public mutating func receiveServerChallenge(
        _ message: some Collection<UInt8>
    ) throws(SecretHandshakeError)
        -> [UInt8]
    {
        guard case .awaitingServerChallenge(let ephemeral) = state else {
            throw .outOfOrder("server challenge received twice or after failure")
        }
        state = .failed
        let opened = try SecretHandshake.openChallenge(Array(message), networkKey: networkKey, messageNumber: 2)
        let ab = try SecretHandshake.sharedSecret(
            ephemeral.secretKey, opened.ephemeralPublicKey, orThrow: .ephemeralKeyRejected(message: 2))
        let aB = try SecretHandshake.sharedSecret(ephemeral.secretKey, serverCurveKey, orThrow: .serverKeyUnusable)
        let sessionHash = SecretHandshake.sessionHash(ab: ab)

        var proof = SecretHandshake.clientProofPayload(
            networkKey: networkKey, serverPublicKey: serverPublicKey, sessionHash: sessionHash)
        let signature = keyPair.sign(proof)
        proof.wipe()

        let boxKey = SecretHandshake.clientAuthKey(networkKey: networkKey, ab: ab, aB: aB)
        let plaintext = signature + keyPair.publicKey.bytes
        guard let auth = try? SecretBox.seal(plaintext, nonce: SecretHandshake.zeroNonce, key: boxKey) else {
            throw .primitiveFailed("secretbox")
        }
        state = .awaitingServerAccept(
            AfterChallenge(
                serverChallengeMac: opened.mac, serverEphemeralKey: opened.ephemeralPublicKey,
                ab: ab, aB: aB, sessionHash: sessionHash, clientSignature: signature))
        return auth
    }

    /// Consumes message 4 and completes the handshake.
    ///
    /// Validates, in order: the length is 80; the box opens under `sha256(K‖ab‖aB‖Ab)`
    /// (else the server does not hold `B`, or the bytes were altered); the opened 64 bytes
    /// are B's signature over `K ‖ sig_A ‖ A ‖ sha256(ab)`, which proves the server saw
    /// this very message 3.
    public mutating func receiveServerAccept(
        _ message: some Collection<UInt8>
    ) throws(SecretHandshakeError)
        -> SecretHandshakeOutcome
    {
        guard case .awaitingServerAccept(let session) = state else {
            throw .outOfOrder("server accept before server challenge, twice, or after failure")
        }
        state = .failed
        guard message.count == SecretHandshake.serverAcceptLength else {
            throw .wrongLength(message: 4, expected: SecretHandshake.serverAcceptLength, actual: message.count)
        }
        let sharedAb = try SecretHandshake.sharedSecret(
            keyPair.curve25519SecretKey(), session.serverEphemeralKey, orThrow: .ephemeralKeyRejected(message: 4))
        let boxKey = SecretHandshake.serverAcceptKey(
            networkKey: networkKey, ab: session.ab, aB: session.aB, sharedAb: sharedAb)
        guard let serverSignature = try? SecretBox.open(Array(message), nonce: SecretHandshake.zeroNonce, key: boxKey)
        else { throw .serverAcceptUnreadable }

        var proof = SecretHandshake.serverProofPayload(
            networkKey: networkKey, clientSignature: session.clientSignature, clientPublicKey: keyPair.publicKey,
            sessionHash: session.sessionHash)
        let valid = serverPublicKey.verify(signature: serverSignature, message: proof)
        proof.wipe()
        guard valid else { throw .serverSignatureInvalid }

        state = .finished
        return SecretHandshake.outcome(
            acceptKey: boxKey, localPublicKey: keyPair.publicKey, remotePublicKey: serverPublicKey,
            localChallengeMac: Array(challenge.prefix(HMAC.tagLength)),
            remoteChallengeMac: session.serverChallengeMac, sessionHash: session.sessionHash)
    }
}
