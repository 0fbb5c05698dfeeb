import ConfabModel
import GRDB

/// What the store keeps of whose entries are (Protocol.md §20.11): the person of a device's
/// message on its row, and the membership folded with its changes' persons. Both follow the
/// lists: when a list is written they are computed again for every key a list names.
extension ConfabStore {
    /// Marks a message or file of a device as `person`'s.
    func notePerson(_ person: NodeID, of entry: Entry, db: Database) throws {
        try db.cachedStatement(
            sql: "UPDATE message SET person = ? WHERE conversationId = ? AND author = ? AND seq = ?"
        ).execute(arguments: [person.bytes, entry.conversationID.bytes, entry.author.bytes, entry.seq])
    }

    /// After a list is written, in its write: each held message and membership change of a
    /// key a list names (or named before: a row marked with a person) is its person's as the
    /// lists now say. A removal's cut takes back what a device wrote past it, held before the
    /// removal came. Lists name few keys, and are written seldom.
    func refreshDevicePersons(db: Database) throws {
        let authors = try Self.foldDeviceAuthors(db: db)
        var keys = Set(authors.namedKeys)
        keys.formUnion(
            try [UInt8].fetchAll(db, sql: "SELECT DISTINCT author FROM message WHERE person IS NOT NULL")
                .compactMap(NodeID.init(bytes:)))
        var members: [ConversationID: Set<NodeID>?] = [:]
        var conversations: Set<ConversationID> = []
        for key in keys.sorted() {
            for row in try Row.fetchAll(
                db, sql: "SELECT conversationId, seq, person FROM message WHERE author = ?", arguments: [key.bytes])
            {
                let conversation = row.conversationID("conversationId")
                if members[conversation] == nil {
                    let log = try Self.fetchMembershipLog(conversation, authors: authors, db: db)
                    members[conversation] = .some(log.flatMap { $0.isOpen ? nil : $0.everMembers })
                }
                let seq: UInt64 = row["seq"]
                let person = authors.person(of: key, in: conversation, seq: seq, members: members[conversation] ?? nil)
                let stored = (row["person"] as [UInt8]?).flatMap(NodeID.init(bytes:)) ?? key
                guard person != stored else { continue }
                try db.execute(
                    sql: "UPDATE message SET person = ? WHERE conversationId = ? AND author = ? AND seq = ?",
                    arguments: [person == key ? nil : person.bytes, conversation.bytes, key.bytes, seq])
            }
            conversations.formUnion(
                try [UInt8].fetchAll(
                    db, sql: "SELECT DISTINCT conversationId FROM membership_event WHERE author = ?",
                    arguments: [key.bytes]
                ).compactMap(ConversationID.init(bytes:)))
        }
        // The fold counts each change as its person's: a device's change may act now, or no
        // longer.
        for conversation in conversations.sorted(by: { $0.bytes.lexicographicallyPrecedes($1.bytes) }) {
            if let log = try Self.fetchMembershipLog(conversation, authors: authors, db: db), !log.isOpen {
                try Self.storeMembership(log.current, of: conversation, db: db)
            }
        }
    }
}
