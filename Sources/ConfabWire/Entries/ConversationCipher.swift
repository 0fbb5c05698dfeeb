import ConfabCrypto
import ConfabModel
import Foundation
import SwiftProtobuf

/// End-to-end encryption of a conversation's content. Each conversation has a random
/// XChaCha20-Poly1305 key, handed to each participant sealed to its identity in the create
/// entry. Message ciphertexts are bound to their entry's position (conversation, author,
/// seq) through the associated data, so one cannot be replayed as another.
public enum ConversationCipher {
    public static let overhead = AEAD.nonceLength + AEAD.tagLength
    public static let sealedKeyLength = AEAD.keyLength + SealedBox.overhead

    public static func generateKey() -> SecureBytes { AEAD.generateKey() }

    public static func sealKey(_ key: SecureBytes, to participant: NodeID) throws(CryptoError) -> [UInt8] {
        var copy = key.unsafeCopy
        defer { copy.wipe() }
        return try SealedBox.seal(copy, to: participant.signingKey)
    }

    public static func openKey(_ sealed: [UInt8], with keyPair: SigningKeyPair) throws(CryptoError) -> SecureBytes {
        let key = try SealedBox.open(sealed, with: keyPair)
        guard key.count == AEAD.keyLength else {
            throw .invalidLength("conversation key", expected: AEAD.keyLength, actual: key.count)
        }
        return key
    }

    public static func sealTitle(
        _ title: String, key: SecureBytes, conversationID: ConversationID
    ) throws(CryptoError) -> [UInt8] {
        guard !title.isEmpty else { return [] }
        return try AEAD.seal(Array(title.utf8), key: key, additionalData: EntryDomain.title + conversationID.bytes)
    }

    public static func openTitle(
        _ sealed: [UInt8], key: SecureBytes, conversationID: ConversationID
    ) throws(CryptoError) -> String? {
        guard !sealed.isEmpty else { return nil }
        let bytes = try AEAD.open(sealed, key: key, additionalData: EntryDomain.title + conversationID.bytes)
        return String(decoding: bytes, as: UTF8.self)
    }

    public static func sealMessage(
        _ text: String, key: SecureBytes, conversationID: ConversationID, author: NodeID, seq: UInt64
    ) throws(CryptoError) -> [UInt8] {
        var plaintext = Confab_V1_MessagePlaintext()
        plaintext.text = text
        var bytes: [UInt8] = try! plaintext.serializedBytes()
        defer { bytes.wipe() }
        return try AEAD.seal(
            bytes, key: key, additionalData: messageAAD(conversationID: conversationID, author: author, seq: seq))
    }

    /// Opens a message body. A body that authenticates but does not decode as plaintext is
    /// reported as a failure too: the author's software is broken, not the reader's.
    public static func openMessage(
        _ sealed: [UInt8], key: SecureBytes, conversationID: ConversationID, author: NodeID, seq: UInt64
    ) throws(CryptoError) -> String {
        var bytes = try AEAD.open(
            sealed, key: key, additionalData: messageAAD(conversationID: conversationID, author: author, seq: seq))
        defer { bytes.wipe() }
        guard
            let plaintext = try? Confab_V1_MessagePlaintext(
                serializedBytes: bytes, options: EntryCodec.decodingOptions)
        else {
            throw .operationFailed("message plaintext decoding")
        }
        return plaintext.text
    }

    private static func messageAAD(conversationID: ConversationID, author: NodeID, seq: UInt64) -> [UInt8] {
        var aad = EntryDomain.message + conversationID.bytes + author.bytes
        withUnsafeBytes(of: seq.bigEndian) { aad.append(contentsOf: $0) }
        return aad
    }
}
