import ConfabModel
import Foundation
import GRDB

/// The receipts this node writes: coalesced entries that tell the other participants how
/// far I hold (delivered) and have read their messages.
extension ConfabStore {
    /// Called when others' entries have been stored: appends a coalesced delivered receipt
    /// when messages arrived that no receipt of mine covers yet.
    @discardableResult
    public func acknowledgeDelivery(_ conversation: ConversationID, now: Date = Date()) throws -> Entry? {
        try write { db in try self.receiptIfNeeded(conversation, read: false, db: db, now: now) }
    }

    /// Whether this node can read what is written now: it holds the key of the epoch in
    /// force, or, with none in force (a rekey is due), the key of the latest epoch it was
    /// given.
    private func holdsCurrentKey(_ conversation: ConversationID, db: Database) throws -> Bool {
        guard let log = try self.membershipLog(conversation, db: db) else { return false }
        let epoch = log.current.epochInForce
        return try Bool.fetchOne(
            db,
            sql: epoch == nil
                ? "SELECT 1 FROM epoch_key WHERE conversationId = ? LIMIT 1"
                : "SELECT 1 FROM epoch_key WHERE conversationId = ? AND author = ? AND seq = ?",
            arguments: epoch.map { [conversation.bytes, $0.author.bytes, $0.seq] } ?? [conversation.bytes]) != nil
    }

    /// Receipts carry full clocks: delivered = everything of others I hold; read = my read
    /// marks (moved only by `markRead`).
    func receiptIfNeeded(_ conversation: ConversationID, read: Bool, db: Database, now: Date) throws -> Entry? {
        let participants = try NodeID.fetchParticipants(db, conversation: conversation)
        guard participants.contains(myPerson), participants.count <= Limits.maxParticipantsWithReceipts else {
            return nil
        }
        // Nobody writes receipts in a room or a large group (Protocol.md §18.2, §19.5): they
        // may hold any number of people.
        guard try Self.roomName(conversation, db: db) == nil, try !Self.isLargeGroup(conversation, db: db) else {
            return nil
        }
        // Without the conversation's key nothing here was readable: saying "delivered" or
        // "read" would tell the senders a lie.
        guard try holdsCurrentKey(conversation, db: db) else { return nil }
        var others = try VectorClock.fetchHeld(db, conversation: conversation)
        // My person's own entries, from any of its devices, are nobody's news (Protocol.md
        // §20.14): left out, a message from my other machine calls for no receipt here.
        for device in try self.myDevices(db: db) { others[device] = 0 }
        // Receipts are my person's (Protocol.md §20.11, §20.14): what another of its devices
        // already said read or delivered needs no second receipt from this one.
        let previous =
            try self.receiptClocks(conversation: conversation, node: self.myPerson, db: db) ?? ReceiptClocks()
        let baseline = read ? previous.read : previous.delivered
        // Only messages call for a receipt: answering receipts too would have two open
        // chats acknowledge each other's acknowledgements forever.
        let unacknowledged = try others.entries.contains { author, seq in
            try Bool.fetchOne(
                db.cachedStatement(
                    sql: """
                        SELECT 1 FROM entry WHERE conversationId = ? AND author = ? AND kind IN (?, ?)
                            AND seq > ? AND seq <= ?
                        """),
                arguments: [
                    conversation.bytes, author.bytes, EntryKind.message.rawValue, EntryKind.file.rawValue,
                    baseline[author], seq,
                ]) != nil
        }
        guard unacknowledged else { return nil }
        let readClock = read ? others : previous.read
        return try authorEntry(
            in: conversation, body: .receipt(delivered: others.merging(previous.delivered), read: readClock), db: db,
            now: now)
    }
}
