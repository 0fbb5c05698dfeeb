import ConfabCrypto
import ConfabModel
import Foundation

@testable import ConfabWire

/// The personal conversation's vector of Protocol.md §20.15: the person of §16's creator
/// seed makes its personal conversation, then writes a deletion of §16's conversation with
/// its `upto`. Everything but the create's sealed key (a sealed box, random by design) is
/// derived here from the documented seed, key and nonces.
enum SettingVector {
    static let person = try! SigningKeyPair(seed: [UInt8](repeating: 0xA1, count: 32))
    static let member = try! SigningKeyPair(seed: [UInt8](repeating: 0xB2, count: 32))
    static let nonce = [UInt8](repeating: 0x30, count: 16)
    static let key = SecureBytes([UInt8](repeating: 0x5A, count: 32))
    static let sealNonce = [UInt8](repeating: 0x24, count: 24)
    static var conversation: ConversationID { ConversationGenesis.conversationID(creator: person.id, nonce: nonce) }
    /// §16's conversation, the one deleted.
    static let target = ConversationID(bytes: Hex.decode("1fdc2412de905f73dd429f8f5ca8c25f")!)!
    static var setting: PersonalSetting {
        PersonalSetting(
            target: target.bytes, field: .deleted, value: 1, upto: VectorClock([person.id: 5, member.id: 4]))!
    }

    static func create(sealedKey: [UInt8]) -> Entry {
        EntryCodec.sign(
            EntryDraft(
                conversationID: conversation, seq: 1, previous: nil, timestamp: 1_800_000_000_000, clock: VectorClock(),
                body: .create(
                    CreateBody(
                        participants: [.init(id: person.id, sealedKey: sealedKey)], sealedTitle: [], nonce: nonce,
                        keyCommitment: ConversationGenesis.keyCommitment(key, conversationID: conversation),
                        personal: true))),
            with: person)
    }

    /// `SettingPlaintext` encoded as the document gives it: fields in number order, `upto`
    /// sorted by author key.
    static var plaintext: [UInt8] {
        var plaintext = Confab_V1_SettingPlaintext()
        plaintext.target = Data(setting.target)
        plaintext.field = setting.field.rawValue
        plaintext.value = setting.value
        plaintext.upto = EntryCodec.encodeClock(setting.upto!)
        return try! plaintext.serializedBytes()
    }

    /// `"confab/setting/v1" ‖ 0x00 ‖ conversation_id ‖ author ‖ seq (big-endian)`, written out
    /// here rather than taken from the code, as another implementation would.
    static var additionalData: [UInt8] {
        Array("confab/setting/v1".utf8) + [0] + conversation.bytes + person.id.bytes + [0, 0, 0, 0, 0, 0, 0, 2]
    }

    static func settingEntry(after create: Entry) throws -> Entry {
        let sealed = try AEAD.seal(plaintext, key: key, additionalData: additionalData, nonce: sealNonce)
        return EntryCodec.sign(
            EntryDraft(
                conversationID: conversation, seq: 2, previous: create.hash, timestamp: 1_800_000_120_000,
                clock: VectorClock([person.id: 1]), body: .setting(sealed: sealed)),
            with: person)
    }
}
