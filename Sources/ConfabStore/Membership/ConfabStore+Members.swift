import ConfabModel
import GRDB

/// A conversation's members as a person sees them: who is in (in join order), who the
/// admin is, who was in and is not any more, names as known here.
public struct MemberList: Sendable, Equatable, Codable {
    public let conversation: ConversationID
    public let members: [MembershipNote.Member]
    public let admin: NodeID?
    public let former: [MembershipNote.Member]
    /// Whether this node is one of the members (it may have been removed, or left).
    public let includesMe: Bool

    public init(
        conversation: ConversationID, members: [MembershipNote.Member], admin: NodeID?,
        former: [MembershipNote.Member], includesMe: Bool
    ) {
        self.conversation = conversation
        self.members = members
        self.admin = admin
        self.former = former
        self.includesMe = includesMe
    }
}

extension ConfabStore {
    public func members(of conversation: ConversationID) throws -> MemberList {
        try read { db in
            guard let log = try self.membershipLog(conversation, db: db) else {
                throw StoreError.unknownConversation(conversation.hex)
            }
            let membership = log.current
            let names = try self.nameMap(conversation: conversation, db: db)
            func member(_ id: NodeID) -> MembershipNote.Member { .init(id: id, name: names[id] ?? id.shortHex) }
            return MemberList(
                conversation: conversation, members: membership.members.map(member), admin: membership.admin,
                former: membership.removedBy.keys.sorted().map(member), includesMe: membership.contains(myPerson))
        }
    }

    /// The system line of one members entry, as the history shows it; nil for a rekey or
    /// an entry that is not held.
    public func membershipLine(_ conversation: ConversationID, author: NodeID, seq: UInt64) throws -> ChatMessage? {
        try read { db in
            try self.membershipLines(
                conversation, after: nil, before: nil, names: self.nameMap(conversation: conversation, db: db), db: db
            ).first { $0.author == author && $0.seq == seq }
        }
    }
}
