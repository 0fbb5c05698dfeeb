import ConfabModel
import Foundation
import GRDB

extension ConfabStore {
    /// The system lines of a conversation's history (Protocol.md §4.8): one per members
    /// entry that added or removed someone, or was a leave, as written by its author (a
    /// rekey says nothing, nor does a change void in the fold), ordered with the messages by display order. Only those after
    /// `after` (when given) and before `before` (when given).
    func membershipLines(
        _ conversation: ConversationID, after: DisplayOrderKey?, before: DisplayOrderKey?, names: [NodeID: String],
        db: Database
    ) throws -> [ChatMessage] {
        var lines: [ChatMessage] = []
        // A change that came to nothing in the fold (its author was out by then) says nothing.
        let applied = try self.membershipLog(conversation, db: db)?.current.applied ?? []
        let void = Set(applied.filter(\.isVoid).map(\.event.ref))
        // Who made each change: a device's is its person's (Protocol.md §20.11).
        let persons = Dictionary(applied.map { ($0.event.ref, $0.event.person) }, uniquingKeysWith: { a, _ in a })
        for row in try Row.fetchAll(
            db.cachedStatement(
                sql: """
                    SELECT m.* FROM membership_event m JOIN conversation c ON c.id = m.conversationId
                    WHERE m.conversationId = ? AND NOT (m.author = c.creator AND m.seq = 1)
                    AND (length(m.added) > 0 OR length(m.removed) > 0)
                    """),
            arguments: [conversation.bytes])
        {
            let author = row.nodeID("author")
            let seq: UInt64 = row["seq"]
            let timestamp: Int64 = row["timestamp"]
            guard !void.contains(EntryRef(author: author, seq: seq)) else { continue }
            let key = DisplayOrderKey(clockSum: row["clockSum"], timestamp: timestamp, author: author, seq: seq)
            if let after, key <= after { continue }
            if let before, key >= before { continue }
            let added = Self.keys(in: row["added"])
            let removed = Self.keys(in: row["removed"])
            func member(_ id: NodeID) -> MembershipNote.Member {
                .init(id: id, name: names[id] ?? id.shortHex)
            }
            let person = persons[EntryRef(author: author, seq: seq)] ?? author
            var line = ChatMessage(
                conversationID: conversation, author: author, authorName: names[person] ?? person.shortHex, seq: seq,
                isMine: person == myPerson, text: nil, sentAt: Date(milliseconds: timestamp), orderKey: key,
                status: nil)
            line.membership = MembershipNote(
                added: added.map(member), removed: removed.map(member), left: removed == [person] && added.isEmpty)
            lines.append(line)
        }
        return lines
    }
}
