import ConfabModel

/// Coalesces delivered receipts in time. Every receipt is an entry every member stores,
/// so a peer sending one small message per `Entries` message would otherwise make each
/// member write (and everyone store) a receipt per message. The first receipt of a
/// conversation goes at once; later ones wait until `interval` has passed since the last,
/// and then one receipt covers everything that arrived meanwhile.
public struct ReceiptPacer: Sendable {
    public static let interval: Duration = .seconds(2)

    private var last: [ConversationID: ContinuousClock.Instant] = [:]
    private var waiting: Set<ConversationID> = []

    public init() {}

    /// Conversations to acknowledge now, given those that just got messages (`arrived`,
    /// possibly none: a timer tick). The others are kept until their turn.
    public mutating func due(_ arrived: Set<ConversationID>, now: ContinuousClock.Instant) -> Set<ConversationID> {
        waiting.formUnion(arrived)
        let ready = waiting.filter { conversation in
            last[conversation].map { now - $0 >= Self.interval } ?? true
        }
        waiting.subtract(ready)
        for conversation in ready { last[conversation] = now }
        if last.count > 4096 { last = last.filter { now - $0.value < Self.interval } }
        return ready
    }

    public var isWaiting: Bool { !waiting.isEmpty }
}
