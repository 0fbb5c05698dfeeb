import Foundation
import Testing

@testable import ConfabCrypto

/// Replays test-secret-handshake-data.json: 159 calls recorded from the JavaScript reference
/// implementation, each a step of its state object. Every entry is mapped onto our state
/// machines (or, for intermediate secrets, onto the key schedule they use).
///
/// The recorder captured `args` after each call ran, so the state object there may already
/// hold outputs; only inputs are read from it. `clean` even erased the ephemeral secret and
/// the handshake secrets, so the replay remembers, per session (keyed by the local ephemeral
/// public key), what earlier entries showed: the ephemeral secret from `initialize`, message 3
/// from `serverVerifyAuth`, message 4 from `clientVerifyAccept`.
@Suite("Secret handshake: JavaScript reference calls")
struct SecretHandshakeReferenceTests {
    /// Entries per call name in the file, and how many of them record a rejection.
    static let expectedCounts: [String: Int] = [
        "initialize": 34, "createChallenge": 31, "verifyChallenge": 30, "clientVerifyChallenge": 14,
        "clientCreateAuth": 12, "serverVerifyAuth": 12, "clean": 12, "serverCreateAccept": 6,
        "clientVerifyAccept": 6, "toKeys": 2,
    ]
    static let expectedRejections: [String: Int] = [
        "verifyChallenge": 4, "clientVerifyChallenge": 2, "serverVerifyAuth": 1,
    ]

    @Test func everyRecordedCallIsReproduced() throws {
        let entries = try #require(try FixtureLoader.object("test-secret-handshake-data") as? [[String: Any]])
        #expect(entries.count == 159)
        var replay = Replay()
        for (index, entry) in entries.enumerated() {
            try replay.check(entry, index: index)
        }
        #expect(replay.checked == Self.expectedCounts)
        #expect(replay.rejected == Self.expectedRejections)
        #expect(replay.checked.values.reduce(0, +) == 159)
    }
}

/// A JS state object (`args[0]` or a state-valued `result`).
private struct JSState {
    let raw: [String: Any]

    init(_ value: Any?) throws {
        raw = try #require(value as? [String: Any], "state object expected")
    }

    private var local: [String: Any] { raw["local"] as? [String: Any] ?? [:] }
    private var remote: [String: Any] { raw["remote"] as? [String: Any] ?? [:] }

    private func bytes(_ dict: [String: Any], _ key: String) throws -> [UInt8]? {
        guard let text = dict[key] as? String else { return nil }
        return try hex(text)
    }

    private func required(_ dict: [String: Any], _ key: String) throws -> [UInt8] {
        try #require(try bytes(dict, key), "missing \(key)")
    }

    var networkKey: [UInt8] { get throws { try required(raw, "app_key") } }
    var localKeyPair: SigningKeyPair { get throws { try SigningKeyPair(secretKey: required(local, "secretKey")) } }
    var localPublicKey: [UInt8] { get throws { try required(local, "publicKey") } }
    var localEphemeralPublic: [UInt8] { get throws { try required(local, "kx_pk") } }
    var localEphemeralSecret: [UInt8]? { get throws { try bytes(local, "kx_sk") } }
    var localAppMac: [UInt8] { get throws { try required(local, "app_mac") } }
    var localHello: [UInt8] { get throws { try required(local, "hello") } }
    var remotePublicKey: [UInt8]? { get throws { try bytes(remote, "publicKey") } }
    var remoteEphemeralPublic: [UInt8]? { get throws { try bytes(remote, "kx_pk") } }
    /// The challenge the peer sent, rebuilt from what the state recorded of it.
    var remoteChallenge: [UInt8] { get throws { try required(remote, "app_mac") + required(remote, "kx_pk") } }
    var seed: [UInt8]? { get throws { try bytes(raw, "seed") } }
    var random: [UInt8] { get throws { try required(raw, "random") } }

    func field(_ key: String) throws -> [UInt8] { try required(raw, key) }
}

private struct Replay {
    var checked: [String: Int] = [:]
    var rejected: [String: Int] = [:]
    /// Per local ephemeral public key (hex): its secret, from `initialize`.
    private var ephemeralSecrets: [String: [UInt8]] = [:]
    /// Per server ephemeral public key (hex): the message 3 it received.
    private var clientAuths: [String: [UInt8]] = [:]
    /// Per client ephemeral public key (hex): the message 4 it received.
    private var serverAccepts: [String: [UInt8]] = [:]

    mutating func check(_ entry: [String: Any], index: Int) throws {
        let name = try #require(entry["name"] as? String)
        let args = try #require(entry["args"] as? [Any])
        let result = entry["result"].flatMap { $0 is NSNull ? nil : $0 }
        let comment = Comment(rawValue: "entry \(index) (\(name))")
        if result == nil { rejected[name, default: 0] += 1 }

        switch name {
        case "initialize": try initialize(JSState(args[0]), result: JSState(result), comment)
        case "createChallenge": try createChallenge(JSState(args[0]), result: message(result), comment)
        case "verifyChallenge": try verifyChallenge(JSState(args[0]), hex(message(args[1])), result: result, comment)
        case "clientVerifyChallenge":
            try clientVerifyChallenge(JSState(args[0]), hex(message(args[1])), result: result, comment)
        case "clientCreateAuth": try clientCreateAuth(JSState(args[0]), result: message(result), comment)
        case "serverVerifyAuth": try serverVerifyAuth(JSState(args[0]), hex(message(args[1])), result: result, comment)
        case "serverCreateAccept": try serverCreateAccept(JSState(args[0]), result: message(result), comment)
        case "clientVerifyAccept":
            try clientVerifyAccept(JSState(args[0]), hex(message(args[1])), result: result, comment)
        case "clean": try clean(JSState(args[0]), result: JSState(result), comment)
        case "toKeys": try toKeys(args[0], result: result, comment)
        default:
            Issue.record("unknown call \(name) at entry \(index)")
            return
        }
        checked[name, default: 0] += 1
    }

    private func message(_ value: Any?) throws -> String { try #require(value as? String, "hex string expected") }

    // MARK: Machines rebuilt from a recorded state

    private func ephemeral(_ state: JSState) throws -> Curve25519KeyPair {
        let secret =
            try state.localEphemeralSecret ?? #require(ephemeralSecrets[Hex.encode(state.localEphemeralPublic)])
        let pair = try Curve25519KeyPair(secretKey: secret)
        #expect(pair.publicKey == (try state.localEphemeralPublic))
        return pair
    }

    private func client(_ state: JSState) throws -> SecretHandshakeClient {
        let server = try #require(try state.remotePublicKey, "client state without server key")
        return try SecretHandshakeClient(
            networkKey: state.networkKey, keyPair: state.localKeyPair, serverPublicKey: SigningPublicKey(bytes: server),
            ephemeralKeyPair: ephemeral(state))
    }

    private func server(_ state: JSState) throws -> SecretHandshakeServer {
        try SecretHandshakeServer(
            networkKey: state.networkKey, keyPair: state.localKeyPair, ephemeralKeyPair: ephemeral(state))
    }

    /// The three shared secrets as the key schedule computes them from a state's inputs.
    private func ab(_ state: JSState, remoteEphemeral: [UInt8]) throws -> SecureBytes {
        try ScalarMult.sharedSecret(secretKey: ephemeral(state).secretKey, publicKey: remoteEphemeral)
    }

    // MARK: Calls

    /// `initialize`: ephemeral key from `crypto_sign_seed_keypair(random)` in Curve25519
    /// form, and `app_mac = HMAC_K(kx_pk)`; with a `seed`, the long-term key comes from it.
    private mutating func initialize(_ state: JSState, result: JSState, _ comment: Comment) throws {
        let ed = try SigningKeyPair(seed: state.random)
        let ephemeral = try Curve25519KeyPair(secretKey: ed.curve25519SecretKey())
        #expect(ephemeral.publicKey == (try result.localEphemeralPublic), comment)
        #expect(ephemeral.publicKey == (try ed.publicKey.curve25519()), comment)
        #expect(ephemeral.secretKey.bytesForTesting == (try result.localEphemeralSecret), comment)
        let challenge = SecretHandshake.challenge(
            networkKey: try state.networkKey, ephemeralPublicKey: ephemeral.publicKey)
        #expect(challenge == (try result.localAppMac) + ephemeral.publicKey, comment)
        if let seed = try state.seed {
            #expect(try SigningKeyPair(seed: seed).publicKey.bytes == result.localPublicKey, comment)
        }
        #expect(try result.localKeyPair.publicKey.bytes == result.localPublicKey, comment)
        ephemeralSecrets[Hex.encode(ephemeral.publicKey)] = ephemeral.secretKey.bytesForTesting
    }

    /// `createChallenge`: message 1 for a client, message 2 for a server (which sends it
    /// in answer to the client challenge its state recorded).
    private func createChallenge(_ state: JSState, result: String, _ comment: Comment) throws {
        let expected = try hex(result)
        if try state.remotePublicKey != nil {
            #expect(try client(state).challenge == expected, comment)
        } else {
            var server = try server(state)
            #expect(try server.receiveClientChallenge(state.remoteChallenge) == expected, comment)
        }
    }

    /// `verifyChallenge`: HMAC check of the peer's challenge, then `ab` and `sha256(ab)`.
    private func verifyChallenge(_ state: JSState, _ challenge: [UInt8], result: Any?, _ comment: Comment) throws {
        let isClient = try state.remotePublicKey != nil
        if result == nil {
            if isClient {
                var client = try client(state)
                #expect(throws: SecretHandshakeError.challengeRejected(message: 2), comment) {
                    try client.receiveServerChallenge(challenge)
                }
            } else {
                var server = try server(state)
                #expect(throws: SecretHandshakeError.challengeRejected(message: 1), comment) {
                    try server.receiveClientChallenge(challenge)
                }
            }
            return
        }
        if isClient {
            var client = try client(state)
            _ = try client.receiveServerChallenge(challenge)
        } else {
            var server = try server(state)
            _ = try server.receiveClientChallenge(challenge)
        }
        let after = try JSState(result)
        let remoteEphemeral = Array(challenge.suffix(32))
        #expect(try after.remoteEphemeralPublic == remoteEphemeral, comment)
        let ab = try ab(state, remoteEphemeral: remoteEphemeral)
        #expect(ab.bytesForTesting == (try after.field("secret")), comment)
        #expect(SecretHandshake.sessionHash(ab: ab).bytesForTesting == (try after.field("shash")), comment)
    }

    /// `clientVerifyChallenge`: as above, plus `aB`, the message-3 key and the signed hello.
    private func clientVerifyChallenge(_ state: JSState, _ challenge: [UInt8], result: Any?, _ comment: Comment) throws
    {
        var client = try client(state)
        guard result != nil else {
            #expect(throws: SecretHandshakeError.challengeRejected(message: 2), comment) {
                try client.receiveServerChallenge(challenge)
            }
            return
        }
        let message3 = try client.receiveServerChallenge(challenge)
        let after = try JSState(result)
        let ab = try ab(state, remoteEphemeral: Array(challenge.suffix(32)))
        let serverCurve = try SigningPublicKey(bytes: #require(try state.remotePublicKey)).curve25519()
        let aB = try ScalarMult.sharedSecret(secretKey: ephemeral(state).secretKey, publicKey: serverCurve)
        #expect(aB.bytesForTesting == (try after.field("a_bob")), comment)
        let key = SecretHandshake.clientAuthKey(networkKey: try state.networkKey, ab: ab, aB: aB)
        #expect(key.bytesForTesting == (try after.field("secret2")), comment)
        let hello = try SecretBox.open(message3, nonce: SecretHandshake.zeroNonce, key: key)
        #expect(hello == (try after.localHello), comment)
    }

    /// `clientCreateAuth`: message 3, byte for byte.
    private func clientCreateAuth(_ state: JSState, result: String, _ comment: Comment) throws {
        var client = try client(state)
        #expect(try client.receiveServerChallenge(state.remoteChallenge) == hex(result), comment)
    }

    /// `serverVerifyAuth`: message 3 accepted or refused; on success the client's identity,
    /// `aB`, `Ab` and both box keys.
    private mutating func serverVerifyAuth(
        _ state: JSState, _ message3: [UInt8], result: Any?, _ comment: Comment
    ) throws {
        var server = try server(state)
        _ = try server.receiveClientChallenge(state.remoteChallenge)
        guard result != nil else {
            // In the recording the client had dialled a different server key.
            #expect(throws: SecretHandshakeError.clientAuthUnreadable, comment) {
                try server.receiveClientAuth(message3)
            }
            return
        }
        let (_, outcome) = try server.receiveClientAuth(message3)
        let after = try JSState(result)
        #expect(outcome.remotePublicKey.bytes == (try after.remotePublicKey), comment)

        let local = try state.localKeyPair
        let remoteEphemeral = try #require(try state.remoteEphemeralPublic)
        let ab = try ab(state, remoteEphemeral: remoteEphemeral)
        let aB = try ScalarMult.sharedSecret(secretKey: local.curve25519SecretKey(), publicKey: remoteEphemeral)
        let sharedAb = try ScalarMult.sharedSecret(
            secretKey: ephemeral(state).secretKey, publicKey: outcome.remotePublicKey.curve25519())
        let networkKey = try state.networkKey
        #expect(aB.bytesForTesting == (try after.field("a_bob")), comment)
        #expect(sharedAb.bytesForTesting == (try after.field("b_alice")), comment)
        #expect(
            SecretHandshake.clientAuthKey(networkKey: networkKey, ab: ab, aB: aB).bytesForTesting
                == (try after.field("secret2")), comment)
        #expect(
            SecretHandshake.serverAcceptKey(networkKey: networkKey, ab: ab, aB: aB, sharedAb: sharedAb).bytesForTesting
                == (try after.field("secret3")), comment)
        clientAuths[Hex.encode(try state.localEphemeralPublic)] = message3
    }

    /// `serverCreateAccept`: message 4, byte for byte.
    private func serverCreateAccept(_ state: JSState, result: String, _ comment: Comment) throws {
        let message3 = try #require(clientAuths[Hex.encode(try state.localEphemeralPublic)], comment)
        var server = try server(state)
        _ = try server.receiveClientChallenge(state.remoteChallenge)
        #expect(try server.receiveClientAuth(message3).accept == hex(result), comment)
    }

    /// `clientVerifyAccept`: message 4 accepted; `Ab` and the message-4 key.
    private mutating func clientVerifyAccept(
        _ state: JSState, _ message4: [UInt8], result: Any?, _ comment: Comment
    ) throws {
        var client = try client(state)
        _ = try client.receiveServerChallenge(state.remoteChallenge)
        guard result != nil else {
            #expect(throws: SecretHandshakeError.self, comment) { try client.receiveServerAccept(message4) }
            return
        }
        let outcome = try client.receiveServerAccept(message4)
        #expect(outcome.remotePublicKey.bytes == (try state.remotePublicKey), comment)
        let after = try JSState(result)
        let remoteEphemeral = try #require(try state.remoteEphemeralPublic)
        let sharedAb = try ScalarMult.sharedSecret(
            secretKey: state.localKeyPair.curve25519SecretKey(), publicKey: remoteEphemeral)
        #expect(sharedAb.bytesForTesting == (try after.field("b_alice")), comment)
        serverAccepts[Hex.encode(try state.localEphemeralPublic)] = message4
    }

    /// `clean`: the box-stream keys. The machine is run again from the session's recorded
    /// messages, and its outcome compared; nonces come from the two challenge HMACs.
    private func clean(_ state: JSState, result: JSState, _ comment: Comment) throws {
        let session = Hex.encode(try state.localEphemeralPublic)
        let outcome: SecretHandshakeOutcome
        let acceptKeyInputs: (ab: SecureBytes, aB: SecureBytes, sharedAb: SecureBytes)
        let remoteEphemeral = try #require(try state.remoteEphemeralPublic)
        let ab = try ab(state, remoteEphemeral: remoteEphemeral)
        if let message4 = serverAccepts[session] {
            var client = try client(state)
            _ = try client.receiveServerChallenge(state.remoteChallenge)
            outcome = try client.receiveServerAccept(message4)
            let serverCurve = try outcome.remotePublicKey.curve25519()
            acceptKeyInputs = (
                ab, try ScalarMult.sharedSecret(secretKey: ephemeral(state).secretKey, publicKey: serverCurve),
                try ScalarMult.sharedSecret(
                    secretKey: state.localKeyPair.curve25519SecretKey(), publicKey: remoteEphemeral)
            )
        } else {
            let message3 = try #require(clientAuths[session], comment)
            var server = try server(state)
            _ = try server.receiveClientChallenge(state.remoteChallenge)
            outcome = try server.receiveClientAuth(message3).outcome
            acceptKeyInputs = (
                ab,
                try ScalarMult.sharedSecret(
                    secretKey: state.localKeyPair.curve25519SecretKey(), publicKey: remoteEphemeral),
                try ScalarMult.sharedSecret(
                    secretKey: ephemeral(state).secretKey, publicKey: outcome.remotePublicKey.curve25519())
            )
        }
        #expect(outcome.encryptionKey.bytesForTesting == (try result.field("encryptKey")), comment)
        #expect(outcome.decryptionKey.bytesForTesting == (try result.field("decryptKey")), comment)
        #expect(outcome.remotePublicKey.bytes == (try result.remotePublicKey), comment)
        #expect(outcome.encryptionNonce == Array((try state.remoteChallenge).prefix(24)), comment)
        #expect(outcome.decryptionNonce == Array((try state.localAppMac).prefix(24)), comment)
        // The recorder's `secret` after clean is the stream secret sha256(sha256(K‖ab‖aB‖Ab)).
        let acceptKey = SecretHandshake.serverAcceptKey(
            networkKey: try state.networkKey, ab: acceptKeyInputs.ab, aB: acceptKeyInputs.aB,
            sharedAb: acceptKeyInputs.sharedAb)
        #expect(SHA256Hasher.secretDigest(acceptKey).bytesForTesting == (try result.field("secret")), comment)
    }

    /// `toKeys`: a 32-byte seed becomes the Ed25519 pair; a pair is passed through.
    private func toKeys(_ argument: Any, result: Any?, _ comment: Comment) throws {
        let expected = try #require(result as? [String: String], comment)
        let publicKey = try hex(#require(expected["publicKey"]))
        let secretKey = try hex(#require(expected["secretKey"]))
        if let seed = argument as? String {
            let pair = try SigningKeyPair(seed: hex(seed))
            #expect(pair.publicKey.bytes == publicKey, comment)
            #expect(pair.secretKey.bytesForTesting == secretKey, comment)
        } else {
            let given = try #require(argument as? [String: String], comment)
            #expect(given == expected, comment)
            #expect(try SigningKeyPair(secretKey: secretKey).publicKey.bytes == publicKey, comment)
        }
    }
}
