import Testing

@testable import ConfabCrypto

/// shs1-handshake.json: one complete run of the C reference implementation.
struct SHS1Vector: Decodable {
    struct Party: Decodable {
        let publicKey: String
        let secretKey: String
        let ephemeralPublic: String
        let ephemeralSecret: String
    }

    struct Messages: Decodable {
        let clientChallenge: String
        let serverChallenge: String
        let clientAuth: String
        let serverAccept: String

        enum CodingKeys: String, CodingKey {
            case clientChallenge = "1ClientChallenge"  // "1_client_challenge" after snake-case conversion
            case serverChallenge = "2ServerChallenge"
            case clientAuth = "3ClientAuth"
            case serverAccept = "4ServerAccept"
        }
    }

    struct Keys: Decodable {
        let encryptionKey: String
        let encryptionNonce: String
        let decryptionKey: String
        let decryptionNonce: String
    }

    struct Outcomes: Decodable {
        let client: Keys
        let server: Keys
    }

    let networkKey: String
    let client: Party
    let server: Party
    let messages: Messages
    let outcome: Outcomes

    static func load() throws -> SHS1Vector {
        try FixtureLoader.decode(SHS1Vector.self, from: "shs1-handshake", snakeCaseKeys: true)
    }

    func keyPair(_ party: Party) throws -> SigningKeyPair { try SigningKeyPair(secretKey: hex(party.secretKey)) }

    func ephemeral(_ party: Party) throws -> Curve25519KeyPair {
        let pair = try Curve25519KeyPair(secretKey: hex(party.ephemeralSecret))
        #expect(pair.publicKey == (try hex(party.ephemeralPublic)))
        return pair
    }

    func makeClient() throws -> SecretHandshakeClient {
        try SecretHandshakeClient(
            networkKey: hex(networkKey), keyPair: keyPair(client),
            serverPublicKey: SigningPublicKey(bytes: hex(server.publicKey)), ephemeralKeyPair: ephemeral(client))
    }

    func makeServer() throws -> SecretHandshakeServer {
        try SecretHandshakeServer(
            networkKey: hex(networkKey), keyPair: keyPair(server), ephemeralKeyPair: ephemeral(server))
    }
}

func expectOutcome(
    _ outcome: SecretHandshakeOutcome, equals keys: SHS1Vector.Keys, remote: String,
    sourceLocation: SourceLocation = #_sourceLocation
) throws {
    #expect(outcome.remotePublicKey.bytes == (try hex(remote)), sourceLocation: sourceLocation)
    #expect(outcome.encryptionKey.bytesForTesting == (try hex(keys.encryptionKey)), sourceLocation: sourceLocation)
    #expect(outcome.encryptionNonce == (try hex(keys.encryptionNonce)), sourceLocation: sourceLocation)
    #expect(outcome.decryptionKey.bytesForTesting == (try hex(keys.decryptionKey)), sourceLocation: sourceLocation)
    #expect(outcome.decryptionNonce == (try hex(keys.decryptionNonce)), sourceLocation: sourceLocation)
}

@Suite("Secret handshake: shs1-c vector")
struct SecretHandshakeVectorTests {
    @Test func fullRunMatchesByteForByte() throws {
        let vector = try SHS1Vector.load()
        var client = try vector.makeClient()
        var server = try vector.makeServer()

        let message1 = client.challenge
        #expect(message1 == (try hex(vector.messages.clientChallenge)))
        let message2 = try server.receiveClientChallenge(message1)
        #expect(message2 == (try hex(vector.messages.serverChallenge)))
        let message3 = try client.receiveServerChallenge(message2)
        #expect(message3 == (try hex(vector.messages.clientAuth)))
        let (message4, serverOutcome) = try server.receiveClientAuth(message3)
        #expect(message4 == (try hex(vector.messages.serverAccept)))
        let clientOutcome = try client.receiveServerAccept(message4)

        #expect(message1.count == 64 && message2.count == 64 && message3.count == 112 && message4.count == 80)
        try expectOutcome(clientOutcome, equals: vector.outcome.client, remote: vector.server.publicKey)
        try expectOutcome(serverOutcome, equals: vector.outcome.server, remote: vector.client.publicKey)
        #expect(clientOutcome.encryptionKey.isEqual(to: serverOutcome.decryptionKey))
        #expect(clientOutcome.decryptionKey.isEqual(to: serverOutcome.encryptionKey))
        #expect(clientOutcome.encryptionNonce == serverOutcome.decryptionNonce)
        #expect(clientOutcome.decryptionNonce == serverOutcome.encryptionNonce)
    }

    @Test func eachSideAcceptsTheRecordedMessagesOfTheOther() throws {
        let vector = try SHS1Vector.load()
        // Server fed the recorded client messages only.
        var server = try vector.makeServer()
        _ = try server.receiveClientChallenge(hex(vector.messages.clientChallenge))
        let (_, serverOutcome) = try server.receiveClientAuth(hex(vector.messages.clientAuth))
        try expectOutcome(serverOutcome, equals: vector.outcome.server, remote: vector.client.publicKey)
        // Client fed the recorded server messages only.
        var client = try vector.makeClient()
        _ = try client.receiveServerChallenge(hex(vector.messages.serverChallenge))
        let clientOutcome = try client.receiveServerAccept(hex(vector.messages.serverAccept))
        try expectOutcome(clientOutcome, equals: vector.outcome.client, remote: vector.server.publicKey)
    }
}
