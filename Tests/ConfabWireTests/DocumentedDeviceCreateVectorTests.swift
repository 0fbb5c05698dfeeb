import ConfabCrypto
import ConfabModel
import Foundation
import Testing

@testable import ConfabWire

/// The vector of a device's create in Protocol.md §20.11, read out of the document and
/// checked both ways: the code writes the documented bytes from the documented seeds, key and
/// nonce (the sealed parts, random by design, taken from the document), and the documented
/// entry is the phone's create in its person's name that the text describes.
@Suite struct DocumentedDeviceCreateVectorTests {
    static func one(_ name: String) throws -> [UInt8] {
        let devices = try ProtocolDocument.devices()
        let start = try #require(devices.range(of: "### 20.11"))
        let end = try #require(devices.range(of: "### 20.12"))
        let values = ProtocolDocument.fields(String(devices[start.lowerBound..<end.lowerBound]))
            .filter { $0.name == "device create" + (name.isEmpty ? "" : " \(name)") }.map(\.bytes)
        try #require(values.count == 1, "Protocol.md §20.11 gives \(values.count) values of \(name)")
        return values[0]
    }

    @Test func theCodeWritesTheDocumentedBytes() throws {
        #expect(try Self.one("member key") == DeviceCreateVector.member.id.bytes)
        #expect(try Self.one("nonce") == DeviceCreateVector.nonce)
        #expect(try Self.one("key") == DeviceCreateVector.key.unsafeCopy)
        #expect(try Self.one("conversation_id") == DeviceCreateVector.conversation.bytes)
        #expect(
            try Self.one("key_commitment")
                == ConversationGenesis.keyCommitment(
                    DeviceCreateVector.key, conversationID: DeviceCreateVector.conversation))
        let entry = DeviceCreateVector.create(
            sealedKeys: [try Self.one("sealed key to P"), try Self.one("sealed key to member")],
            sealedNames: try Self.one("sealed names"))
        #expect(try Self.one("") == EntryCodec.encode(entry))
        #expect(try Self.one("content") == entry.content)
        #expect(try Self.one("signature") == entry.signature)
        #expect(try Self.one("hash") == entry.hash.bytes)
    }

    @Test func theDocumentedCreateIsThePhonesInItsPersonsName() throws {
        let create = try EntryCodec.decode(try Self.one(""))
        #expect(EntryCodec.hasValidSignature(create))
        guard case .create(let body) = create.body else {
            Issue.record("the documented entry is no create")
            return
        }
        #expect(create.author == DeviceVector.phoneID)
        #expect(body.participantIDs == [DeviceVector.personID, DeviceCreateVector.member.id])
        #expect(
            ConversationGenesis.conversationID(creator: DeviceVector.phoneID, nonce: body.nonce)
                == create.conversationID)

        // P's devices open P's key with E2's secret; the member with its own key.
        let byPerson = try SealedBox.open(body.participants[0].sealedKey, with: DeviceVector.secondKey)
        let byMember = try ConversationCipher.openKey(body.participants[1].sealedKey, with: DeviceCreateVector.member)
        for key in [byPerson, byMember] {
            #expect(key.unsafeCopy == (try Self.one("key")))
            #expect(ConversationGenesis.keyCommitment(key, conversationID: create.conversationID) == body.keyCommitment)
        }
        let names = MembershipCipher.openNames(
            body.sealedNames, key: byMember, conversationID: create.conversationID, author: create.author, seq: 1)
        #expect(names.map(\.key) == [DeviceVector.personID] && names.map(\.name) == ["Alice"])

        // With §20.8's list held, the phone's create is P's: its first participant (§20.11).
        let list = try DeviceEntryCodec.decodeList(
            try DocumentedDeviceVectorTests.all("encoded"), person: DeviceVector.personID)
        let authors = DeviceAuthors(lists: [list])
        #expect(
            authors.person(
                of: create.author, in: create.conversationID, seq: 1, members: Set(body.participantIDs))
                == DeviceVector.personID)
        // The laptop, removed by entry 3 with no cut here, would be nobody's.
        #expect(
            authors.person(
                of: DeviceVector.laptopID, in: create.conversationID, seq: 1, members: Set(body.participantIDs))
                == DeviceVector.laptopID)
    }
}
