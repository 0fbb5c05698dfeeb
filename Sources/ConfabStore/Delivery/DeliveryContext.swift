import ConfabModel
import GRDB

/// What is needed to derive the delivery status of my messages in one conversation,
/// loaded once per query rather than once per message.
struct DeliveryContext {
    let me: NodeID
    let others: [NodeID]
    let receipts: [NodeID: ReceiptClocks]
    let unsent: Set<UInt64>

    /// For messages that are not mine, which have no delivery status.
    static func noStatus(me: NodeID) -> DeliveryContext {
        DeliveryContext(me: me, others: [], receipts: [:], unsent: [])
    }

    func status(ofMySeq seq: UInt64) -> DeliveryStatus {
        DeliveryStatus.of(
            author: me, seq: seq, otherParticipants: others, heldElsewhere: !unsent.contains(seq), receipts: receipts)
    }

    /// The status of a message of my person's, written here or by another of its devices
    /// (which came from elsewhere, so another node holds it).
    func status(of author: NodeID, seq: UInt64) -> DeliveryStatus {
        if author == me { return status(ofMySeq: seq) }
        return DeliveryStatus.of(
            author: author, seq: seq, otherParticipants: others, heldElsewhere: true, receipts: receipts)
    }
}

extension ConfabStore {
    func deliveryContext(_ conversation: ConversationID, db: Database) throws -> DeliveryContext {
        DeliveryContext(
            me: me, others: try NodeID.fetchParticipants(db, conversation: conversation).filter { $0 != myPerson },
            receipts: try Self.receipts(in: conversation, db: db), unsent: try unsentSeqs(in: conversation, db: db))
    }
}
