import ConfabCrypto
import ConfabModel
import Foundation
import Testing

@testable import ConfabWire

/// A name setting (field 8, Protocol.md §20.15) carries a name exactly as §8.1 stores one,
/// and only a name setting carries one: anything else decodes to nothing, so it changes
/// nothing where it is taken.
@Suite struct NameSettingCipherTests {
    let peer = NodeID(bytes: [UInt8](repeating: 9, count: 32))!

    func plaintext(field: UInt32 = 8, value: UInt32 = 1, target: Int = 32, name: String) -> [UInt8] {
        var plaintext = Confab_V1_SettingPlaintext()
        plaintext.target = Data(repeating: 9, count: target)
        plaintext.field = field
        plaintext.value = value
        plaintext.name = name
        return try! plaintext.serializedBytes()
    }

    @Test func aNameTravelsSealed() throws {
        let key = SecureBytes([UInt8](repeating: 0x42, count: 32))
        let conversation = ConversationID(bytes: [UInt8](repeating: 7, count: 16))!
        for byHand in [false, true] {
            let setting = try #require(PersonalSetting.name("Zoë Ünal", of: peer, byHand: byHand))
            let sealed = try SettingCipher.seal(setting, key: key, conversationID: conversation, author: peer, seq: 2)
            let opened = try SettingCipher.open(sealed, key: key, conversationID: conversation, author: peer, seq: 2)
            #expect(opened == setting && opened.name == "Zoë Ünal" && opened.value == (byHand ? 1 : 0))
        }
    }

    @Test func theLongestNameFitsItsBound() throws {
        let name = String(repeating: "é", count: Limits.maxNameBytes / 2)
        let setting = try #require(PersonalSetting.name(name, of: peer, byHand: true))
        #expect(SettingCipher.encodePlaintext(setting).count == SettingCipher.maxNamePlaintextBytes)
        #expect(SettingCipher.maxNamePlaintextBytes <= SettingCipher.maxPlaintextBytes)
    }

    @Test func aNameNotAsStoredChangesNothing() {
        let bad = [
            "", " Bob", "Bob ", "Bob  Smith", "Bob\nSmith", "Bob\u{200B}", "Bob\u{202E}", "\u{1B}[31mBob",
            String(repeating: "g", count: Limits.maxNameBytes + 1), "1a2b3c4d", "Bob (1a2b3c4d)",
        ]
        for name in bad {
            #expect(throws: CryptoError.self, "\(name.debugDescription)") {
                try SettingCipher.decodePlaintext(plaintext(name: name))
            }
            #expect(PersonalSetting.name(name, of: peer, byHand: false) == nil)
        }
        #expect(throws: Never.self) { try SettingCipher.decodePlaintext(plaintext(name: "Bob")) }
        #expect(
            (try? SettingCipher.decodePlaintext(plaintext(name: String(repeating: "g", count: Limits.maxNameBytes))))
                != nil)
    }

    @Test func aNameOffANameSettingOrANameSettingOffItsShapeChangesNothing() {
        // A name on a trust setting, a name setting with a conversation's target or value 2.
        #expect(throws: CryptoError.self) { try SettingCipher.decodePlaintext(plaintext(field: 7, name: "Bob")) }
        #expect(throws: CryptoError.self) { try SettingCipher.decodePlaintext(plaintext(target: 16, name: "Bob")) }
        #expect(throws: CryptoError.self) { try SettingCipher.decodePlaintext(plaintext(value: 2, name: "Bob")) }
        #expect(PersonalSetting(target: peer.bytes, field: .trust, value: 1, name: "Bob") == nil)
        #expect(PersonalSetting(target: peer.bytes, field: .name, value: 1) == nil)
    }

    @Test func aNameThatIsNotUTF8DoesNotDecode() {
        var bytes = plaintext(name: "Bob")
        bytes[bytes.count - 1] = 0xFF
        #expect(throws: CryptoError.self) { try SettingCipher.decodePlaintext(bytes) }
    }
}
