import ConfabModel
import Testing

@Suite("Delivery status")
struct DeliveryStatusTests {
    let me = nodeID(0xA0)
    let bob = nodeID(0xB0)
    let carol = nodeID(0xC0)
    let relay = nodeID(0xEE)

    /// A receipt covering my log up to `delivered` / `read`.
    func receipt(delivered: UInt64 = 0, read: UInt64 = 0) -> ReceiptClocks {
        ReceiptClocks(delivered: VectorClock([me: delivered]), read: VectorClock([me: read]))
    }

    func status(
        seq: UInt64 = 3, others: [NodeID], held: Bool, _ receipts: [NodeID: ReceiptClocks] = [:]
    ) -> DeliveryStatus {
        DeliveryStatus.of(author: me, seq: seq, otherParticipants: others, heldElsewhere: held, receipts: receipts)
    }

    @Test func oneToOneProgression() {
        #expect(status(others: [bob], held: false) == .sending)
        #expect(status(others: [bob], held: true) == .sent)
        #expect(status(others: [bob], held: true, [bob: receipt(delivered: 3)]) == .delivered)
        #expect(status(others: [bob], held: true, [bob: receipt(delivered: 3, read: 3)]) == .read)
    }

    @Test func receiptsBelowTheMessageDoNotCount() {
        #expect(status(others: [bob], held: false, [bob: receipt(delivered: 2, read: 2)]) == .sending)
        #expect(status(others: [bob], held: true, [bob: receipt(delivered: 2, read: 2)]) == .sent)
    }

    @Test func readImpliesDelivered() {
        // A read receipt alone, with nothing in the delivered clock and no acknowledgement.
        #expect(status(others: [bob], held: false, [bob: receipt(read: 5)]) == .read)
    }

    @Test func deliveredImpliesSentEvenWithoutAcknowledgement() {
        #expect(status(others: [bob], held: false, [bob: receipt(delivered: 3)]) == .delivered)
    }

    @Test func groupNeedsEveryone() {
        let others = [bob, carol]
        #expect(status(others: others, held: false, [bob: receipt(delivered: 3)]) == .sent)
        #expect(status(others: others, held: false, [bob: receipt(read: 3)]) == .sent)
        #expect(status(others: others, held: true, [bob: receipt(read: 3), carol: receipt(delivered: 2)]) == .sent)
        #expect(
            status(others: others, held: true, [bob: receipt(read: 3), carol: receipt(delivered: 3)]) == .delivered)
        #expect(
            status(others: others, held: true, [bob: receipt(delivered: 9), carol: receipt(delivered: 3)]) == .delivered
        )
        #expect(status(others: others, held: true, [bob: receipt(read: 3), carol: receipt(read: 4)]) == .read)
    }

    @Test func receiptsFromNonParticipantsAreIgnored() {
        #expect(status(others: [bob], held: false, [relay: receipt(delivered: 9, read: 9)]) == .sending)
        #expect(status(others: [bob], held: true, [relay: receipt(delivered: 9, read: 9)]) == .sent)
    }

    @Test func receiptsAboutAnotherAuthorDoNotCount() {
        let aboutCarol = ReceiptClocks(delivered: VectorClock([carol: 9]), read: VectorClock([carol: 9]))
        #expect(status(others: [bob], held: true, [bob: aboutCarol]) == .sent)
    }

    @Test func conversationWithNobodyElse() {
        #expect(status(others: [], held: false) == .sending)
        #expect(status(others: [], held: true) == .sent)
    }

    @Test func statusesAreOrdered() {
        #expect(DeliveryStatus.allCases.sorted() == [.sending, .sent, .delivered, .read])
        #expect(DeliveryStatus.sent < .delivered)
        #expect(!(DeliveryStatus.read < .read))
    }

    @Test func receiptClocksMergePointwise() {
        let a = ReceiptClocks(delivered: VectorClock([me: 4, bob: 1]), read: VectorClock([me: 2]))
        let b = ReceiptClocks(delivered: VectorClock([me: 3, carol: 2]), read: VectorClock([me: 3]))
        let merged = a.merging(b)
        #expect(merged.delivered == VectorClock([me: 4, bob: 1, carol: 2]))
        #expect(merged.read == VectorClock([me: 3]))
        #expect(b.merging(a) == merged)
    }
}
