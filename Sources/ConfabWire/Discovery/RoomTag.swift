import ConfabCrypto
import ConfabModel

/// What a beacon says of a room its sender joined (Protocol.md §18.7): 8 bytes derived from
/// the room's id, which itself derives from the network key, so the tags of a private
/// network's rooms name nothing to anyone without its key.
public struct RoomTag: Sendable, Hashable {
    public static let length = 8
    /// Tags one beacon carries: the first rooms in name order.
    public static let maxInBeacon = 8

    public let bytes: [UInt8]

    init(bytes: [UInt8]) { self.bytes = bytes }

    /// The first 8 bytes of `BLAKE2b-128("confab/room-tag/v1" ‖ 0x00 ‖ room_id)` (BLAKE2b's
    /// shortest output in libsodium is 16 bytes).
    public init(room: ConversationID) {
        bytes = Array(Hash.blake2b(Array("confab/room-tag/v1".utf8) + [0] + room.bytes, length: 16).prefix(Self.length))
    }
}
