import Foundation

/// One row of the conversation list: everything needed to draw it, derived from the store.
public struct ConversationSummary: Sendable, Equatable, Codable {
    public let id: ConversationID
    public let title: String?
    /// Everyone but me, in the creator's order.
    public let participants: [Participant]
    public let createdAt: Date
    public let lastActivityAt: Date
    public let lastMessage: LastMessage?
    public let unreadCount: Int
    public let isMarkedUnread: Bool
    public let isPinned: Bool
    public let isArchived: Bool
    public let isMuted: Bool
    /// Participants proven to have signed two different histories here (Protocol.md
    /// §7.1): their entries from the fork on are not taken.
    public var forkedAuthors: [NodeID] = []
    /// The conversation key sealed to me did not open or was not the one the creator
    /// committed to: nothing here can be read, and the creator may have split the group.
    public var keyProblem = false
    /// I was a member and am not any more (removed, or I left): what I held stays readable;
    /// nothing written after reaches me, and I cannot write (Protocol.md §4.8).
    public var isFormerMember = false

    public struct Participant: Sendable, Equatable, Codable {
        public let id: NodeID
        public let name: String
        /// How far this node trusts the participant's key (verified keys are marked in lists).
        public let trust: Peer.Trust

        public init(id: NodeID, name: String, trust: Peer.Trust = .unverified) {
            self.id = id
            self.name = name
            self.trust = trust
        }
    }

    public struct LastMessage: Sendable, Equatable, Codable {
        public let author: NodeID
        public let isMine: Bool
        public let text: String
        public let sentAt: Date
        /// Set only for my own messages.
        public let status: DeliveryStatus?

        public init(author: NodeID, isMine: Bool, text: String, sentAt: Date, status: DeliveryStatus?) {
            self.author = author
            self.isMine = isMine
            self.text = text
            self.sentAt = sentAt
            self.status = status
        }
    }

    public init(
        id: ConversationID, title: String?, participants: [Participant], createdAt: Date, lastActivityAt: Date,
        lastMessage: LastMessage?, unreadCount: Int, isMarkedUnread: Bool, isPinned: Bool, isArchived: Bool,
        isMuted: Bool
    ) {
        self.id = id
        self.title = title
        self.participants = participants
        self.createdAt = createdAt
        self.lastActivityAt = lastActivityAt
        self.lastMessage = lastMessage
        self.unreadCount = unreadCount
        self.isMarkedUnread = isMarkedUnread
        self.isPinned = isPinned
        self.isArchived = isArchived
        self.isMuted = isMuted
    }

    /// The title if there is one, else the other participants' names.
    public var displayName: String {
        if let title, !title.isEmpty { return title }
        return participants.map(\.name).joined(separator: ", ")
    }

    /// What the unread badge shows: the count, or 1 when marked unread with nothing new.
    public var badgeCount: Int {
        unreadCount > 0 ? unreadCount : (isMarkedUnread ? 1 : 0)
    }

    /// What a person must be told about this conversation, in plain words.
    public var warnings: [String] {
        var warnings: [String] = []
        if isFormerMember {
            warnings.append(
                "you are no longer a member of this conversation: you keep what you had, and nothing written "
                    + "after reaches you; only a member can add you again")
        }
        if keyProblem {
            warnings.append(
                "the key this conversation's creator sealed to you does not open it, or differs from the one it "
                    + "committed to everyone: you cannot read it, and others may not read what you write; "
                    + "ask for a new conversation")
        }
        for author in forkedAuthors {
            let name = participants.first { $0.id == author }?.name ?? author.shortHex
            warnings.append(
                "\(name) signed two different versions of its messages here (proof kept): what it writes in this "
                    + "conversation is no longer accepted; its key may be in someone else's hands")
        }
        return warnings
    }

    public var preview: String? {
        lastMessage.map { Preview.line($0.text, mine: $0.isMine) }
    }
}
