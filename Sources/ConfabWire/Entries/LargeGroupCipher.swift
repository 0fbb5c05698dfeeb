import ConfabCrypto
import ConfabModel

/// The keys of a large group (Protocol.md §19): wrapped to each recipient in 32 bytes, and
/// on an add derived from the key in force, so that an add costs what it adds.
public enum LargeGroupCipher {
    /// `K_add = BLAKE2b-256(key = K_prev, "confab/add-key/v1" ‖ 0x00 ‖ conversation_id ‖ author ‖ u64be(seq))`.
    public static func derivedKey(
        from previous: SecureBytes, conversationID: ConversationID, author: NodeID, seq: UInt64
    ) -> SecureBytes {
        var key = previous.unsafeCopy
        defer { key.wipe() }
        var derived = Hash.blake2b(EntryDomain.addKey + position(conversationID, author: author, seq: seq), key: key)
        defer { derived.wipe() }
        return SecureBytes(derived)
    }

    /// `key` wrapped to each of `recipients`, in their order.
    public static func wrap(
        _ key: SecureBytes, to recipients: [NodeID], conversationID: ConversationID, author: NodeID, seq: UInt64,
        keys: SealingKeys = SealingKeys()
    ) throws(CryptoError) -> WrappedKeys {
        var bound: [KeyWraps.Recipient] = []
        bound.reserveCapacity(recipients.count)
        for recipient in recipients { bound.append(try keys.recipient(recipient)) }
        let wrapped = try KeyWraps.wrap(
            key, to: bound,
            context: KeyWraps.context(conversationID: conversationID.bytes, author: author.signingKey, seq: seq))
        return WrappedKeys(ephemeral: wrapped.ephemeral, wraps: wrapped.wraps)
    }

    /// The key wrapped to `identity` as the `index`-th recipient, if it opens and matches
    /// `commitment` (the signed entry's word, which a wrap alone is not).
    public static func open(
        _ wrapped: WrappedKeys, index: Int, with identity: SigningKeyPair, commitment: (SecureBytes) -> [UInt8],
        expected: [UInt8], conversationID: ConversationID, author: NodeID, seq: UInt64
    ) -> SecureBytes? {
        open(
            wrapped, index: index, with: OpeningKeys(identity: identity), commitment: commitment, expected: expected,
            conversationID: conversationID, author: author, seq: seq)
    }

    /// As above with each of my person's keys in turn: the wrap is bound to the member key
    /// and made with its own key or its person's encryption key (Protocol.md §20.12).
    public static func open(
        _ wrapped: WrappedKeys, index: Int, with keys: OpeningKeys, commitment: (SecureBytes) -> [UInt8],
        expected: [UInt8], conversationID: ConversationID, author: NodeID, seq: UInt64
    ) -> SecureBytes? {
        guard
            let context = try? KeyWraps.context(
                conversationID: conversationID.bytes, author: author.signingKey, seq: seq)
        else { return nil }
        for exchange in keys.exchangeKeys {
            if let key = KeyWraps.open(
                wrapped.wraps, at: index, ephemeral: wrapped.ephemeral, with: exchange,
                boundTo: keys.member.signingKey, context: context),
                commitment(key) == expected
            {
                return key
            }
        }
        return nil
    }

    private static func position(_ conversationID: ConversationID, author: NodeID, seq: UInt64) -> [UInt8] {
        var bytes = conversationID.bytes + author.bytes
        withUnsafeBytes(of: seq.bigEndian) { bytes.append(contentsOf: $0) }
        return bytes
    }
}
