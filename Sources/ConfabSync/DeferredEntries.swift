import ConfabModel

/// Entries that arrived before what they follow or depend on (a gap, a conversation whose
/// create entry is not held yet, a causal dependency not held yet). They are kept here, in
/// memory and bounded, and tried again when their conversation grows; the oldest give way
/// when the bound is reached, and anything lost that way is asked for again (`Grafts`). An
/// entry whose dependencies never arrive (a clock that names entries nobody wrote) just
/// waits here until it is pushed out: it changes nothing.
struct DeferredEntries {
    static let maxEntries = 4096
    static let maxBytes = 16 * 1024 * 1024

    private var byConversation: [ConversationID: [[UInt8]]] = [:]
    /// Arrival order, for evicting the oldest first.
    private var order: [(conversation: ConversationID, size: Int)] = []
    private var orderStart = 0
    private(set) var count = 0
    private(set) var bytes = 0

    mutating func add(_ entry: [UInt8], conversation: ConversationID) {
        guard entry.count <= Self.maxBytes else { return }
        if byConversation[conversation]?.contains(entry) == true { return }
        byConversation[conversation, default: []].append(entry)
        order.append((conversation, entry.count))
        count += 1
        bytes += entry.count
        while count > Self.maxEntries || bytes > Self.maxBytes { evictOldest() }
    }

    /// Removes and returns a conversation's entries, oldest first.
    mutating func take(_ conversation: ConversationID) -> [[UInt8]] {
        guard let entries = byConversation.removeValue(forKey: conversation) else { return [] }
        count -= entries.count
        bytes -= entries.reduce(0) { $0 + $1.count }
        return entries
    }

    private mutating func evictOldest() {
        while orderStart < order.count {
            let (conversation, _) = order[orderStart]
            orderStart += 1
            if var entries = byConversation[conversation], !entries.isEmpty {
                let removed = entries.removeFirst()
                byConversation[conversation] = entries.isEmpty ? nil : entries
                count -= 1
                bytes -= removed.count
                break
            }
        }
        // The order list holds stale slots for entries taken since; compact it now and then.
        if orderStart > 1024, orderStart * 2 > order.count {
            order.removeFirst(orderStart)
            orderStart = 0
        }
    }
}
