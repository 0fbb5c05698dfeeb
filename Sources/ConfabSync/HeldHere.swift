import ConfabModel
import ConfabStore

/// What the store holds of one conversation, as the offer of missing entries reads it: the
/// clock of what is held, and the first of my entries still in the outbox. An own write is
/// offered to every connected peer in turn; these are read once for all of them.
struct HeldHere {
    let clock: VectorClock
    let firstUnsent: UInt64?

    init(_ conversation: ConversationID, in store: ConfabStore) throws {
        clock = try store.clock(of: conversation)
        firstUnsent = try store.firstUnsentSeq(in: conversation)
    }

    /// Each conversation read once, when first asked for.
    struct Cache {
        private var read: [ConversationID: HeldHere] = [:]

        mutating func of(_ conversation: ConversationID, in store: ConfabStore) throws -> HeldHere {
            if let known = read[conversation] { return known }
            let here = try HeldHere(conversation, in: store)
            read[conversation] = here
            return here
        }
    }
}
