import ConfabCrypto
import ConfabModel
import Foundation
import Testing

@testable import ConfabWire

/// The personal conversation's vector of Protocol.md §20.15, read out of the document and
/// checked both ways: the code writes the documented bytes from the documented seed, key and
/// nonces (the create's sealed key, random by design, taken from the document), and the
/// documented entries decode, verify and open to the setting the text describes.
@Suite struct DocumentedSettingVectorTests {
    static func fields() throws -> [(name: String, bytes: [UInt8])] {
        let devices = try ProtocolDocument.devices()
        let start = try #require(devices.range(of: "### 20.15"))
        return ProtocolDocument.fields(String(devices[start.lowerBound...]))
    }

    static func one(_ name: String) throws -> [UInt8] {
        let values = try fields().filter { $0.name == name }.map(\.bytes)
        try #require(values.count == 1, "Protocol.md §20.15 gives \(values.count) values of \(name)")
        return values[0]
    }

    static func documentedCreate() throws -> Entry {
        try EntryCodec.decodeUnverified(try one("create"))
    }

    @Test func theCodeWritesTheDocumentedBytes() throws {
        #expect(try Self.one("person key") == SettingVector.person.id.bytes)
        #expect(try Self.one("member key") == SettingVector.member.id.bytes)
        #expect(try Self.one("nonce") == SettingVector.nonce)
        #expect(try Self.one("conversation key") == SettingVector.key.unsafeCopy)
        #expect(try Self.one("conversation_id") == SettingVector.conversation.bytes)
        #expect(
            try Self.one("key_commitment")
                == ConversationGenesis.keyCommitment(SettingVector.key, conversationID: SettingVector.conversation))
        #expect(try Self.one("plaintext") == SettingVector.plaintext)
        #expect(try Self.one("additional data") == SettingVector.additionalData)
        #expect(try Self.one("seal nonce") == SettingVector.sealNonce)

        guard case .create(let body) = try Self.documentedCreate().body else {
            Issue.record("the documented create is no create")
            return
        }
        let create = SettingVector.create(sealedKey: try #require(body.participants.first).sealedKey)
        let setting = try SettingVector.settingEntry(after: create)
        for (name, entry) in [("create", create), ("setting", setting)] {
            #expect(try Self.one(name) == EntryCodec.encode(entry), "\(name)")
            #expect(try Self.one("\(name) content") == entry.content, "\(name) content")
            #expect(try Self.one("\(name) signature") == entry.signature, "\(name) signature")
            #expect(try Self.one("\(name) hash") == entry.hash.bytes, "\(name) hash")
        }
        guard case .setting(let sealed) = setting.body else { return }
        #expect(try Self.one("sealed") == sealed)
    }

    @Test func theDocumentedEntriesAreWhatTheTextSays() throws {
        let create = try EntryCodec.decode(try Self.one("create"))
        let setting = try EntryCodec.decode(try Self.one("setting"))
        #expect(EntryCodec.hasValidSignature(create) && EntryCodec.hasValidSignature(setting))
        guard case .create(let body) = create.body, case .setting(let sealed) = setting.body else {
            Issue.record("not a create and a setting")
            return
        }
        #expect(body.personal)
        #expect(body.participantIDs == [create.author])
        #expect(
            ConversationGenesis.conversationID(creator: create.author, nonce: body.nonce) == create.conversationID)
        // The person opens the sealed key to the documented key, which the commitment names.
        let key = try ConversationCipher.openKey(
            try #require(body.participants.first).sealedKey, with: SettingVector.person)
        #expect(key.unsafeCopy == (try Self.one("conversation key")))
        #expect(ConversationGenesis.keyCommitment(key, conversationID: create.conversationID) == body.keyCommitment)

        #expect(setting.previous == create.hash)
        let opened = try SettingCipher.open(
            sealed, key: key, conversationID: setting.conversationID, author: setting.author, seq: setting.seq)
        #expect(opened.target == SettingVector.target.bytes)
        #expect(opened.field == .deleted && opened.value == 1)
        #expect(opened.upto == VectorClock([SettingVector.person.id: 5, SettingVector.member.id: 4]))
    }

    /// §20.15's name plaintext: the member key named "Bob" by hand, both ways.
    @Test func theDocumentedNamePlaintextIsANameGivenByHand() throws {
        let setting = try #require(PersonalSetting.name("Bob", of: SettingVector.member.id, byHand: true))
        #expect(try Self.one("name plaintext") == SettingCipher.encodePlaintext(setting))
        #expect(try SettingCipher.decodePlaintext(try Self.one("name plaintext")) == setting)
    }
}
