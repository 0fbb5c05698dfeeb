import ConfabCrypto
import ConfabModel
import Foundation
import SwiftProtobuf

/// Reactions (Protocol.md §4.5, "react"): which message, which emoji, added or taken back,
/// sealed whole as `ReactionPlaintext` under their own domain.
extension ConversationCipher {
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
        return try seal(
            bytes, domain: EntryDomain.reaction, key: key, conversationID: conversationID, author: author, seq: seq)
    }

    /// Opens a reaction. One that does not open, does not decode, or names no message or an
    /// emoji that is not one (`ReactionEmoji.isValid`) is a failure: it changes nothing.
    public static func openReaction(
        _ sealed: [UInt8], key: SecureBytes, conversationID: ConversationID, author: NodeID, seq: UInt64
    ) throws(CryptoError) -> ReactionContent {
        var bytes = try open(
            sealed, domain: EntryDomain.reaction, key: key, conversationID: conversationID, author: author, seq: seq)
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
}
