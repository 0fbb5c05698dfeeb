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
        try sealMessage(MessageContent(text: text), key: key, conversationID: conversationID, author: author, seq: seq)
    }

    /// Seals a message's (or an edit's) text with its reply and mentions.
    public static func sealMessage(
        _ content: MessageContent, key: SecureBytes, conversationID: ConversationID, author: NodeID, seq: UInt64
    ) throws(CryptoError) -> [UInt8] {
        var bytes = encodedPlaintext(content)
        defer { bytes.wipe() }
        return try AEAD.seal(
            bytes, key: key,
            additionalData: aad(EntryDomain.message, conversationID: conversationID, author: author, seq: seq))
    }

    /// The size of `content` encoded as `MessagePlaintext`, which must be at most
    /// `Limits.maxMessagePlaintextBytes` (a reply and mentions take from the text's room).
    public static func plaintextSize(of content: MessageContent) -> Int {
        var bytes = encodedPlaintext(content)
        defer { bytes.wipe() }
        return bytes.count
    }

    private static func encodedPlaintext(_ content: MessageContent) -> [UInt8] {
        var plaintext = Confab_V1_MessagePlaintext()
        plaintext.text = content.text
        if let reply = content.replyTo { plaintext.replyTo = encodeRef(reply) }
        plaintext.mentions = content.mentions.map { mention in
            var encoded = Confab_V1_Mention()
            encoded.key = Data(mention.person.bytes)
            encoded.start = UInt32(clamping: mention.start)
            encoded.length = UInt32(clamping: mention.length)
            return encoded
        }
        return try! plaintext.serializedBytes()
    }

    /// Opens a message body's text.
    public static func openMessage(
        _ sealed: [UInt8], key: SecureBytes, conversationID: ConversationID, author: NodeID, seq: UInt64
    ) throws(CryptoError) -> String {
        try openMessageContent(sealed, key: key, conversationID: conversationID, author: author, seq: seq).text
    }

    /// Opens a message body (or an edit's). A body that authenticates but does not decode as
    /// plaintext is reported as a failure too: the author's software is broken, not the
    /// reader's. A reply reference or a mention whose key or seq is malformed is dropped,
    /// the text kept; whether the rest holds (the message exists, the key is a member, the
    /// range names it) depends on the store and is the reader's to check (Protocol.md §4.5).
    public static func openMessageContent(
        _ sealed: [UInt8], key: SecureBytes, conversationID: ConversationID, author: NodeID, seq: UInt64
    ) throws(CryptoError) -> MessageContent {
        var bytes = try AEAD.open(
            sealed, key: key,
            additionalData: aad(EntryDomain.message, conversationID: conversationID, author: author, seq: seq))
        defer { bytes.wipe() }
        return try decodeMessagePlaintext(bytes)
    }

    /// Decodes an opened `MessagePlaintext` (what a member's node reads from every message
    /// and edit it opens: the fuzzers feed it bytes directly).
    public static func decodeMessagePlaintext(_ bytes: [UInt8]) throws(CryptoError) -> MessageContent {
        guard
            let plaintext = try? Confab_V1_MessagePlaintext(
                serializedBytes: bytes, options: EntryCodec.decodingOptions)
        else {
            throw .operationFailed("message plaintext decoding")
        }
        return decodeContent(plaintext)
    }

    static func decodeContent(_ plaintext: Confab_V1_MessagePlaintext) -> MessageContent {
        var content = MessageContent(text: plaintext.text)
        if plaintext.hasReplyTo { content.replyTo = decodeRef(plaintext.replyTo) }
        content.mentions = plaintext.mentions.prefix(Limits.maxMentions).compactMap { mention in
            guard let person = NodeID(bytes: mention.key), mention.length > 0 else { return nil }
            return Mention(person: person, start: Int(mention.start), length: Int(mention.length))
        }
        return content
    }

    /// Encoded `ReactionPlaintext` at most: a reference (44 bytes), an emoji of 64 bytes and
    /// its header, the flag, and slack.
    public static let maxReactionPlaintextBytes = 128

    /// Seals a reaction for the `react` entry of `author` at `seq`.
    public static func sealReaction(
        _ reaction: ReactionContent, key: SecureBytes, conversationID: ConversationID, author: NodeID, seq: UInt64
    ) throws(CryptoError) -> [UInt8] {
        var plaintext = Confab_V1_ReactionPlaintext()
        plaintext.target = encodeRef(reaction.target)
        plaintext.emoji = reaction.emoji
        plaintext.remove = reaction.removed
        var bytes: [UInt8] = try! plaintext.serializedBytes()
        defer { bytes.wipe() }
        return try AEAD.seal(
            bytes, key: key,
            additionalData: aad(EntryDomain.reaction, conversationID: conversationID, author: author, seq: seq))
    }

    /// Opens a reaction. One that does not open, does not decode, or names no message or an
    /// emoji that is not one (`ReactionEmoji.isValid`) is a failure: it changes nothing.
    public static func openReaction(
        _ sealed: [UInt8], key: SecureBytes, conversationID: ConversationID, author: NodeID, seq: UInt64
    ) throws(CryptoError) -> ReactionContent {
        var bytes = try AEAD.open(
            sealed, key: key,
            additionalData: aad(EntryDomain.reaction, conversationID: conversationID, author: author, seq: seq))
        defer { bytes.wipe() }
        return try decodeReactionPlaintext(bytes)
    }

    /// Decodes an opened `ReactionPlaintext` and checks it (`openReaction`).
    public static func decodeReactionPlaintext(_ bytes: [UInt8]) throws(CryptoError) -> ReactionContent {
        guard
            let plaintext = try? Confab_V1_ReactionPlaintext(
                serializedBytes: bytes, options: EntryCodec.decodingOptions)
        else { throw .operationFailed("reaction plaintext decoding") }
        return try decodeReaction(plaintext)
    }

    static func decodeReaction(_ plaintext: Confab_V1_ReactionPlaintext) throws(CryptoError) -> ReactionContent {
        guard plaintext.hasTarget, let target = decodeRef(plaintext.target) else {
            throw .operationFailed("reaction without a valid target")
        }
        guard ReactionEmoji.isValid(plaintext.emoji) else { throw .operationFailed("reaction emoji") }
        return ReactionContent(target: target, emoji: plaintext.emoji, removed: plaintext.remove)
    }

    private static func encodeRef(_ ref: MessageRef) -> Confab_V1_MessageRef {
        var encoded = Confab_V1_MessageRef()
        encoded.author = Data(ref.author.bytes)
        encoded.seq = ref.seq
        return encoded
    }

    private static func decodeRef(_ ref: Confab_V1_MessageRef) -> MessageRef? {
        guard let author = NodeID(bytes: ref.author), (1...Limits.maxSeq).contains(ref.seq) else { return nil }
        return MessageRef(author: author, seq: ref.seq)
    }

    private static func aad(
        _ domain: [UInt8], conversationID: ConversationID, author: NodeID, seq: UInt64
    ) -> [UInt8] {
        var aad = domain + conversationID.bytes + author.bytes
        withUnsafeBytes(of: seq.bigEndian) { aad.append(contentsOf: $0) }
        return aad
    }
}
