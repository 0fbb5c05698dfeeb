import CSodium

/// Key wraps (Protocol.md §19.1): a large group's 32-byte key handed to each member in 32
/// bytes, under one fresh X25519 key pair `(e, E)` per entry:
///
///     s_i    = X25519(e, X25519-public(r_i))
///     w_i    = BLAKE2b-256(key = s_i, domain ‖ context ‖ E ‖ r_i)
///     wrap_i = K ⊕ w_i
///
/// with, for a conversation's key, `domain = "confab/wrap/v1" ‖ 0x00` and `context =
/// conversation_id[16] ‖ author[32] ‖ u64be(seq)`; a person's encryption key wrapped to its
/// devices (Protocol.md §20.5) has a domain and context of its own (`Purpose`). A wrap carries
/// no tag: a wrong key opens to garbage, and the caller checks what opens against the entry's
/// key commitment.
public enum KeyWraps {
    public static let keyLength = 32
    /// Each recipient's share of `wraps`.
    public static let wrapLength = 32
    public static let conversationIDLength = 16
    public static let contextLength = conversationIDLength + SigningPublicKey.length + 8

    /// What the wraps hand out, which sets the domain and the shape of the context, so that
    /// a wrap made for one purpose never opens for another.
    public struct Purpose: Sendable {
        let domain: [UInt8]
        let contextLength: Int

        /// A conversation's key (§19.1): context from `context(conversationID:author:seq:)`.
        public static let conversation = Purpose(
            domain: Array("confab/wrap/v1".utf8) + [0], contextLength: KeyWraps.contextLength)
        /// A person's encryption secret (§20.5): context from `deviceContext(person:seq:)`.
        public static let deviceKey = Purpose(
            domain: Array("confab/device-key-wrap/v1".utf8) + [0], contextLength: SigningPublicKey.length + 8)
    }

    /// `conversation_id ‖ author ‖ u64be(seq)`: binds the wraps to the entry that carries them.
    public static func context(
        conversationID: some Collection<UInt8>, author: SigningPublicKey, seq: UInt64
    ) throws(CryptoError) -> [UInt8] {
        try requireLength(conversationID, conversationIDLength, "conversation id")
        var bytes = Array(conversationID) + author.bytes
        withUnsafeBytes(of: seq.bigEndian) { bytes.append(contentsOf: $0) }
        return bytes
    }

    /// `person ‖ u64be(seq)`: binds the wraps to the device-list entry that carries them.
    public static func deviceContext(person: SigningPublicKey, seq: UInt64) -> [UInt8] {
        var bytes = person.bytes
        withUnsafeBytes(of: seq.bigEndian) { bytes.append(contentsOf: $0) }
        return bytes
    }

    /// Who a wrap is for: the key it is bound to (`r_i` in the mask, a member's or device's
    /// identity) and the X25519 key the shared secret is made with — the identity's converted
    /// key, or the person's encryption key (Protocol.md §20.12), which no identity converts to.
    public struct Recipient: Sendable {
        public let binding: SigningPublicKey
        public let exchangeKey: [UInt8]

        public init(_ identity: SigningPublicKey) throws(CryptoError) {
            self.init(binding: identity, exchangeKey: try identity.curve25519())
        }

        public init(binding: SigningPublicKey, exchangeKey: [UInt8]) {
            self.binding = binding
            self.exchangeKey = exchangeKey
        }
    }

    /// Wraps `key` to each of `recipients`, in their order.
    ///
    /// - Parameters:
    ///   - context: from `context(conversationID:author:seq:)`, or the purpose's own.
    ///   - ephemeralKeyPair: only for tests that need fixed bytes; leave nil otherwise so a
    ///     fresh key is drawn per entry.
    /// - Returns: `E` (32 bytes) and the wraps (32 bytes per recipient).
    /// - Throws: `invalidKey` for a recipient with no X25519 form or one of small order
    ///   (a writer refuses to wrap to it); `invalidLength` for a key or context of the wrong size.
    public static func wrap(
        _ key: SecureBytes, to recipients: [SigningPublicKey], context: [UInt8],
        ephemeralKeyPair: Curve25519KeyPair? = nil, purpose: Purpose = .conversation
    ) throws(CryptoError) -> (ephemeral: [UInt8], wraps: [UInt8]) {
        var bound: [Recipient] = []
        bound.reserveCapacity(recipients.count)
        for recipient in recipients { bound.append(try Recipient(recipient)) }
        return try wrap(key, to: bound, context: context, ephemeralKeyPair: ephemeralKeyPair, purpose: purpose)
    }

    public static func wrap(
        _ key: SecureBytes, to recipients: [Recipient], context: [UInt8],
        ephemeralKeyPair: Curve25519KeyPair? = nil, purpose: Purpose = .conversation
    ) throws(CryptoError) -> (ephemeral: [UInt8], wraps: [UInt8]) {
        Sodium.ensureInitialized()
        guard key.count == keyLength else {
            throw .invalidLength("wrapped key", expected: keyLength, actual: key.count)
        }
        try requireLength(context, purpose.contextLength, "key wraps context")
        let ephemeral = ephemeralKeyPair ?? .generate()
        var wraps = [UInt8](repeating: 0, count: recipients.count * wrapLength)
        for (index, recipient) in recipients.enumerated() {
            let shared = try ScalarMult.sharedSecret(secretKey: ephemeral.secretKey, publicKey: recipient.exchangeKey)
            let mask = self.mask(
                shared: shared, domain: purpose.domain, context: context, ephemeral: ephemeral.publicKey,
                recipient: recipient.binding)
            key.withUnsafeBytes { k in
                mask.withUnsafeBytes { w in
                    for offset in 0..<wrapLength { wraps[index * wrapLength + offset] = k[offset] ^ w[offset] }
                }
            }
        }
        return (ephemeral.publicKey, wraps)
    }

    /// The key in the wrap at `index` of `wraps` for `keyPair`, or nil when it cannot be
    /// opened: an index out of range, malformed lengths, or an `E` of small order. A wrap
    /// meant for another key (or another context) opens to a wrong key, not to nil: check
    /// the result against the entry's key commitment.
    public static func open(
        _ wraps: [UInt8], at index: Int, ephemeral: [UInt8], with keyPair: SigningKeyPair, context: [UInt8],
        purpose: Purpose = .conversation
    ) -> SecureBytes? {
        guard let exchange = try? Curve25519KeyPair(secretKey: keyPair.curve25519SecretKey()) else { return nil }
        return open(
            wraps, at: index, ephemeral: ephemeral, with: exchange, boundTo: keyPair.publicKey, context: context,
            purpose: purpose)
    }

    /// As above, for a wrap made to `exchange`'s public key and bound to `binding`.
    public static func open(
        _ wraps: [UInt8], at index: Int, ephemeral: [UInt8], with exchange: Curve25519KeyPair,
        boundTo binding: SigningPublicKey, context: [UInt8], purpose: Purpose = .conversation
    ) -> SecureBytes? {
        guard wraps.count % wrapLength == 0, index >= 0, index < wraps.count / wrapLength,
            ephemeral.count == ScalarMult.pointLength, context.count == purpose.contextLength,
            let shared = try? ScalarMult.sharedSecret(secretKey: exchange.secretKey, publicKey: ephemeral)
        else { return nil }
        let mask = self.mask(
            shared: shared, domain: purpose.domain, context: context, ephemeral: ephemeral, recipient: binding)
        let start = index * wrapLength
        return SecureBytes(count: keyLength) { out in
            mask.withUnsafeBytes { w in
                for offset in 0..<keyLength { out[offset] = wraps[start + offset] ^ w[offset] }
            }
        }
    }

    /// `w = BLAKE2b-256(key = s, domain ‖ context ‖ E ‖ r)`, kept in guarded memory: with a
    /// wrap it gives the key.
    private static func mask(
        shared: SecureBytes, domain: [UInt8], context: [UInt8], ephemeral: [UInt8], recipient: SigningPublicKey
    ) -> SecureBytes {
        let message = domain + context + ephemeral + recipient.bytes
        return SecureBytes(count: keyLength) { out in
            shared.withUnsafeBytes { s in
                _ = crypto_generichash(
                    out, keyLength, message, UInt64(message.count), s.baseAddress!.assumingMemoryBound(to: UInt8.self),
                    s.count)
            }
        }
    }
}
