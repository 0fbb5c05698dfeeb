import ConfabModel
import GRDB

/// The `receipt` table: each participant's latest receipt clocks in a conversation (mine
/// included), merged, since receipts may arrive out of order through relays.
extension ConfabStore {
    /// Called for every receipt entry stored, mine or another participant's.
    func mergeReceipt(
        conversation: ConversationID, from node: NodeID, _ clocks: ReceiptClocks, db: Database
    ) throws {
        let current = try receiptClocks(conversation: conversation, node: node, db: db) ?? ReceiptClocks()
        let merged = current.merging(clocks)
        try db.cachedStatement(
            sql: """
                INSERT INTO receipt(conversationId, nodeId, delivered, read) VALUES (?, ?, ?, ?)
                ON CONFLICT(conversationId, nodeId) DO UPDATE SET delivered = excluded.delivered, read = excluded.read
                """
        ).execute(arguments: [conversation.bytes, node.bytes, merged.delivered.json, merged.read.json])
        // A participant signed that it holds these entries of mine: proof they left. (Its
        // clock was checked against what is held, so it cannot cover the future.)
        if node != me {
            try removeFromOutbox(conversation, upTo: max(merged.delivered[me], merged.read[me]), db: db)
        }
    }

    func receiptClocks(conversation: ConversationID, node: NodeID, db: Database) throws -> ReceiptClocks? {
        try Row.fetchOne(
            db.cachedStatement(sql: "SELECT delivered, read FROM receipt WHERE conversationId = ? AND nodeId = ?"),
            arguments: [conversation.bytes, node.bytes]
        ).map(ReceiptClocks.init(row:))
    }

    /// Every participant's receipt clocks in `conversation`.
    static func receipts(in conversation: ConversationID, db: Database) throws -> [NodeID: ReceiptClocks] {
        var receipts: [NodeID: ReceiptClocks] = [:]
        for row in try Row.fetchAll(
            db.cachedStatement(sql: "SELECT nodeId, delivered, read FROM receipt WHERE conversationId = ?"),
            arguments: [conversation.bytes])
        {
            receipts[row.nodeID("nodeId")] = try ReceiptClocks(row: row)
        }
        return receipts
    }
}

extension ReceiptClocks {
    init(row: Row) throws {
        self.init(delivered: try VectorClock(json: row["delivered"]), read: try VectorClock(json: row["read"]))
    }
}
