import ConfabCrypto
import ConfabModel

/// How a room follows from its name and the network key (Protocol.md §18.1). Everything
/// is derived: the room's own signing key (the author of its create entry), its id, the
/// key its messages are sealed with, and the create entry itself, byte for byte. Two
/// people who join `general` on one network hold the same room without either creating
/// it; a network with another key has other rooms of the same names.
public struct RoomGenesis: Sendable {
    public let name: RoomName
    /// The room's own key pair: it signs the create entry and nothing else.
    public let signing: SigningKeyPair
    public let conversationID: ConversationID
    /// What messages, edits, reactions and files in the room are sealed with (§4.7).
    public let key: SecureBytes

    public init(name: RoomName, network: NetworkKey) {
        self.name = name
        var seed = Hash.blake2b(EntryDomain.room + Array(name.text.utf8), length: 32, key: network.bytes)
        defer { seed.wipe() }
        var signingSeed = Hash.blake2b(EntryDomain.roomSigning + seed, length: 32)
        defer { signingSeed.wipe() }
        // A 32-byte seed is always a valid Ed25519 seed.
        signing = try! SigningKeyPair(seed: signingSeed)
        key = SecureBytes(Hash.blake2b(EntryDomain.roomKey + seed, length: 32))
        conversationID = Self.conversationID(author: NodeID(signing.publicKey))
    }

    /// `BLAKE2b-128("confab/room-id/v1" ‖ 0x00 ‖ room key)`: checked by every decoder, so a
    /// room create names only the id of its own author.
    public static func conversationID(author: NodeID) -> ConversationID {
        ConversationID(validatedBytes: Hash.blake2b(EntryDomain.roomID + author.bytes, length: 16))
    }

    public var author: NodeID { NodeID(signing.publicKey) }

    /// The room's create entry: seq 1, timestamp 0, no clock, the name as its body, signed
    /// with the room's key. Ed25519 and this encoding are deterministic, so every node
    /// makes the same bytes.
    public var create: Entry {
        EntryCodec.sign(
            EntryDraft(
                conversationID: conversationID, seq: 1, previous: nil, timestamp: 0, clock: VectorClock(),
                body: .room(name)),
            with: signing)
    }
}
