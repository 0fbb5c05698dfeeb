import ConfabCrypto
import ConfabModel
import Foundation
import Testing

@testable import ConfabWire

/// A setting's plaintext (Protocol.md §20.15): a deletion carries what the deleting device
/// held; an `upto` anywhere else, or one that is no clock within its limits, makes the
/// setting one that changes nothing.
@Suite struct SettingCipherTests {
    let conversation = ConversationID(bytes: [UInt8](repeating: 7, count: 16))!
    let author = NodeID(bytes: [UInt8](repeating: 1, count: 32))!
    let key = SecureBytes([UInt8](repeating: 0x42, count: 32))

    func plaintext(field: UInt32, upto: [(UInt8, UInt64)]) -> [UInt8] {
        var plaintext = Confab_V1_SettingPlaintext()
        plaintext.target = Data(conversation.bytes)
        plaintext.field = field
        plaintext.value = 1
        plaintext.upto = upto.map { byte, seq in
            var entry = Confab_V1_ClockEntry()
            entry.author = Data(repeating: byte, count: 32)
            entry.seq = seq
            return entry
        }
        return try! plaintext.serializedBytes()
    }

    @Test func aDeletionsUptoTravelsSealed() throws {
        let upto = VectorClock([author: 3, NodeID(bytes: [UInt8](repeating: 2, count: 32))!: 9])
        let setting = try #require(
            PersonalSetting(target: conversation.bytes, field: .deleted, value: 1, upto: upto))
        let sealed = try SettingCipher.seal(setting, key: key, conversationID: conversation, author: author, seq: 4)
        let opened = try SettingCipher.open(sealed, key: key, conversationID: conversation, author: author, seq: 4)
        #expect(opened == setting)
        #expect(opened.upto == upto)
    }

    @Test func anUptoOnAnotherFieldChangesNothing() {
        #expect(throws: CryptoError.self) { try SettingCipher.decodePlaintext(plaintext(field: 1, upto: [(2, 1)])) }
        #expect(
            PersonalSetting(target: conversation.bytes, field: .pinned, value: 1, upto: VectorClock([author: 1])) == nil
        )
    }

    @Test func anUptoThatIsNoClockChangesNothing() throws {
        #expect(throws: CryptoError.self) { try SettingCipher.decodePlaintext(plaintext(field: 5, upto: [(2, 0)])) }
        #expect(throws: CryptoError.self) {
            try SettingCipher.decodePlaintext(plaintext(field: 5, upto: [(2, 1), (2, 2)]))
        }
        #expect(throws: CryptoError.self) {
            try SettingCipher.decodePlaintext(plaintext(field: 5, upto: [(2, Limits.maxSeq + 1)]))
        }
        #expect(try SettingCipher.decodePlaintext(plaintext(field: 5, upto: [(2, 1)])).upto?.width == 1)
    }

    @Test func theLargestUptoFitsTheSealedLimitAndOneMoreIsRefused() throws {
        var authors: [NodeID: UInt64] = [:]
        for index in 0..<PersonalSetting.maxUptoAuthors {
            var bytes = [UInt8](repeating: 0xFF, count: 32)
            bytes[0] = UInt8(index >> 8)
            bytes[1] = UInt8(index & 0xFF)
            authors[NodeID(bytes: bytes)!] = Limits.maxSeq
        }
        let setting = try #require(
            PersonalSetting(target: conversation.bytes, field: .deleted, value: 1, upto: VectorClock(authors)))
        let sealed = try SettingCipher.seal(setting, key: key, conversationID: conversation, author: author, seq: 1)
        #expect(sealed.count <= SettingCipher.maxPlaintextBytes + ConversationCipher.overhead)
        authors[author] = 1
        #expect(
            PersonalSetting(target: conversation.bytes, field: .deleted, value: 1, upto: VectorClock(authors)) == nil)
    }
}
