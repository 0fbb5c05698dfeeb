/// Domain-separation prefixes, so a signature or ciphertext made for one purpose can never
/// be accepted for another.
enum EntryDomain {
    static let signature: [UInt8] = Array("confab/entry/v1".utf8) + [0]
    static let message: [UInt8] = Array("confab/message/v1".utf8) + [0]
    static let reaction: [UInt8] = Array("confab/reaction/v1".utf8) + [0]
    static let setting: [UInt8] = Array("confab/setting/v1".utf8) + [0]
    static let title: [UInt8] = Array("confab/title/v1".utf8) + [0]
    static let conversationID: [UInt8] = Array("confab/conversation-id/v1".utf8) + [0]
    static let keyCommitment: [UInt8] = Array("confab/conversation-key/v1".utf8) + [0]
    static let epochKey: [UInt8] = Array("confab/epoch-key/v1".utf8) + [0]
    static let names: [UInt8] = Array("confab/names/v1".utf8) + [0]
    static let fileMessage: [UInt8] = Array("confab/file-message/v1".utf8) + [0]
    static let fileChunk: [UInt8] = Array("confab/file-chunk/v1".utf8) + [0]
    static let fileID: [UInt8] = Array("confab/file-id/v1".utf8) + [0]
    static let room: [UInt8] = Array("confab/room/v1".utf8) + [0]
    static let roomSigning: [UInt8] = Array("confab/room-sign/v1".utf8) + [0]
    static let roomKey: [UInt8] = Array("confab/room-key/v1".utf8) + [0]
    static let roomID: [UInt8] = Array("confab/room-id/v1".utf8) + [0]
    static let addKey: [UInt8] = Array("confab/add-key/v1".utf8) + [0]
}
