import ConfabCrypto
import ConfabModel
import Foundation
import SwiftProtobuf

/// The sealed parts of membership (Protocol.md §4.8): each epoch's fresh key, sealed to
/// every member after the change and committed to at the entry's position; the names
/// members go by, sealed under that key; and earlier epoch keys shared with an added
/// member, sealed to it alone.
public enum MembershipCipher {
    /// `BLAKE2b-256("confab/epoch-key/v1" ‖ 0x00 ‖ conversation_id ‖ author ‖ u64be(seq) ‖ key)`.
    public static func epochCommitment(
        _ key: SecureBytes, conversationID: ConversationID, author: NodeID, seq: UInt64
    ) -> [UInt8] {
        var input = EntryDomain.epochKey + position(conversationID, author: author, seq: seq) + key.unsafeCopy
        defer { input.wipe() }
        return Hash.blake2b(input, length: ConversationGenesis.commitmentLength)
    }

    /// A fresh epoch key sealed to each of `members`, and its commitment.
    public static func makeEpoch(
        for members: [NodeID], conversationID: ConversationID, author: NodeID, seq: UInt64,
        sealingKeys: SealingKeys = SealingKeys()
    ) throws(CryptoError) -> (key: SecureBytes, keys: [CreateBody.Participant], commitment: [UInt8]) {
        let key = ConversationCipher.generateKey()
        var keys: [CreateBody.Participant] = []
        for member in members {
            keys.append(
                .init(id: member, sealedKey: try ConversationCipher.sealKey(key, to: member, keys: sealingKeys)))
        }
        return (key, keys, epochCommitment(key, conversationID: conversationID, author: author, seq: seq))
    }

    /// The names, sealed under `key` at the entry's position; empty when there are none.
    public static func sealNames(
        _ names: [(key: NodeID, name: String)], key: SecureBytes, conversationID: ConversationID, author: NodeID,
        seq: UInt64
    ) throws(CryptoError) -> [UInt8] {
        guard !names.isEmpty else { return [] }
        var plaintext = Confab_V1_MemberNames()
        plaintext.names = names.prefix(Limits.maxParticipants).map { item in
            var name = Confab_V1_MemberName()
            name.key = Data(item.key.bytes)
            name.name = String(decoding: Array(item.name.utf8.prefix(Limits.maxNameBytes)), as: UTF8.self)
            return name
        }
        let bytes: [UInt8] = try! plaintext.serializedBytes()
        return try AEAD.seal(
            bytes, key: key, additionalData: EntryDomain.names + position(conversationID, author: author, seq: seq))
    }

    /// The names sealed at an entry's position, as claims: a name over its limit, a key that
    /// is not 32 bytes, a key named twice (the first counts) or more than 64 names are
    /// dropped, never an error. Nothing when they do not open.
    public static func openNames(
        _ sealed: [UInt8], key: SecureBytes, conversationID: ConversationID, author: NodeID, seq: UInt64
    ) -> [(key: NodeID, name: String)] {
        guard !sealed.isEmpty,
            let bytes = try? AEAD.open(
                sealed, key: key, additionalData: EntryDomain.names + position(conversationID, author: author, seq: seq)
            ),
            let plaintext = try? Confab_V1_MemberNames(serializedBytes: bytes, options: EntryCodec.decodingOptions)
        else { return [] }
        var seen = Set<NodeID>()
        var names: [(key: NodeID, name: String)] = []
        for item in plaintext.names.prefix(Limits.maxParticipants) {
            guard let key = NodeID(bytes: item.key), item.name.utf8.count <= Limits.maxNameBytes,
                seen.insert(key).inserted
            else { continue }
            names.append((key, item.name))
        }
        return names
    }

    /// Earlier epoch keys for one added member, sealed to it alone.
    public static func sealHistory(
        _ epochs: [(epoch: EntryRef, key: SecureBytes)], to member: NodeID, keys: SealingKeys = SealingKeys()
    ) throws(CryptoError) -> [UInt8] {
        var plaintext = Confab_V1_EpochKeys()
        plaintext.keys = epochs.suffix(EntryCodec.maxSharedEpochs).map { item in
            var key = Confab_V1_EpochKey()
            key.author = Data(item.epoch.author.bytes)
            key.seq = item.epoch.seq
            key.key = Data(item.key.unsafeCopy)
            return key
        }
        var bytes: [UInt8] = try! plaintext.serializedBytes()
        defer { bytes.wipe() }
        return try SealedBox.seal(bytes, toExchangeKey: try keys.exchangeKey(for: member))
    }

    /// The epoch keys sealed to `keyPair` in a shared history. The caller checks each
    /// against its epoch's commitment before using it: the sharer's word is a claim.
    public static func openHistory(
        _ sealed: [UInt8], with keyPair: SigningKeyPair
    ) -> [(epoch: EntryRef, key: SecureBytes)] {
        openHistory(sealed, with: OpeningKeys(identity: keyPair))
    }

    public static func openHistory(
        _ sealed: [UInt8], with keys: OpeningKeys
    ) -> [(epoch: EntryRef, key: SecureBytes)] {
        guard let opened = keys.open(sealed),
            let plaintext = try? Confab_V1_EpochKeys(
                serializedBytes: opened.unsafeCopy, options: EntryCodec.decodingOptions)
        else { return [] }
        return plaintext.keys.prefix(EntryCodec.maxSharedEpochs).compactMap { item in
            guard let author = NodeID(bytes: item.author), item.seq >= 1, item.seq <= Limits.maxSeq,
                item.key.count == AEAD.keyLength
            else { return nil }
            return (EntryRef(author: author, seq: item.seq), SecureBytes(item.key))
        }
    }

    private static func position(_ conversationID: ConversationID, author: NodeID, seq: UInt64) -> [UInt8] {
        var bytes = conversationID.bytes + author.bytes
        withUnsafeBytes(of: seq.bigEndian) { bytes.append(contentsOf: $0) }
        return bytes
    }
}
