import Testing

@testable import ConfabCrypto

@Suite("KeyWraps")
struct KeyWrapsTests {
    /// From Tests/Vectors/key_wraps.py (PyNaCl): `e` = 0x01…0x20, recipients from the Ed25519
    /// seeds 0x11… and 0x22…, `K` = 0x42…, conversation id 0xc0…, author from the seed 0x33…,
    /// seq 7.
    enum Vector {
        static let ephemeralSecret = [UInt8](1...32)
        static let recipientSeeds: [UInt8] = [0x11, 0x22]
        static let key = [UInt8](repeating: 0x42, count: 32)
        static let conversationID = [UInt8](repeating: 0xc0, count: 16)
        static let authorSeed: UInt8 = 0x33
        static let seq: UInt64 = 7
        static let recipients = [
            "d04ab232742bb4ab3a1368bd4615e4e6d0224ab71a016baf8520a332c9778737",
            "a09aa5f47a6759802ff955f8dc2d2a14a5c99d23be97f864127ff9383455a4f0",
        ]
        static let author = "17cb79fb2b4120f2b1ec65e4198d6e08b28e813feb01e4a400839b85e18080ce"
        static let context =
            "c0c0c0c0c0c0c0c0c0c0c0c0c0c0c0c017cb79fb2b4120f2b1ec65e4198d6e08b28e813feb01e4a400839b85e18080ce0000000000000007"
        static let ephemeral = "07a37cbc142093c8b755dc1b10e86cb426374ad16aa853ed0bdfc0b2b86d1c7c"
        static let wraps =
            "cd0b8f8d0ade04be6bcba9cbba32bc19f7fdbaab7def11e6a70f54f08cdc1a20"
            + "24f05d76922de4583cbd5516514d01ec59cd784e70477f9ba1a83935987594eb"
    }

    static func keyPair(_ byte: UInt8) throws -> SigningKeyPair {
        try SigningKeyPair(seed: [UInt8](repeating: byte, count: 32))
    }

    static func context() throws -> [UInt8] {
        try KeyWraps.context(
            conversationID: Vector.conversationID, author: keyPair(Vector.authorSeed).publicKey, seq: 9)
    }

    @Test func matchesTheIndependentVector() throws {
        let recipients = try Vector.recipientSeeds.map(Self.keyPair)
        #expect(recipients.map { Hex.encode($0.publicKey.bytes) } == Vector.recipients)
        let author = try Self.keyPair(Vector.authorSeed).publicKey
        #expect(Hex.encode(author.bytes) == Vector.author)
        let context = try KeyWraps.context(conversationID: Vector.conversationID, author: author, seq: Vector.seq)
        #expect(Hex.encode(context) == Vector.context)

        let wrapped = try KeyWraps.wrap(
            SecureBytes(Vector.key), to: recipients.map(\.publicKey), context: context,
            ephemeralKeyPair: Curve25519KeyPair(secretKey: Vector.ephemeralSecret))
        #expect(Hex.encode(wrapped.ephemeral) == Vector.ephemeral)
        #expect(Hex.encode(wrapped.wraps) == Vector.wraps)

        let ephemeral = try hex(Vector.ephemeral)
        let wraps = try hex(Vector.wraps)
        for (index, recipient) in recipients.enumerated() {
            let opened = try #require(
                KeyWraps.open(wraps, at: index, ephemeral: ephemeral, with: recipient, context: context))
            #expect(opened.bytesForTesting == Vector.key)
        }
    }

    @Test func eachOfThreeRecipientsOpensItsOwnWrap() throws {
        let recipients = try [0x01, 0x02, 0x03].map(Self.keyPair)
        let key = AEAD.generateKey()
        let context = try Self.context()
        let wrapped = try KeyWraps.wrap(key, to: recipients.map(\.publicKey), context: context)
        #expect(wrapped.ephemeral.count == 32)
        #expect(wrapped.wraps.count == 3 * KeyWraps.wrapLength)
        for (index, recipient) in recipients.enumerated() {
            let opened = try #require(
                KeyWraps.open(wrapped.wraps, at: index, ephemeral: wrapped.ephemeral, with: recipient, context: context)
            )
            #expect(opened.isEqual(to: key))
        }
        // A fresh ephemeral per call: wrapping again gives other bytes.
        let again = try KeyWraps.wrap(key, to: recipients.map(\.publicKey), context: context)
        #expect(again.ephemeral != wrapped.ephemeral)
        #expect(again.wraps != wrapped.wraps)
    }

    @Test func theWrongIndexKeyOrContextOpensToAnotherKey() throws {
        let recipients = try [0x01, 0x02, 0x03].map(Self.keyPair)
        let key = AEAD.generateKey()
        let context = try Self.context()
        let wrapped = try KeyWraps.wrap(key, to: recipients.map(\.publicKey), context: context)

        func opens(_ index: Int, _ keyPair: SigningKeyPair, _ context: [UInt8]) -> Bool {
            guard
                let opened = KeyWraps.open(
                    wrapped.wraps, at: index, ephemeral: wrapped.ephemeral, with: keyPair, context: context)
            else { return false }
            return opened.isEqual(to: key)
        }
        #expect(!opens(1, recipients[0], context))
        #expect(!opens(0, recipients[1], context))
        #expect(!opens(0, try Self.keyPair(0x04), context))
        let otherContext = try KeyWraps.context(
            conversationID: Vector.conversationID, author: recipients[0].publicKey, seq: 9)
        #expect(!opens(0, recipients[0], otherContext))
        // Out of range or malformed: nothing to open.
        for index in [-1, 3] {
            #expect(
                KeyWraps.open(
                    wrapped.wraps, at: index, ephemeral: wrapped.ephemeral, with: recipients[0], context: context)
                    == nil)
        }
        #expect(
            KeyWraps.open(
                Array(wrapped.wraps.dropLast()), at: 0, ephemeral: wrapped.ephemeral, with: recipients[0],
                context: context) == nil)
        #expect(
            KeyWraps.open(
                wrapped.wraps, at: 0, ephemeral: Array(wrapped.ephemeral.dropLast()), with: recipients[0],
                context: context) == nil)
        #expect(
            KeyWraps.open(
                wrapped.wraps, at: 0, ephemeral: wrapped.ephemeral, with: recipients[0],
                context: Array(context.dropLast())) == nil)
    }

    @Test func anEphemeralOfSmallOrderDoesNotOpen() throws {
        let recipient = try Self.keyPair(0x01)
        let context = try Self.context()
        let wraps = [UInt8](repeating: 0x42, count: 32)
        #expect(
            KeyWraps.open(wraps, at: 0, ephemeral: [UInt8](repeating: 0, count: 32), with: recipient, context: context)
                == nil)
        // The point of order 2 (u = p − 1) too.
        let orderTwo = try hex("ecffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f")
        #expect(KeyWraps.open(wraps, at: 0, ephemeral: orderTwo, with: recipient, context: context) == nil)
    }

    @Test func refusesRecipientsWithoutAnX25519FormAndMalformedInputs() throws {
        let good = try Self.keyPair(0x01).publicKey
        let context = try Self.context()
        let key = AEAD.generateKey()
        // y = 2 is not on the curve; y = 1 is the identity, of small order.
        for bad in ["02" + String(repeating: "00", count: 31), "01" + String(repeating: "00", count: 31)] {
            let recipient = try SigningPublicKey(bytes: hex(bad))
            #expect(throws: CryptoError.self) { try KeyWraps.wrap(key, to: [good, recipient], context: context) }
        }
        #expect(throws: CryptoError.self) {
            try KeyWraps.wrap(SecureBytes(count: 31), to: [good], context: context)
        }
        #expect(throws: CryptoError.self) {
            try KeyWraps.wrap(key, to: [good], context: Array(context.dropLast()))
        }
        #expect(throws: CryptoError.self) {
            try KeyWraps.context(conversationID: [UInt8](repeating: 0, count: 15), author: good, seq: 1)
        }
    }
}
