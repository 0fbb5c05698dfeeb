import ConfabCrypto
import ConfabModel

/// How a conversation's id and key commitment follow from its create entry (Protocol.md
/// §4.5). The id is derived from the creator's key, so no one else can sign a create
/// entry for it and squat it; the commitment lets every participant check that the key
/// sealed to it is the key everyone else got.
public enum ConversationGenesis {
    public static let nonceLength = 16
    public static let commitmentLength = 32

    /// `BLAKE2b-128("confab/conversation-id/v1" ‖ 0x00 ‖ creator ‖ nonce)`.
    public static func conversationID(creator: NodeID, nonce: [UInt8]) -> ConversationID {
        ConversationID(validatedBytes: Hash.blake2b(EntryDomain.conversationID + creator.bytes + nonce, length: 16))
    }

    /// `BLAKE2b-256("confab/conversation-key/v1" ‖ 0x00 ‖ conversation_id ‖ key)`.
    public static func keyCommitment(_ key: SecureBytes, conversationID: ConversationID) -> [UInt8] {
        var input = EntryDomain.keyCommitment + conversationID.bytes + key.unsafeCopy
        defer { input.wipe() }
        return Hash.blake2b(input, length: commitmentLength)
    }

    /// A fresh conversation of `creator`: its nonce, id, key and the key's commitment.
    public static func make(
        creator: NodeID
    ) -> (
        nonce: [UInt8], id: ConversationID, key: SecureBytes, commitment: [UInt8]
    ) {
        let nonce = Random.bytes(nonceLength)
        let id = conversationID(creator: creator, nonce: nonce)
        let key = ConversationCipher.generateKey()
        return (nonce, id, key, keyCommitment(key, conversationID: id))
    }
}
