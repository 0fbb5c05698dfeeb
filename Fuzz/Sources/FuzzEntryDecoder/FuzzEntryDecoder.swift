import CLibFuzzerDriver
import ConfabCrypto
import ConfabModel
import ConfabWire

// Three modes, chosen by the first byte. Raw (mode % 4 == 0): the input is an entry from a
// hostile peer and must be rejected with a WireError or accepted, never crash, and a
// sender's look for its signature (`peekSignedHash`) must agree with its decoding. Plaintext
// (mode % 4 == 2): the input is what a member opened from a message, an edit, a reaction or a
// setting (the sealed parts a relay cannot check): decoded as each, and a message's mentions checked
// against its text and drawn, never crashing. Mutation (odd): a validly signed entry is
// corrupted at positions the input chooses; if the result still decodes, the signature
// check guarantees it carries exactly the original content.

private let author = try! SigningKeyPair(seed: [UInt8](repeating: 7, count: 32))
private let other = try! SigningKeyPair(seed: [UInt8](repeating: 9, count: 32))
private let nonce = [UInt8](repeating: 1, count: ConversationGenesis.nonceLength)
private let conversation = ConversationGenesis.conversationID(creator: NodeID(author.publicKey), nonce: nonce)

/// Each sample as what the fuzzer needs of it: its encoded bytes, content and signature.
/// Only these are kept, not the decoded entries: a members body sits inside an enum payload
/// whose spare pointer bits carry the case, which LeakSanitizer cannot follow (it reported
/// the body's arrays as leaked).
private struct Sample {
    let encoded: [UInt8]
    let content: [UInt8]
    let signature: [UInt8]
}

private let samples: [Sample] = {
    let me = NodeID(author.publicKey)
    let you = NodeID(other.publicKey)
    let key = ConversationCipher.generateKey()
    let create = EntryCodec.sign(
        EntryDraft(
            conversationID: conversation, seq: 1, previous: nil, timestamp: 1_700_000_000_000, clock: VectorClock(),
            body: .create(
                CreateBody(
                    participants: [
                        .init(id: me, sealedKey: try! ConversationCipher.sealKey(key, to: me)),
                        .init(id: you, sealedKey: try! ConversationCipher.sealKey(key, to: you)),
                    ],
                    sealedTitle: try! ConversationCipher.sealTitle("fuzz", key: key, conversationID: conversation),
                    nonce: nonce, keyCommitment: ConversationGenesis.keyCommitment(key, conversationID: conversation)))),
        with: author)
    let message = EntryCodec.sign(
        EntryDraft(
            conversationID: conversation, seq: 2, previous: create.hash, timestamp: 1_700_000_000_001,
            clock: VectorClock([me: 1]),
            body: .message(
                sealed: try! ConversationCipher.sealMessage(
                    "hello", key: key, conversationID: conversation, author: me, seq: 2))),
        with: author)
    let receipt = EntryCodec.sign(
        EntryDraft(
            conversationID: conversation, seq: 3, previous: message.hash, timestamp: 1_700_000_000_002,
            clock: VectorClock([me: 2, you: 4]),
            body: .receipt(delivered: VectorClock([you: 4]), read: VectorClock([you: 3]))),
        with: author)
    let edit = EntryCodec.sign(
        EntryDraft(
            conversationID: conversation, seq: 4, previous: receipt.hash, timestamp: 1_700_000_000_003,
            clock: VectorClock([me: 3, you: 4]),
            body: .edit(
                target: 2,
                sealed: try! ConversationCipher.sealMessage(
                    "hello again", key: key, conversationID: conversation, author: me, seq: 4))),
        with: author)
    let unsend = EntryCodec.sign(
        EntryDraft(
            conversationID: conversation, seq: 5, previous: edit.hash, timestamp: 1_700_000_000_004,
            clock: VectorClock([me: 4, you: 4]), body: .unsend(target: 2)),
        with: author)
    let reply = EntryCodec.sign(
        EntryDraft(
            conversationID: conversation, seq: 6, previous: unsend.hash, timestamp: 1_700_000_000_005,
            clock: VectorClock([me: 5, you: 4]),
            body: .message(
                sealed: try! ConversationCipher.sealMessage(
                    MessageContent(
                        text: "@you yes", replyTo: MessageRef(author: you, seq: 4),
                        mentions: [Mention(person: you, start: 0, length: 4)]),
                    key: key, conversationID: conversation, author: me, seq: 6))),
        with: author)
    let react = EntryCodec.sign(
        EntryDraft(
            conversationID: conversation, seq: 7, previous: reply.hash, timestamp: 1_700_000_000_006,
            clock: VectorClock([me: 6, you: 4]),
            body: .react(
                sealed: try! ConversationCipher.sealReaction(
                    ReactionContent(target: MessageRef(author: you, seq: 4), emoji: "👍🏽", removed: false), key: key,
                    conversationID: conversation, author: me, seq: 7))),
        with: author)
    let third = NodeID(try! SigningKeyPair(seed: [UInt8](repeating: 11, count: 32)).publicKey)
    let epoch = try! MembershipCipher.makeEpoch(
        for: [me, you, third], conversationID: conversation, author: me, seq: 8)
    let add = EntryCodec.sign(
        EntryDraft(
            conversationID: conversation, seq: 8, previous: react.hash, timestamp: 1_700_000_000_007,
            clock: VectorClock([me: 7, you: 4]),
            body: .members(
                MembersBody(
                    add: [third], keys: epoch.keys, keyCommitment: epoch.commitment,
                    sealedNames: try! MembershipCipher.sealNames(
                        [(me, "fuzz"), (third, "third")], key: epoch.key, conversationID: conversation, author: me,
                        seq: 8),
                    history: [
                        .init(
                            member: third,
                            sealed: try! MembershipCipher.sealHistory([(.init(author: me, seq: 1), key)], to: third))
                    ]))),
        with: author)
    let leave = EntryCodec.sign(
        EntryDraft(
            conversationID: conversation, seq: 9, previous: add.hash, timestamp: 1_700_000_000_008,
            clock: VectorClock([me: 8, you: 4]), body: .members(MembersBody(remove: [me]))),
        with: author)
    // A large group's create and add (Protocol.md §19): wraps in place of sealed keys.
    let largeCreate = EntryCodec.sign(
        EntryDraft(
            conversationID: conversation, seq: 1, previous: nil, timestamp: 1_700_000_000_000, clock: VectorClock(),
            body: .create(
                CreateBody(
                    participants: [.init(id: me, sealedKey: []), .init(id: you, sealedKey: [])],
                    sealedTitle: [], nonce: nonce,
                    keyCommitment: ConversationGenesis.keyCommitment(key, conversationID: conversation),
                    wrapped: try! LargeGroupCipher.wrap(
                        key, to: [me, you], conversationID: conversation, author: me, seq: 1)))),
        with: author)
    let largeAdd = EntryCodec.sign(
        EntryDraft(
            conversationID: conversation, seq: 2, previous: largeCreate.hash, timestamp: 1_700_000_000_001,
            clock: VectorClock([me: 1]),
            body: .members(
                MembersBody(
                    add: [third], keyCommitment: epoch.commitment,
                    wrapped: try! LargeGroupCipher.wrap(
                        epoch.key, to: [third], conversationID: conversation, author: me, seq: 2)))),
        with: author)
    // A personal conversation's create and a setting in it (Protocol.md §20.15).
    let personalCreate = EntryCodec.sign(
        EntryDraft(
            conversationID: conversation, seq: 1, previous: nil, timestamp: 1_700_000_000_000, clock: VectorClock(),
            body: .create(
                CreateBody(
                    participants: [.init(id: me, sealedKey: try! ConversationCipher.sealKey(key, to: me))],
                    sealedTitle: [], nonce: nonce,
                    keyCommitment: ConversationGenesis.keyCommitment(key, conversationID: conversation),
                    personal: true))),
        with: author)
    let setting = EntryCodec.sign(
        EntryDraft(
            conversationID: conversation, seq: 2, previous: personalCreate.hash, timestamp: 1_700_000_000_001,
            clock: VectorClock([me: 1]),
            body: .setting(
                sealed: try! SettingCipher.seal(
                    PersonalSetting(target: you.bytes, field: .trust, value: 2)!, key: key,
                    conversationID: conversation, author: me, seq: 2))),
        with: author)
    let nameSetting = EntryCodec.sign(
        EntryDraft(
            conversationID: conversation, seq: 3, previous: setting.hash, timestamp: 1_700_000_000_002,
            clock: VectorClock([me: 2]),
            body: .setting(
                sealed: try! SettingCipher.seal(
                    .name("Bob", of: you, byHand: true)!, key: key, conversationID: conversation, author: me, seq: 3))),
        with: author)
    return [
        create, message, receipt, edit, unsend, reply, react, add, leave, largeCreate, largeAdd, personalCreate,
        setting, nameSetting,
    ].map {
        Sample(encoded: EntryCodec.encode($0), content: $0.content, signature: $0.signature)
    }
}()

private let members: Set<NodeID> = [NodeID(author.publicKey), NodeID(other.publicKey)]

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let input = Array(UnsafeBufferPointer(start: data, count: size))
    guard let mode = input.first else { return 0 }
    let body = Array(input.dropFirst())

    if mode & 3 == 0 {
        _ = try? EntryCodec.decode(body)
        // A sender's cheap look for a signature (§12 step 3) agrees with decoding the entry.
        let signedHash = EntryCodec.peekSignedHash(body)
        if let entry = try? EntryCodec.decodeUnverified(body) {
            precondition(
                signedHash == (EntryCodec.isUnsigned(entry) ? nil : entry.hash),
                "peekSignedHash disagrees with the decoded entry")
            // Only a device's create leaves its author out (§20.11): never a personal one, a
            // large group's or one of protocol 1.
            if case .create(let create) = entry.body, !create.participantIDs.contains(entry.author) {
                precondition(
                    !create.personal && !create.isLarge && !create.isLegacy,
                    "a personal, large or protocol 1 create decoded without its author")
            }
        }
        return 0
    }
    if mode & 3 == 2 {
        if let content = try? ConversationCipher.decodeMessagePlaintext(body) {
            let mentions = Mentions.valid(content.mentions, in: content.text, isMember: members.contains)
            _ = Mentions.render(content.text, mentions: mentions) { $0.shortHex }
        }
        if let reaction = try? ConversationCipher.decodeReactionPlaintext(body) {
            precondition(ReactionEmoji.isValid(reaction.emoji), "a reaction decoded with an emoji that is not one")
        }
        if let setting = try? SettingCipher.decodePlaintext(body) {
            precondition(
                setting.target.count == setting.field.targetLength && setting.value <= setting.field.maxValue,
                "a setting decoded with a target or value its field does not take")
            if let upto = setting.upto {
                precondition(
                    setting.field == .deleted && upto.width <= PersonalSetting.maxUptoAuthors
                        && upto.entries.values.allSatisfy { (1...Limits.maxSeq).contains($0) },
                    "a setting decoded with an upto off a deletion, too wide, or with a seq out of range")
            }
            precondition(
                (setting.field == .name) == (setting.name != nil) && setting.name.map(DisplayName.isStoredForm) ?? true,
                "a name setting decoded without a name, a name on another field, or a name not as §8.1 stores it")
            precondition(
                (try? SettingCipher.decodePlaintext(SettingCipher.encodePlaintext(setting))) == setting,
                "a setting that does not decode again to itself")
        }
        return 0
    }

    let original = samples[Int(mode >> 1) % samples.count]
    var bytes = original.encoded
    // Each pair of input bytes is (position, xor mask); a third kind of edit truncates.
    var index = 0
    while index + 1 < body.count {
        let position = Int(body[index]) * 7 % bytes.count
        if body[index + 1] == 0 {
            bytes.removeSubrange(position...)
            if bytes.isEmpty { break }
        } else {
            bytes[position] ^= body[index + 1]
        }
        index += 2
    }
    if let decoded = try? EntryCodec.decode(bytes) {
        precondition(decoded.content == original.content, "a corrupted entry decoded with different content")
        precondition(decoded.signature == original.signature, "a corrupted entry decoded with a different signature")
    }
    return 0
}

/// SwiftPM links each executable with `main` aliased to `<target>_main`, which would
/// otherwise be missing here (no top-level code); it starts libFuzzer's driver.
@_cdecl("FuzzEntryDecoder_main")
public func libFuzzerMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>) -> CInt {
    confab_run_libfuzzer(argc, argv)
}
