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

    /// `key` sealed for `participant`: to its person's encryption key when `keys` holds one
    /// (Protocol.md §20.12), else to its own key.
    public static func sealKey(
        _ key: SecureBytes, to participant: NodeID, keys: SealingKeys = SealingKeys()
    ) throws(CryptoError) -> [UInt8] {
        var copy = key.unsafeCopy
        defer { copy.wipe() }
        return try SealedBox.seal(copy, toExchangeKey: try keys.exchangeKey(for: participant))
    }

    public static func openKey(_ sealed: [UInt8], with keyPair: SigningKeyPair) throws(CryptoError) -> SecureBytes {
        let key = try SealedBox.open(sealed, with: keyPair)
        guard key.count == AEAD.keyLength else {
            throw .invalidLength("conversation key", expected: AEAD.keyLength, actual: key.count)
        }
        return key
    }

    /// The key sealed for my person, opened with the first of my keys that opens it.
    public static func openKey(_ sealed: [UInt8], with keys: OpeningKeys) -> SecureBytes? {
        guard let key = keys.open(sealed), key.count == AEAD.keyLength else { return nil }
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

    /// Seals `plaintext` for the entry of `author` at `seq`, under `domain` (Protocol.md
    /// §4.7): bound to its conversation, author, position and kind.
    static func seal(
        _ plaintext: [UInt8], domain: [UInt8], key: SecureBytes, conversationID: ConversationID, author: NodeID,
        seq: UInt64
    ) throws(CryptoError) -> [UInt8] {
        try AEAD.seal(
            plaintext, key: key, additionalData: aad(domain, conversationID: conversationID, author: author, seq: seq))
    }

    /// Opens what `seal` sealed with the same domain and position; the caller wipes it.
    static func open(
        _ sealed: [UInt8], domain: [UInt8], key: SecureBytes, conversationID: ConversationID, author: NodeID,
        seq: UInt64
    ) throws(CryptoError) -> [UInt8] {
        try AEAD.open(
            sealed, key: key, additionalData: aad(domain, conversationID: conversationID, author: author, seq: seq))
    }

    private static func aad(
        _ domain: [UInt8], conversationID: ConversationID, author: NodeID, seq: UInt64
    ) -> [UInt8] {
        var aad = domain + conversationID.bytes + author.bytes
        withUnsafeBytes(of: seq.bigEndian) { aad.append(contentsOf: $0) }
        return aad
    }
}
