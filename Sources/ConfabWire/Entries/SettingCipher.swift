import ConfabCrypto
import ConfabModel
import Foundation
import SwiftProtobuf

/// A `setting` entry's body (Protocol.md §20.15): the change sealed whole as
/// `SettingPlaintext` under its own domain, with the conversation key in force, so carriers
/// learn that a device of the person changed something, not what.
public enum SettingCipher {
    /// Encoded `SettingPlaintext` at most: a 32-byte target, two varints and slack (64), and
    /// a deletion's `upto` of up to 1,024 authors, 44 bytes each (a 32-byte key and a seq of
    /// at most 2^48, framed). A name setting carries no `upto`: its 104 bytes at most (a
    /// framed key, two varints and a framed name of 64 bytes) are far below.
    public static let maxPlaintextBytes = 64 + PersonalSetting.maxUptoAuthors * 44

    /// A name setting's plaintext at most: 34 + 2 + 2 + 66.
    public static let maxNamePlaintextBytes = 104

    public static func seal(
        _ setting: PersonalSetting, key: SecureBytes, conversationID: ConversationID, author: NodeID, seq: UInt64
    ) throws(CryptoError) -> [UInt8] {
        var bytes = encodePlaintext(setting)
        defer { bytes.wipe() }
        return try ConversationCipher.seal(
            bytes, domain: EntryDomain.setting, key: key, conversationID: conversationID, author: author, seq: seq)
    }

    /// `SettingPlaintext` encoded, fields in number order (Protocol.md §20.15).
    public static func encodePlaintext(_ setting: PersonalSetting) -> [UInt8] {
        var plaintext = Confab_V1_SettingPlaintext()
        plaintext.target = Data(setting.target)
        plaintext.field = setting.field.rawValue
        plaintext.value = setting.value
        if let upto = setting.upto { plaintext.upto = EntryCodec.encodeClock(upto) }
        if let name = setting.name { plaintext.name = name }
        return try! plaintext.serializedBytes()
    }

    /// Opens a setting. One that does not open or decode, names a field this version does
    /// not know, or a target or value its field does not take is a failure: it changes
    /// nothing.
    public static func open(
        _ sealed: [UInt8], key: SecureBytes, conversationID: ConversationID, author: NodeID, seq: UInt64
    ) throws(CryptoError) -> PersonalSetting {
        var bytes = try ConversationCipher.open(
            sealed, domain: EntryDomain.setting, key: key, conversationID: conversationID, author: author, seq: seq)
        defer { bytes.wipe() }
        return try decodePlaintext(bytes)
    }

    /// Decodes an opened `SettingPlaintext` and checks it (`open`). An `upto` is read only
    /// on a deletion, and must be a clock within its limits; a name only on a name setting,
    /// which must carry one in the form a name is stored in (an empty string is no name).
    public static func decodePlaintext(_ bytes: [UInt8]) throws(CryptoError) -> PersonalSetting {
        guard
            let plaintext = try? Confab_V1_SettingPlaintext(
                serializedBytes: bytes, options: EntryCodec.decodingOptions),
            let field = PersonalSetting.Field(rawValue: plaintext.field)
        else { throw .operationFailed("setting plaintext") }
        var upto: VectorClock?
        if !plaintext.upto.isEmpty {
            guard
                let clock = try? EntryCodec.decodeClock(
                    plaintext.upto, what: "upto", limit: PersonalSetting.maxUptoAuthors)
            else { throw .operationFailed("setting plaintext upto") }
            upto = clock
        }
        guard
            let setting = PersonalSetting(
                target: [UInt8](plaintext.target), field: field, value: plaintext.value, upto: upto,
                name: plaintext.name.isEmpty ? nil : plaintext.name)
        else { throw .operationFailed("setting plaintext") }
        return setting
    }
}
