import ConfabCrypto
import ConfabModel
import Foundation
import SwiftProtobuf

/// Encodes, signs, decodes and verifies entries. Decoding checks sizes first, then
/// structure, then the signature over the exact content bytes received; nothing is ever
/// re-encoded for verification, so encoder differences between implementations cannot
/// break signatures.
public enum EntryCodec {
    static let decodingOptions: BinaryDecodingOptions = {
        var options = BinaryDecodingOptions()
        options.messageDepthLimit = 8
        options.discardUnknownFields = true
        return options
    }()

    /// Signs `draft` as `keyPair`'s author and returns the entry (with its encoded form).
    /// `signed: false` leaves the signature out (`unsigned`, Protocol.md §4.3): only for an
    /// entry whose successor, signed, is written with it.
    public static func sign(_ draft: EntryDraft, with keyPair: SigningKeyPair, signed: Bool = true) -> Entry {
        var content = Confab_V1_EntryContent()
        content.conversationID = Data(draft.conversationID.bytes)
        content.author = Data(keyPair.publicKey.bytes)
        content.seq = draft.seq
        content.previous = Data(draft.previous?.bytes ?? [])
        content.timestampMs = draft.timestamp
        content.clock = encodeClock(draft.clock)
        switch draft.body {
        case .create(let create):
            var body = Confab_V1_CreateBody()
            body.participants = encodeParticipants(create.participants)
            body.sealedTitle = Data(create.sealedTitle)
            body.nonce = Data(create.nonce)
            body.keyCommitment = Data(create.keyCommitment)
            body.sealedNames = Data(create.sealedNames)
            if let wrapped = create.wrapped { body.wraps = encodeWraps(wrapped) }
            body.personal = create.personal
            content.create = body
        case .message(let sealed):
            var body = Confab_V1_MessageBody()
            body.sealed = Data(sealed)
            content.message = body
        case .receipt(let delivered, let read):
            var body = Confab_V1_ReceiptBody()
            body.delivered = encodeClock(delivered)
            body.read = encodeClock(read)
            content.receipt = body
        case .edit(let target, let sealed):
            var body = Confab_V1_EditBody()
            body.target = target
            body.sealed = Data(sealed)
            content.edit = body
        case .unsend(let target):
            var body = Confab_V1_UnsendBody()
            body.target = target
            content.unsend = body
        case .react(let sealed):
            var body = Confab_V1_ReactBody()
            body.sealed = Data(sealed)
            content.react = body
        case .members(let members):
            content.members = encodeMembers(members)
        case .file(let file):
            var body = Confab_V1_FileBody()
            body.sealed = Data(file.sealed)
            body.size = file.layout.size
            body.chunkSize = UInt32(file.layout.chunkSize)
            body.fileID = Data(file.fileID.bytes)
            content.file = body
        case .room(let name):
            var body = Confab_V1_RoomBody()
            body.name = name.text
            content.room = body
        case .setting(let sealed):
            var body = Confab_V1_SettingBody()
            body.sealed = Data(sealed)
            content.setting = body
        case .unknown:
            preconditionFailure("cannot author an entry of unknown kind")
        }
        // Encoding a message built from valid values cannot fail.
        let contentBytes = [UInt8](try! content.serializedBytes() as [UInt8])
        let signature = signed ? keyPair.sign(EntryDomain.signature + contentBytes) : unsigned
        return Entry(
            conversationID: draft.conversationID, author: NodeID(keyPair.publicKey), seq: draft.seq,
            previous: draft.previous, timestamp: draft.timestamp, clock: draft.clock, body: draft.body,
            content: contentBytes, signature: signature)
    }

    /// `entry`, written by `keyPair`, with its signature made now.
    public static func signing(_ entry: Entry, with keyPair: SigningKeyPair) -> Entry {
        Entry(
            conversationID: entry.conversationID, author: entry.author, seq: entry.seq, previous: entry.previous,
            timestamp: entry.timestamp, clock: entry.clock, body: entry.body, content: entry.content,
            signature: keyPair.sign(EntryDomain.signature + entry.content))
    }

    /// The signature field of an entry left unsigned: 64 zero bytes, which verify for no key
    /// (libsodium refuses a signature whose R is of small order), and which a sender can tell
    /// from a signature without checking it.
    public static let unsigned = [UInt8](repeating: 0, count: SigningPublicKey.signatureLength)

    /// Whether the entry carries no signature of its own (`unsigned`): it is authentic only
    /// on the signature of a later entry of its author that names it (§7 step 3).
    public static func isUnsigned(_ entry: Entry) -> Bool { entry.signature == unsigned }

    /// `encode(entry).count`, without encoding: the content and the 64-byte signature, each a
    /// length-delimited field (a one-byte tag, a varint length).
    public static func encodedSize(of entry: Entry) -> Int {
        func field(_ length: Int) -> Int {
            var varint = 1
            var rest = length >> 7
            while rest > 0 {
                varint += 1
                rest >>= 7
            }
            return 1 + varint + length
        }
        return field(entry.content.count) + field(entry.signature.count)
    }

    /// The stored and transmitted form of an entry.
    public static func encode(_ entry: Entry) -> [UInt8] {
        var signed = Confab_V1_SignedEntry()
        signed.content = Data(entry.content)
        signed.signature = Data(entry.signature)
        return try! signed.serializedBytes()
    }

    /// Decodes and verifies an entry from untrusted bytes.
    public static func decode(_ bytes: [UInt8]) throws(WireError) -> Entry {
        let entry = try decodeUnverified(bytes)
        guard hasValidSignature(entry) else { throw .badSignature }
        return entry
    }

    /// Whether the author signed this entry's content with the signature it carries. An
    /// entry left `unsigned` never did, whatever a key of small order would make Ed25519 say
    /// (Protocol.md §4.3).
    public static func hasValidSignature(_ entry: Entry) -> Bool {
        !isUnsigned(entry)
            && entry.author.signingKey.verify(
                signature: entry.signature, message: EntryDomain.signature + entry.content)
    }

    /// Decodes an entry from untrusted bytes and checks everything but its signature: for
    /// a batch whose entries are authenticated by the hash chain from a signed one
    /// (`ChainAnchors`, Protocol.md §7 step 3). Nothing decoded here may be trusted until
    /// that signature is checked.
    public static func decodeUnverified(_ bytes: [UInt8]) throws(WireError) -> Entry {
        guard bytes.count <= Limits.maxEntryBytes else {
            throw .tooLarge("entry", limit: Limits.maxEntryBytes, actual: bytes.count)
        }
        let signed: Confab_V1_SignedEntry
        do {
            signed = try Confab_V1_SignedEntry(serializedBytes: bytes, options: decodingOptions)
        } catch {
            throw .malformed("signed entry envelope")
        }
        guard signed.signature.count == SigningPublicKey.signatureLength else {
            throw .malformed("signature length \(signed.signature.count)")
        }
        let contentBytes = [UInt8](signed.content)
        let content: Confab_V1_EntryContent
        do {
            content = try Confab_V1_EntryContent(serializedBytes: contentBytes, options: decodingOptions)
        } catch {
            throw .malformed("entry content")
        }
        return try validate(content, contentBytes: contentBytes, signature: [UInt8](signed.signature))
    }

    private static func validate(
        _ content: Confab_V1_EntryContent, contentBytes: [UInt8], signature: [UInt8]
    ) throws(WireError) -> Entry {
        guard let conversationID = ConversationID(bytes: content.conversationID) else {
            throw .malformed("conversation id (\(content.conversationID.count) bytes, want 16)")
        }
        guard let author = NodeID(bytes: content.author) else {
            throw .malformed("author key (\(content.author.count) bytes, want 32)")
        }
        guard content.seq >= 1 else { throw .malformed("seq 0") }
        guard content.seq <= Limits.maxSeq else { throw .malformed("seq \(content.seq) (limit \(Limits.maxSeq))") }
        let previous: EntryHash?
        if content.seq == 1 {
            guard content.previous.isEmpty else { throw .malformed("previous hash on seq 1") }
            previous = nil
        } else {
            guard let hash = EntryHash(bytes: content.previous) else {
                throw .malformed("previous hash (\(content.previous.count) bytes, want 32)")
            }
            previous = hash
        }
        guard Limits.timestampRange.contains(content.timestampMs) else {
            throw .malformed("timestamp \(content.timestampMs) ms outside 1970-01-01 … 3000-01-01")
        }
        let clock = try decodeClock(content.clock, what: "causal clock")
        let body: EntryBody
        switch content.body {
        case .create(let create):
            body = .create(try decodeCreate(create, conversationID: conversationID, author: author, seq: content.seq))
        case .message(let message):
            body = .message(sealed: try checkSealedMessage(message.sealed))
        case .edit(let edit):
            try checkTarget(edit.target, seq: content.seq)
            body = .edit(target: edit.target, sealed: try checkSealedMessage(edit.sealed))
        case .unsend(let unsend):
            try checkTarget(unsend.target, seq: content.seq)
            body = .unsend(target: unsend.target)
        case .react(let react):
            body = .react(sealed: try checkSealedReaction(react.sealed))
        case .members(let members):
            body = .members(try decodeMembers(members, author: author))
        case .receipt(let receipt):
            body = .receipt(
                delivered: try decodeClock(receipt.delivered, what: "delivered clock"),
                read: try decodeClock(receipt.read, what: "read clock"))
        case .file(let file):
            body = .file(try decodeFile(file))
        case .room(let room):
            body = .room(
                try decodeRoom(
                    room, conversationID: conversationID, author: author, seq: content.seq,
                    timestamp: content.timestampMs, clock: clock))
        case .setting(let setting):
            body = .setting(sealed: try checkSealedSetting(setting.sealed))
        case .none:
            body = .unknown
        }
        return Entry(
            conversationID: conversationID, author: author, seq: content.seq, previous: previous,
            timestamp: content.timestampMs, clock: clock, body: body, content: contentBytes, signature: signature)
    }

    /// A sealed text (of a message or an edit) within its limits (Protocol.md §4.7).
    private static func checkSealedMessage(_ sealed: Data) throws(WireError) -> [UInt8] {
        let limit = Limits.maxMessagePlaintextBytes + ConversationCipher.overhead
        guard sealed.count <= limit else { throw .tooLarge("sealed message", limit: limit, actual: sealed.count) }
        guard sealed.count >= ConversationCipher.overhead else { throw .malformed("sealed message") }
        return [UInt8](sealed)
    }

    /// A sealed reaction within its limits (Protocol.md §4.7).
    private static func checkSealedReaction(_ sealed: Data) throws(WireError) -> [UInt8] {
        let limit = ConversationCipher.maxReactionPlaintextBytes + ConversationCipher.overhead
        guard sealed.count <= limit else { throw .tooLarge("sealed reaction", limit: limit, actual: sealed.count) }
        guard sealed.count >= ConversationCipher.overhead else { throw .malformed("sealed reaction") }
        return [UInt8](sealed)
    }

    /// A sealed setting within its limits (Protocol.md §20.15).
    private static func checkSealedSetting(_ sealed: Data) throws(WireError) -> [UInt8] {
        let limit = SettingCipher.maxPlaintextBytes + ConversationCipher.overhead
        guard sealed.count <= limit else { throw .tooLarge("sealed setting", limit: limit, actual: sealed.count) }
        guard sealed.count >= ConversationCipher.overhead else { throw .malformed("sealed setting") }
        return [UInt8](sealed)
    }

    /// What a relay can check of a file entry (Protocol.md §17.2): a layout within the limits
    /// and an id of the right length; the description is sealed.
    private static func decodeFile(_ file: Confab_V1_FileBody) throws(WireError) -> FileBody {
        guard file.sealed.count <= FileCipher.maxSealedBytes else {
            throw .tooLarge("sealed file description", limit: FileCipher.maxSealedBytes, actual: file.sealed.count)
        }
        guard file.sealed.count >= ConversationCipher.overhead else { throw .malformed("sealed file description") }
        guard let layout = FileLayout(size: file.size, chunkSize: UInt64(file.chunkSize)) else {
            throw .malformed("file layout (\(file.size) bytes in chunks of \(file.chunkSize))")
        }
        guard let fileID = FileID(bytes: file.fileID) else {
            throw .malformed("file id (\(file.fileID.count) bytes, want 32)")
        }
        return FileBody(sealed: [UInt8](file.sealed), layout: layout, fileID: fileID)
    }

    /// A room's create (Protocol.md §18.1) as far as it can be checked without the network
    /// key: a valid name, the first entry of its author, at time 0, having seen nothing, and
    /// an id derived from its author. That the author is the key the name derives from is
    /// checked by the node that joins (it makes the same entry itself).
    private static func decodeRoom(
        _ room: Confab_V1_RoomBody, conversationID: ConversationID, author: NodeID, seq: UInt64, timestamp: Int64,
        clock: VectorClock
    ) throws(WireError) -> RoomName {
        guard room.name.utf8.count <= RoomName.maxBytes else {
            throw .tooLarge("room name", limit: RoomName.maxBytes, actual: room.name.utf8.count)
        }
        guard let name = RoomName(exactly: room.name) else { throw .malformed("room name") }
        guard seq == 1, timestamp == 0, clock.isEmpty else {
            throw .malformed("room create entry with seq \(seq), timestamp \(timestamp) or a clock")
        }
        guard RoomGenesis.conversationID(author: author) == conversationID else {
            throw .malformed("room id is not derived from the room's key")
        }
        return name
    }

    /// An edit or an unsend names an earlier entry of its own author's log: seq 1 is the
    /// least, and the entry itself or a later one is never its target.
    private static func checkTarget(_ target: UInt64, seq: UInt64) throws(WireError) {
        guard target >= 1, target < seq else { throw .malformed("action target seq \(target) (entry seq \(seq))") }
    }

    private static func decodeCreate(
        _ create: Confab_V1_CreateBody, conversationID: ConversationID, author: NodeID, seq: UInt64
    ) throws(WireError) -> CreateBody {
        guard seq == 1 else { throw .malformed("create entry with seq \(seq)") }
        let isLarge = create.hasWraps
        let count = create.participants.count
        let limit = isLarge ? Limits.maxLargeGroupChange : Limits.maxParticipants
        guard count <= limit else { throw .tooLarge("participant list", limit: limit, actual: count) }
        let participants = try decodeParticipants(create.participants, wrapped: isLarge)
        // A device of a person creates in its person's name (Protocol.md §20.11): its key is
        // no participant, and whose device it is only the lists held say (§7 step 4). A large
        // group's wraps are checked against its author (§19.3), so only a participant makes one.
        let authorListed = participants.contains(where: { $0.id == author })
        guard authorListed || (!isLarge && !create.personal) else {
            throw .malformed("create entry whose author is not a participant")
        }
        // A personal conversation is its author's alone (Protocol.md §20.15); every other has
        // someone to talk to.
        if create.personal {
            guard participants.count == 1, !isLarge else {
                throw .malformed("personal conversation with \(participants.count) participants")
            }
        } else {
            guard participants.count >= 2 else { throw .malformed("conversation with fewer than 2 participants") }
        }
        let titleLimit = Limits.maxTitleBytes + ConversationCipher.overhead + 8
        guard create.sealedTitle.count <= titleLimit else {
            throw .tooLarge("sealed title", limit: titleLimit, actual: create.sealedTitle.count)
        }
        guard create.sealedTitle.isEmpty || create.sealedTitle.count >= ConversationCipher.overhead else {
            throw .malformed("sealed title")
        }
        // Protocol 1's create (§4.9): random id, key not committed, no names; kept readable
        // and writable where it is held.
        if !isLarge, !create.personal, create.nonce.isEmpty, create.keyCommitment.isEmpty, create.sealedNames.isEmpty {
            guard authorListed else { throw .malformed("protocol 1 create entry whose author is not a participant") }
            return CreateBody(
                participants: participants, sealedTitle: [UInt8](create.sealedTitle), nonce: [], keyCommitment: [])
        }
        guard create.nonce.count == ConversationGenesis.nonceLength else {
            throw .malformed("create nonce length \(create.nonce.count)")
        }
        guard create.keyCommitment.count == ConversationGenesis.commitmentLength else {
            throw .malformed("key commitment length \(create.keyCommitment.count)")
        }
        // The id is the creator's to make: one not derived from this author and nonce is a
        // claim on someone else's conversation (a squatted id).
        guard ConversationGenesis.conversationID(creator: author, nonce: [UInt8](create.nonce)) == conversationID else {
            throw .malformed("conversation id is not derived from the creator's key and nonce")
        }
        // A large group's key is wrapped to each participant, in their order (§19.2).
        let wrapped = isLarge ? try decodeWraps(create.wraps, count: participants.count) : nil
        return CreateBody(
            participants: participants, sealedTitle: [UInt8](create.sealedTitle), nonce: [UInt8](create.nonce),
            keyCommitment: [UInt8](create.keyCommitment), sealedNames: try checkSealedNames(create.sealedNames),
            wrapped: wrapped, personal: create.personal)
    }

    static func encodeClock(_ clock: VectorClock) -> [Confab_V1_ClockEntry] {
        clock.sortedEntries.map { item in
            var entry = Confab_V1_ClockEntry()
            entry.author = Data(item.author.bytes)
            entry.seq = item.seq
            return entry
        }
    }

    /// `limit`: authors the clock may name; an entry's clocks name at most 64, a session's
    /// clock of a room more (Protocol.md §18.3).
    static func decodeClock(
        _ items: [Confab_V1_ClockEntry], what: String, limit: Int = Limits.maxClockWidth
    ) throws(WireError) -> VectorClock {
        guard items.count <= limit else { throw .tooLarge(what, limit: limit, actual: items.count) }
        var entries: [NodeID: UInt64] = [:]
        for item in items {
            guard let author = NodeID(bytes: item.author) else { throw .malformed("\(what) author key") }
            guard item.seq >= 1 else { throw .malformed("\(what) seq 0") }
            guard item.seq <= Limits.maxSeq else {
                throw .malformed("\(what) seq \(item.seq) (limit \(Limits.maxSeq))")
            }
            guard entries.updateValue(item.seq, forKey: author) == nil else {
                throw .malformed("\(what) names an author twice")
            }
        }
        return VectorClock(entries)
    }
}
