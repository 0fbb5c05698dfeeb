import ConfabCrypto
import ConfabModel
import ConfabWire
import Foundation
import Testing

@testable import ConfabStore

/// Device keys of the tests: Alice's laptop, Bob's phone, Mallory's phone, and a key no list
/// names.
enum DeviceKeys {
    static let laptop = try! SigningKeyPair(seed: [UInt8](repeating: 0x1A, count: 32))
    static let bobsPhone = try! SigningKeyPair(seed: [UInt8](repeating: 0x2B, count: 32))
    static let mallorysPhone = try! SigningKeyPair(seed: [UInt8](repeating: 0x3C, count: 32))
    static let stranger = try! SigningKeyPair(seed: [UInt8](repeating: 0x4D, count: 32))
}

/// A device's own log in one conversation, written as its node would write it: its own
/// seqs and hash chain, signed by the device key, its causal clock what `seenBy` holds.
/// Its node is not built yet (linking, §20.10), so its entries are made here.
struct DeviceLog {
    let key: SigningKeyPair
    let conversation: ConversationID
    private(set) var seq: UInt64 = 0
    private var previous: EntryHash?

    init(_ key: SigningKeyPair, in conversation: ConversationID) {
        self.key = key
        self.conversation = conversation
    }

    /// The next entry, with `body` made for its seq.
    mutating func write(
        seenBy store: ConfabStore, at now: Date, _ body: (UInt64) throws -> EntryBody
    ) throws -> [UInt8] {
        var clock = try store.clock(of: conversation)
        clock[key.id] = seq
        let draft = EntryDraft(
            conversationID: conversation, seq: seq + 1, previous: previous, timestamp: now.millisecondsSince1970,
            clock: clock, body: try body(seq + 1))
        let entry = EntryCodec.sign(draft, with: key)
        seq += 1
        previous = entry.hash
        return EntryCodec.encode(entry)
    }

    /// A message sealed with the conversation key `keyHolder` holds.
    mutating func message(
        _ text: String, keyFrom keyHolder: ConfabStore, seenBy store: ConfabStore, at now: Date
    )
        throws -> [UInt8]
    {
        let (conversation, author) = (conversation, key.id)
        return try write(seenBy: store, at: now) { seq in
            try sealedMessage(text, keyHolder, in: conversation, author: author, seq: seq)
        }
    }

    /// A members entry adding and removing keys, its new key sealed to `sealedTo`.
    mutating func members(
        add: [NodeID] = [], remove: [NodeID] = [], sealedTo keys: [NodeID], seenBy store: ConfabStore, at now: Date
    ) throws -> [UInt8] {
        let (conversation, author) = (conversation, key.id)
        return try write(seenBy: store, at: now) { seq in
            let epoch = try MembershipCipher.makeEpoch(
                for: keys, conversationID: conversation, author: author, seq: seq)
            let names = try MembershipCipher.sealNames(
                [], key: epoch.key, conversationID: conversation, author: author, seq: seq)
            return .members(
                MembersBody(
                    add: add, remove: remove, keys: epoch.keys, keyCommitment: epoch.commitment, sealedNames: names))
        }
    }
}

extension ConfabStore {
    /// The encoded entries of the list held of `person`, as a session carries them.
    func encodedDeviceList(of person: NodeID) throws -> [[UInt8]] {
        try deviceList(of: person).entries.map(DeviceEntryCodec.encode)
    }
}
