import ConfabCrypto
import ConfabModel
import Foundation
import SwiftProtobuf

/// Messages and edits (Protocol.md §4.5): the text with the message it replies to and the
/// people it mentions, sealed as `MessagePlaintext`.
extension ConversationCipher {
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
        return try seal(
            bytes, domain: EntryDomain.message, key: key, conversationID: conversationID, author: author, seq: seq)
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
        var bytes = try open(
            sealed, domain: EntryDomain.message, key: key, conversationID: conversationID, author: author, seq: seq)
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

    static func encodeRef(_ ref: MessageRef) -> Confab_V1_MessageRef {
        var encoded = Confab_V1_MessageRef()
        encoded.author = Data(ref.author.bytes)
        encoded.seq = ref.seq
        return encoded
    }

    static func decodeRef(_ ref: Confab_V1_MessageRef) -> MessageRef? {
        guard let author = NodeID(bytes: ref.author), (1...Limits.maxSeq).contains(ref.seq) else { return nil }
        return MessageRef(author: author, seq: ref.seq)
    }
}
