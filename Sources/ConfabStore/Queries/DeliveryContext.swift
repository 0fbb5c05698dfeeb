import ConfabModel
import GRDB

/// What is needed to derive the delivery status of my messages in one conversation,
/// loaded once per query rather than once per message.
struct DeliveryContext {
    let me: NodeID
    let others: [NodeID]
    let receipts: [NodeID: ReceiptClocks]
    let unsent: Set<UInt64>

    init(conversation: ConversationID, me: NodeID, db: Database) throws {
        self.me = me
        others = try NodeID.fetchParticipants(db, conversation: conversation).filter { $0 != me }
        var receipts: [NodeID: ReceiptClocks] = [:]
        for row in try Row.fetchAll(
            db.cachedStatement(sql: "SELECT nodeId, delivered, read FROM receipt WHERE conversationId = ?"),
            arguments: [conversation.bytes])
        {
            receipts[row.nodeID("nodeId")] = ReceiptClocks(
                delivered: try VectorClock(json: row["delivered"]), read: try VectorClock(json: row["read"]))
        }
        self.receipts = receipts
        unsent = Set(
            try UInt64.fetchAll(
                db.cachedStatement(sql: "SELECT seq FROM outbox WHERE conversationId = ? AND author = ?"),
                arguments: [conversation.bytes, me.bytes]))
    }

    func status(ofMySeq seq: UInt64) -> DeliveryStatus {
        DeliveryStatus.of(
            author: me, seq: seq, otherParticipants: others, heldElsewhere: !unsent.contains(seq), receipts: receipts)
    }
}
