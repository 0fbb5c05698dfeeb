import ConfabCrypto
import ConfabModel

/// What a writer seals a conversation's keys to (Protocol.md §20.12): a member whose device
/// list it holds gets them under the person's encryption key E, which every current device
/// of that person opens; any other member under its own key, as before devices existed.
public struct SealingKeys: Sendable {
    private let encryptionKeys: [NodeID: [UInt8]]

    /// `encryptionKeys`: E of each person whose non-empty list is held, by person key.
    public init(encryptionKeys: [NodeID: [UInt8]] = [:]) {
        self.encryptionKeys = encryptionKeys
    }

    /// The X25519 key `member`'s sealed boxes and wraps are made with.
    public func exchangeKey(for member: NodeID) throws(CryptoError) -> [UInt8] {
        if let key = encryptionKeys[member] { return key }
        return try member.signingKey.curve25519()
    }

    public func recipient(_ member: NodeID) throws(CryptoError) -> KeyWraps.Recipient {
        KeyWraps.Recipient(binding: member.signingKey, exchangeKey: try exchangeKey(for: member))
    }
}
