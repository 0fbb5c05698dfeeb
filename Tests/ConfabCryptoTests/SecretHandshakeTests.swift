import Testing

@testable import ConfabCrypto

@Suite("Secret handshake: behaviour")
struct SecretHandshakeTests {
    /// A deterministic run (the shs1 vector's keys) whose messages tests can alter.
    struct Transcript {
        let vector: SHS1Vector
        let message1: [UInt8]
        let message2: [UInt8]
        let message3: [UInt8]
        let message4: [UInt8]

        init() throws {
            vector = try SHS1Vector.load()
            message1 = try hex(vector.messages.clientChallenge)
            message2 = try hex(vector.messages.serverChallenge)
            message3 = try hex(vector.messages.clientAuth)
            message4 = try hex(vector.messages.serverAccept)
        }

        /// Server fed `message1`, then `message3`.
        func serverStep3(_ message3: [UInt8]) throws -> (accept: [UInt8], outcome: SecretHandshakeOutcome) {
            var server = try vector.makeServer()
            _ = try server.receiveClientChallenge(message1)
            return try server.receiveClientAuth(message3)
        }

        /// Client past message 2, then fed `message4`.
        func clientStep4(_ message4: [UInt8]) throws -> SecretHandshakeOutcome {
            var client = try vector.makeClient()
            _ = try client.receiveServerChallenge(message2)
            return try client.receiveServerAccept(message4)
        }
    }

    @Test func randomKeysRoundTrip() throws {
        let networkKey = Random.bytes(32)
        let clientKeys = SigningKeyPair.generate()
        let serverKeys = SigningKeyPair.generate()
        var client = try SecretHandshakeClient(
            networkKey: networkKey, keyPair: clientKeys, serverPublicKey: serverKeys.publicKey)
        var server = try SecretHandshakeServer(networkKey: networkKey, keyPair: serverKeys)

        let message2 = try server.receiveClientChallenge(client.challenge)
        let message3 = try client.receiveServerChallenge(message2)
        let (message4, serverOutcome) = try server.receiveClientAuth(message3)
        let clientOutcome = try client.receiveServerAccept(message4)

        #expect(serverOutcome.remotePublicKey == clientKeys.publicKey)
        #expect(clientOutcome.remotePublicKey == serverKeys.publicKey)
        #expect(clientOutcome.encryptionKey.isEqual(to: serverOutcome.decryptionKey))
        #expect(clientOutcome.decryptionKey.isEqual(to: serverOutcome.encryptionKey))
        #expect(!clientOutcome.encryptionKey.isEqual(to: clientOutcome.decryptionKey))
        #expect(clientOutcome.encryptionNonce == serverOutcome.decryptionNonce)
        #expect(clientOutcome.decryptionNonce == serverOutcome.encryptionNonce)
        #expect(clientOutcome.encryptionNonce == Array(message2.prefix(24)))
        #expect(clientOutcome.decryptionNonce == Array(client.challenge.prefix(24)))

        // The keys drive box-streams in both directions.
        var toServer = try BoxStreamEncryptor(outcome: clientOutcome)
        var atServer = try BoxStreamDecryptor(outcome: serverOutcome)
        #expect(try atServer.feed(toServer.encrypt(Array("hi server".utf8))).frames == [Array("hi server".utf8)])
        var toClient = try BoxStreamEncryptor(outcome: serverOutcome)
        var atClient = try BoxStreamDecryptor(outcome: clientOutcome)
        #expect(try atClient.feed(toClient.encrypt(Array("hi client".utf8))).frames == [Array("hi client".utf8)])
    }

    @Test func freshEphemeralKeysPerHandshake() throws {
        let keys = SigningKeyPair.generate()
        let a = try SecretHandshakeClient(networkKey: Random.bytes(32), keyPair: keys, serverPublicKey: keys.publicKey)
        let b = try SecretHandshakeClient(networkKey: Random.bytes(32), keyPair: keys, serverPublicKey: keys.publicKey)
        #expect(a.challenge.suffix(32) != b.challenge.suffix(32))
    }

    @Test func wrongNetworkKeyIsRejectedByBothSides() throws {
        let clientKeys = SigningKeyPair.generate()
        let serverKeys = SigningKeyPair.generate()
        let client = try SecretHandshakeClient(
            networkKey: Random.bytes(32), keyPair: clientKeys, serverPublicKey: serverKeys.publicKey)
        var server = try SecretHandshakeServer(networkKey: Random.bytes(32), keyPair: serverKeys)
        #expect(throws: SecretHandshakeError.challengeRejected(message: 1)) {
            try server.receiveClientChallenge(client.challenge)
        }

        // A server on network Y answering a client of network Y; shown to a client of network X.
        let otherNetwork = Random.bytes(32)
        var otherServer = try SecretHandshakeServer(networkKey: otherNetwork, keyPair: serverKeys)
        let otherClient = try SecretHandshakeClient(
            networkKey: otherNetwork, keyPair: clientKeys, serverPublicKey: serverKeys.publicKey)
        let foreignChallenge = try otherServer.receiveClientChallenge(otherClient.challenge)
        var clientX = client
        #expect(throws: SecretHandshakeError.challengeRejected(message: 2)) {
            try clientX.receiveServerChallenge(foreignChallenge)
        }
    }

    @Test func clientExpectingAnotherServerIsRejectedAtMessage3() throws {
        let networkKey = Random.bytes(32)
        let serverKeys = SigningKeyPair.generate()
        var client = try SecretHandshakeClient(
            networkKey: networkKey, keyPair: SigningKeyPair.generate(),
            serverPublicKey: SigningKeyPair.generate().publicKey)
        var server = try SecretHandshakeServer(networkKey: networkKey, keyPair: serverKeys)
        let message3 = try client.receiveServerChallenge(server.receiveClientChallenge(client.challenge))
        #expect(throws: SecretHandshakeError.clientAuthUnreadable) { try server.receiveClientAuth(message3) }
    }

    @Test func everyAlteredByteOfMessages1And2IsRejected() throws {
        let run = try Transcript()
        for index in run.message1.indices {
            var altered = run.message1
            altered[index] ^= 0x01
            var server = try run.vector.makeServer()
            #expect(throws: SecretHandshakeError.challengeRejected(message: 1)) {
                try server.receiveClientChallenge(altered)
            }
        }
        for index in run.message2.indices {
            var altered = run.message2
            altered[index] ^= 0x80
            var client = try run.vector.makeClient()
            #expect(throws: SecretHandshakeError.challengeRejected(message: 2)) {
                try client.receiveServerChallenge(altered)
            }
        }
    }

    @Test func everyAlteredByteOfMessage3IsRejected() throws {
        let run = try Transcript()
        for index in run.message3.indices {
            var altered = run.message3
            altered[index] ^= 0x10
            #expect(throws: SecretHandshakeError.clientAuthUnreadable) { try run.serverStep3(altered) }
        }
    }

    @Test func everyAlteredByteOfMessage4IsRejected() throws {
        let run = try Transcript()
        for index in run.message4.indices {
            var altered = run.message4
            altered[index] ^= 0x04
            #expect(throws: SecretHandshakeError.serverAcceptUnreadable) { try run.clientStep4(altered) }
        }
    }

    @Test(arguments: [-64, -1, 1, 100])
    func wrongLengthsAreRejectedAtEveryStep(delta: Int) throws {
        let run = try Transcript()
        func resized(_ message: [UInt8]) -> [UInt8] {
            delta < 0 ? Array(message.dropLast(-delta)) : message + [UInt8](repeating: 0, count: delta)
        }
        var server = try run.vector.makeServer()
        #expect(throws: SecretHandshakeError.wrongLength(message: 1, expected: 64, actual: 64 + delta)) {
            try server.receiveClientChallenge(resized(run.message1))
        }
        var client = try run.vector.makeClient()
        #expect(throws: SecretHandshakeError.wrongLength(message: 2, expected: 64, actual: 64 + delta)) {
            try client.receiveServerChallenge(resized(run.message2))
        }
        #expect(throws: SecretHandshakeError.wrongLength(message: 3, expected: 112, actual: 112 + delta)) {
            try run.serverStep3(resized(run.message3))
        }
        #expect(throws: SecretHandshakeError.wrongLength(message: 4, expected: 80, actual: 80 + delta)) {
            try run.clientStep4(resized(run.message4))
        }
    }

    @Test func emptyMessagesAreRejected() throws {
        let run = try Transcript()
        var server = try run.vector.makeServer()
        #expect(throws: SecretHandshakeError.wrongLength(message: 1, expected: 64, actual: 0)) {
            try server.receiveClientChallenge([])
        }
        #expect(throws: SecretHandshakeError.wrongLength(message: 3, expected: 112, actual: 0)) {
            try run.serverStep3([])
        }
        #expect(throws: SecretHandshakeError.wrongLength(message: 4, expected: 80, actual: 0)) {
            try run.clientStep4([])
        }
    }

    @Test func smallOrderEphemeralKeysAreRejected() throws {
        let run = try Transcript()
        let networkKey = try hex(run.vector.networkKey)
        // Correctly authenticated, but the key is the all-zero point.
        let weak = SecretHandshake.challenge(
            networkKey: networkKey, ephemeralPublicKey: [UInt8](repeating: 0, count: 32))
        var server = try run.vector.makeServer()
        #expect(throws: SecretHandshakeError.ephemeralKeyRejected(message: 1)) {
            try server.receiveClientChallenge(weak)
        }
        var client = try run.vector.makeClient()
        #expect(throws: SecretHandshakeError.ephemeralKeyRejected(message: 2)) {
            try client.receiveServerChallenge(weak)
        }
    }

    @Test func validBoxWithBadClientSignatureIsRejected() throws {
        let run = try Transcript()
        let v = run.vector
        let networkKey = try hex(v.networkKey)
        let clientEphemeral = try v.ephemeral(v.client)
        let serverEphemeral = try v.ephemeral(v.server)
        let serverKeys = try v.keyPair(v.server)
        let ab = try ScalarMult.sharedSecret(secretKey: clientEphemeral.secretKey, publicKey: serverEphemeral.publicKey)
        let aB = try ScalarMult.sharedSecret(
            secretKey: clientEphemeral.secretKey, publicKey: serverKeys.publicKey.curve25519())
        let key = SecretHandshake.clientAuthKey(networkKey: networkKey, ab: ab, aB: aB)
        let clientKeys = try v.keyPair(v.client)
        let zeroNonce = [UInt8](repeating: 0, count: 24)

        // Signature over the wrong payload.
        let wrongPayload = clientKeys.sign(Array("not the proof".utf8)) + clientKeys.publicKey.bytes
        #expect(throws: SecretHandshakeError.clientSignatureInvalid) {
            try run.serverStep3(SecretBox.seal(wrongPayload, nonce: zeroNonce, key: key))
        }
        // Right payload, but a different key claims it.
        let proof = SecretHandshake.clientProofPayload(
            networkKey: networkKey, serverPublicKey: serverKeys.publicKey,
            sessionHash: SecretHandshake.sessionHash(ab: ab))
        let impostor = SigningKeyPair.generate()
        let claimed = clientKeys.sign(proof) + impostor.publicKey.bytes
        #expect(throws: SecretHandshakeError.clientSignatureInvalid) {
            try run.serverStep3(SecretBox.seal(claimed, nonce: zeroNonce, key: key))
        }
        // The genuine plaintext passes, proving the two failures above came from the signature.
        let genuine = clientKeys.sign(proof) + clientKeys.publicKey.bytes
        #expect(try run.serverStep3(SecretBox.seal(genuine, nonce: zeroNonce, key: key)).accept == run.message4)
    }

    @Test func validBoxWithBadServerSignatureIsRejected() throws {
        let run = try Transcript()
        let v = run.vector
        let networkKey = try hex(v.networkKey)
        let clientEphemeral = try v.ephemeral(v.client)
        let serverEphemeral = try v.ephemeral(v.server)
        let serverKeys = try v.keyPair(v.server)
        let clientKeys = try v.keyPair(v.client)
        let ab = try ScalarMult.sharedSecret(secretKey: clientEphemeral.secretKey, publicKey: serverEphemeral.publicKey)
        let aB = try ScalarMult.sharedSecret(
            secretKey: clientEphemeral.secretKey, publicKey: serverKeys.publicKey.curve25519())
        let sharedAb = try ScalarMult.sharedSecret(
            secretKey: clientKeys.curve25519SecretKey(), publicKey: serverEphemeral.publicKey)
        let key = SecretHandshake.serverAcceptKey(networkKey: networkKey, ab: ab, aB: aB, sharedAb: sharedAb)
        let forged = serverKeys.sign(Array("something else".utf8))
        #expect(throws: SecretHandshakeError.serverSignatureInvalid) {
            try run.clientStep4(SecretBox.seal(forged, nonce: [UInt8](repeating: 0, count: 24), key: key))
        }
    }

    @Test func stepsOutOfOrderThrowInsteadOfTrapping() throws {
        let run = try Transcript()
        var client = try run.vector.makeClient()
        #expect(throws: SecretHandshakeError.self) { try client.receiveServerAccept(run.message4) }
        var server = try run.vector.makeServer()
        #expect(throws: SecretHandshakeError.self) { try server.receiveClientAuth(run.message3) }

        // Completed machines refuse to run again.
        var done = try run.vector.makeServer()
        _ = try done.receiveClientChallenge(run.message1)
        _ = try done.receiveClientAuth(run.message3)
        #expect(throws: SecretHandshakeError.self) { try done.receiveClientChallenge(run.message1) }
        #expect(throws: SecretHandshakeError.self) { try done.receiveClientAuth(run.message3) }

        // A failed machine stays failed even if the right bytes follow.
        var failed = try run.vector.makeClient()
        #expect(throws: SecretHandshakeError.wrongLength(message: 2, expected: 64, actual: 3)) {
            try failed.receiveServerChallenge([1, 2, 3])
        }
        let error = #expect(throws: SecretHandshakeError.self) { try failed.receiveServerChallenge(run.message2) }
        #expect(error?.message == nil)
    }

    @Test func invalidConfigurationIsRejectedUpFront() throws {
        let keys = SigningKeyPair.generate()
        #expect(throws: SecretHandshakeError.invalidNetworkKey(actual: 31)) {
            try SecretHandshakeServer(networkKey: Random.bytes(31), keyPair: keys)
        }
        #expect(throws: SecretHandshakeError.invalidNetworkKey(actual: 33)) {
            try SecretHandshakeClient(networkKey: Random.bytes(33), keyPair: keys, serverPublicKey: keys.publicKey)
        }
        // The Ed25519 identity point has no usable Curve25519 form.
        let identity = try SigningPublicKey(bytes: [1] + [UInt8](repeating: 0, count: 31))
        #expect(throws: SecretHandshakeError.serverKeyUnusable) {
            try SecretHandshakeClient(networkKey: Random.bytes(32), keyPair: keys, serverPublicKey: identity)
        }
    }

    @Test func errorsNameTheRefusedMessage() {
        #expect(SecretHandshakeError.challengeRejected(message: 2).message == 2)
        #expect(SecretHandshakeError.clientSignatureInvalid.message == 3)
        #expect(SecretHandshakeError.serverAcceptUnreadable.message == 4)
        #expect(SecretHandshakeError.invalidNetworkKey(actual: 1).message == nil)
        #expect(SecretHandshakeError.wrongLength(message: 1, expected: 64, actual: 2).description.contains("64"))
    }
}
