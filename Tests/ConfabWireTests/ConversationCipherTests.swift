import ConfabCrypto
import ConfabModel
import Testing

@testable import ConfabWire

@Suite("ConversationCipher")
struct ConversationCipherTests {
    let key = ConversationCipher.generateKey()
    let other = ConversationID(bytes: [UInt8](repeating: 0x20, count: 16))!

    @Test(arguments: [Keys.alice, Keys.bob, Keys.carol])
    func everyParticipantOpensItsSealedKey(_ participant: SigningKeyPair) throws {
        let sealed = try ConversationCipher.sealKey(key, to: participant.id)
        #expect(sealed.count == ConversationCipher.sealedKeyLength)
        #expect(try ConversationCipher.openKey(sealed, with: participant).isEqual(to: key))
    }

    @Test func aNonParticipantCannotOpenAKey() throws {
        for participant in [Keys.alice, Keys.bob, Keys.carol] {
            let sealed = try ConversationCipher.sealKey(key, to: participant.id)
            #expect(throws: CryptoError.self) { try ConversationCipher.openKey(sealed, with: Keys.mallory) }
        }
    }

    @Test func aTamperedSealedKeyDoesNotOpen() throws {
        var sealed = try ConversationCipher.sealKey(key, to: Keys.bob.id)
        sealed[sealed.count / 2] ^= 0x40
        #expect(throws: CryptoError.self) { try ConversationCipher.openKey(sealed, with: Keys.bob) }
    }

    @Test func messageRoundTrip() throws {
        for text in ["hi", "", "multi\nline ünïcödé 🎉", String(repeating: "x", count: Limits.maxMessageTextBytes)] {
            let sealed = try ConversationCipher.sealMessage(
                text, key: key, conversationID: conversation, author: Keys.alice.id, seq: 4)
            #expect(
                try ConversationCipher.openMessage(
                    sealed, key: key, conversationID: conversation, author: Keys.alice.id, seq: 4) == text)
        }
    }

    @Test func freshNoncePerSeal() throws {
        let a = try ConversationCipher.sealMessage(
            "same", key: key, conversationID: conversation, author: Keys.alice.id, seq: 1)
        let b = try ConversationCipher.sealMessage(
            "same", key: key, conversationID: conversation, author: Keys.alice.id, seq: 1)
        #expect(a != b)
    }

    /// A ciphertext belongs to one position in one log: replayed at another seq, under
    /// another author or in another conversation it must not open.
    @Test func messageIsBoundToItsPosition() throws {
        let sealed = try ConversationCipher.sealMessage(
            "pay 10", key: key, conversationID: conversation, author: Keys.alice.id, seq: 4)
        #expect(throws: CryptoError.self) {
            try ConversationCipher.openMessage(
                sealed, key: key, conversationID: conversation, author: Keys.alice.id, seq: 5)
        }
        #expect(throws: CryptoError.self) {
            try ConversationCipher.openMessage(
                sealed, key: key, conversationID: conversation, author: Keys.bob.id, seq: 4)
        }
        #expect(throws: CryptoError.self) {
            try ConversationCipher.openMessage(sealed, key: key, conversationID: other, author: Keys.alice.id, seq: 4)
        }
        #expect(throws: CryptoError.self) {
            try ConversationCipher.openMessage(
                sealed, key: ConversationCipher.generateKey(), conversationID: conversation, author: Keys.alice.id,
                seq: 4)
        }
        var tampered = sealed
        tampered[tampered.count - 1] ^= 1
        #expect(throws: CryptoError.self) {
            try ConversationCipher.openMessage(
                tampered, key: key, conversationID: conversation, author: Keys.alice.id, seq: 4)
        }
    }

    @Test func titleRoundTripAndBinding() throws {
        let sealed = try ConversationCipher.sealTitle("Book club 📚", key: key, conversationID: conversation)
        #expect(try ConversationCipher.openTitle(sealed, key: key, conversationID: conversation) == "Book club 📚")
        #expect(throws: CryptoError.self) { try ConversationCipher.openTitle(sealed, key: key, conversationID: other) }
        // Domain separation: a title is not a message, even at a matching position.
        #expect(throws: CryptoError.self) {
            try ConversationCipher.openMessage(
                sealed, key: key, conversationID: conversation, author: Keys.alice.id, seq: 1)
        }
    }

    @Test func emptyTitleIsNoTitle() throws {
        #expect(try ConversationCipher.sealTitle("", key: key, conversationID: conversation).isEmpty)
        #expect(try ConversationCipher.openTitle([], key: key, conversationID: conversation) == nil)
    }

    @Test func aMessageThatIsNotPlaintextFails() throws {
        // Authenticates under the right key and position, but is not a MessagePlaintext.
        var aad = EntryDomain.message + conversation.bytes + Keys.alice.id.bytes
        withUnsafeBytes(of: UInt64(1).bigEndian) { aad.append(contentsOf: $0) }
        let sealed = try AEAD.seal([0xff, 0xff, 0xff], key: key, additionalData: aad)
        #expect(throws: CryptoError.self) {
            try ConversationCipher.openMessage(
                sealed, key: key, conversationID: conversation, author: Keys.alice.id, seq: 1)
        }
    }
}
