import ConfabCrypto
import ConfabModel
import Foundation

@testable import ConfabWire

/// The vector of a device's create (Protocol.md §20.11): the phone D2 of §20.8's list, which
/// after entry 4 lists it as "work phone", starts a conversation in its person P's name with
/// §16's key of seed `b2…b2`. Everything but the sealed keys (sealed boxes, random by
/// design) and the sealed names (sealed with a random nonce) is derived here from the
/// documented seeds, key and nonce.
enum DeviceCreateVector {
    static let member = try! SigningKeyPair(seed: [UInt8](repeating: 0xB2, count: 32))
    static let nonce = [UInt8](repeating: 0x31, count: 16)
    static let key = SecureBytes([UInt8](repeating: 0x5B, count: 32))
    static let timestamp: Int64 = 1_800_000_240_000
    static var conversation: ConversationID {
        ConversationGenesis.conversationID(creator: DeviceVector.phoneID, nonce: nonce)
    }

    /// The create, its sealed parts given (the document's, or fresh ones when making it).
    static func create(sealedKeys: [[UInt8]], sealedNames: [UInt8]) -> Entry {
        let participants = zip([DeviceVector.personID, member.id], sealedKeys).map {
            CreateBody.Participant(id: $0, sealedKey: $1)
        }
        return EntryCodec.sign(
            EntryDraft(
                conversationID: conversation, seq: 1, previous: nil, timestamp: timestamp, clock: VectorClock(),
                body: .create(
                    CreateBody(
                        participants: participants, sealedTitle: [], nonce: nonce,
                        keyCommitment: ConversationGenesis.keyCommitment(key, conversationID: conversation),
                        sealedNames: sealedNames))),
            with: DeviceVector.phone)
    }
}
