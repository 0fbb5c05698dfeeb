/// One signed entry of an author's log in a conversation, decoded and signature-checked.
/// `content` and `signature` are the exact bytes received; the entry is never re-encoded.
public struct Entry: Sendable, Equatable {
    public let conversationID: ConversationID
    public let author: NodeID
    public let seq: UInt64
    /// Hash of the author's entry `seq - 1`; nil exactly when `seq == 1`.
    public let previous: EntryHash?
    /// Author's wall clock, milliseconds since the Unix epoch. Informational only: order
    /// comes from the causal clock first.
    public let timestamp: Int64
    /// What the author held of this conversation when writing (its own `seq - 1` included).
    public let clock: VectorClock
    public let body: EntryBody
    public let content: [UInt8]
    public let signature: [UInt8]
    public let hash: EntryHash

    public init(
        conversationID: ConversationID, author: NodeID, seq: UInt64, previous: EntryHash?, timestamp: Int64,
        clock: VectorClock, body: EntryBody, content: [UInt8], signature: [UInt8]
    ) {
        self.conversationID = conversationID
        self.author = author
        self.seq = seq
        self.previous = previous
        self.timestamp = timestamp
        self.clock = clock
        self.body = body
        self.content = content
        self.signature = signature
        self.hash = EntryHash.of(content: content)
    }

    public var kind: EntryKind { body.kind }

    /// The seq of the author's own message an edit or an unsend acts on.
    public var actionTarget: UInt64? {
        switch body {
        case .edit(let target, _), .unsend(let target): return target
        default: return nil
        }
    }

    /// What the author knew when writing, this entry included.
    public var frontier: VectorClock {
        var frontier = clock
        frontier[author] = seq
        return frontier
    }

    public var orderKey: DisplayOrderKey {
        DisplayOrderKey(clockSum: clock.sum, timestamp: timestamp, author: author, seq: seq)
    }
}

public enum EntryKind: Int, Sendable, Codable, CaseIterable {
    case create = 1
    case message = 2
    case receipt = 3
    /// A new text for one of its author's earlier messages.
    case edit = 4
    /// Delete for everyone: a tombstone for one of its author's earlier messages.
    case unsend = 5
    /// An emoji added to or taken back from any message of the conversation.
    case react = 6
    /// A change of the conversation's members, or a new key for them (Protocol.md §4.8).
    case members = 7
    /// A file: what it is and how to check it; its content travels in chunks outside the log.
    case file = 8
    /// A room's create entry: its name, signed by the room's own key (Protocol.md §18).
    case room = 9
    /// A change of one of its person's settings, in the person's personal conversation
    /// (Protocol.md §20.15).
    case setting = 10
    /// A kind from a newer protocol version: kept in the log (so the chain continues) but
    /// not shown.
    case unknown = 0
}

public enum EntryBody: Sendable, Equatable {
    case create(CreateBody)
    /// XChaCha20-Poly1305 `nonce ‖ ciphertext ‖ tag` of the message plaintext.
    case message(sealed: [UInt8])
    case receipt(delivered: VectorClock, read: VectorClock)
    /// A new text for the author's own message at seq `target` (`target < seq`), sealed as
    /// a message at this entry's own seq.
    case edit(target: UInt64, sealed: [UInt8])
    /// Delete for everyone: the author's own message at seq `target` (`target < seq`).
    case unsend(target: UInt64)
    /// A reaction, sealed whole (target, emoji, added or taken back): relays learn only
    /// that the author reacted.
    case react(sealed: [UInt8])
    /// Members added or removed, a leave, or a rekey (Protocol.md §4.8).
    case members(MembersBody)
    /// A file (Protocol.md §17.2): its sealed description and the layout and id of its
    /// content.
    case file(FileBody)
    /// A room's create entry (Protocol.md §18.1): the name its id and keys derive from.
    case room(RoomName)
    /// A change of one of the person's settings (Protocol.md §20.15), sealed whole.
    case setting(sealed: [UInt8])
    case unknown

    public var kind: EntryKind {
        switch self {
        case .create: return .create
        case .message: return .message
        case .receipt: return .receipt
        case .edit: return .edit
        case .unsend: return .unsend
        case .react: return .react
        case .members: return .members
        case .file: return .file
        case .room: return .room
        case .setting: return .setting
        case .unknown: return .unknown
        }
    }
}

public struct CreateBody: Sendable, Equatable {
    public struct Participant: Sendable, Equatable {
        public let id: NodeID
        /// The conversation key sealed (crypto_box_seal) to this participant.
        public let sealedKey: [UInt8]

        public init(id: NodeID, sealedKey: [UInt8]) {
            self.id = id
            self.sealedKey = sealedKey
        }
    }

    public let participants: [Participant]
    /// AEAD-sealed UTF-8 title; empty when the conversation has no title.
    public let sealedTitle: [UInt8]
    /// 16 random bytes from which, with the creator's key, the conversation id is derived:
    /// nobody else can make a create entry that claims the same id.
    public let nonce: [UInt8]
    /// BLAKE2b-256 of the conversation key (Protocol.md §4.5): every participant checks
    /// that the key sealed to it is the one the creator committed to.
    public let keyCommitment: [UInt8]
    /// AEAD-sealed display names of members (Protocol.md §4.8.6); empty when none.
    public let sealedNames: [UInt8]
    /// A large group's key, wrapped to each participant in their order (Protocol.md §19.2);
    /// its participants then carry no sealed key.
    public let wrapped: WrappedKeys?
    /// A person's personal conversation (Protocol.md §20.15): its author is its only
    /// participant, and no view lists it.
    public let personal: Bool

    public init(
        participants: [Participant], sealedTitle: [UInt8], nonce: [UInt8], keyCommitment: [UInt8],
        sealedNames: [UInt8] = [], wrapped: WrappedKeys? = nil, personal: Bool = false
    ) {
        self.personal = personal
        self.participants = participants
        self.sealedTitle = sealedTitle
        self.nonce = nonce
        self.keyCommitment = keyCommitment
        self.sealedNames = sealedNames
        self.wrapped = wrapped
    }

    /// A large group's create (Protocol.md §19): the conversation is one from here on.
    public var isLarge: Bool { wrapped != nil }

    public var participantIDs: [NodeID] { participants.map(\.id) }

    /// A create written by protocol 1 (Confab 0.1), before ids were derived and keys
    /// committed: no nonce, no commitment, no names. Its id was random, so it proves nothing
    /// about who may claim it (Protocol.md §4.9 says where one is still taken).
    public var isLegacy: Bool { nonce.isEmpty && keyCommitment.isEmpty }
}

/// A file entry's body (Protocol.md §17.2): what relays see — the content's layout and id —
/// and the sealed `FilePlaintext` only members open.
public struct FileBody: Sendable, Equatable {
    /// XChaCha20-Poly1305 `nonce ‖ ciphertext ‖ tag` of the file's description.
    public let sealed: [UInt8]
    public let layout: FileLayout
    public let fileID: FileID

    public init(sealed: [UInt8], layout: FileLayout, fileID: FileID) {
        self.sealed = sealed
        self.layout = layout
        self.fileID = fileID
    }
}
