import ConfabModel
import ConfabWire

/// New entries of authors over their rate (`AuthorRateLimit`), kept aside in memory in the
/// order they came, per author, and taken on the engine's timer as each author's budget
/// refills (Protocol.md §12 step 4). Nothing here is stored or acknowledged yet, so their
/// senders count them as in flight: an honest sender has at most its window of them (1,024
/// entries per author) out at once, and waits for the acknowledgement that follows.
///
/// Bounded: beyond `maxEntries` or `maxBytes` an entry is not kept but remembered as
/// **dropped** (its conversation, author and seq, and who sent it); once the author is
/// within its rate again, the engine asks a peer that holds them for the rest of that log
/// (`Want`), and a later session offers them again in any case. Nothing is lost for good.
struct HeldEntries {
    struct Item {
        let bytes: [UInt8]
        let position: EntryPosition
        /// The peer that sent it: acknowledged once it is taken.
        let source: NodeID
    }

    /// Where an author's log was cut short here, and who can send the rest.
    struct Dropped {
        /// The highest seq dropped.
        var upTo: UInt64
        /// Peers that sent what was dropped (the first few).
        var sources: [NodeID]
        /// The seq after which the rest was last asked for, and how many times in a row
        /// asking brought nothing.
        var askedAfter: UInt64?
        var fruitless = 0
    }

    struct Key: Hashable, Comparable {
        let conversation: ConversationID
        let author: NodeID

        static func < (a: Key, b: Key) -> Bool { (a.conversation, a.author) < (b.conversation, b.author) }
    }

    enum Outcome { case held, duplicate, dropped }

    var maxEntries = 4096
    var maxBytes = 16 * 1024 * 1024
    /// Logs cut short that are remembered (a later session heals the others).
    static let maxDropped = 1024
    static let maxSources = 4
    /// Timer ticks in a row on which asking for the rest of a log brought nothing, or
    /// nobody could be asked, before it is left to later sessions.
    static let maxFruitless = 20

    private var byAuthor: [NodeID: [Item]] = [:]
    private var positions: Set<EntryPosition> = []
    private(set) var count = 0
    private(set) var bytes = 0
    var dropped: [Key: Dropped] = [:]

    /// Authors with entries kept here, in a stable order.
    var authors: [NodeID] { byAuthor.keys.sorted() }

    func holds(_ author: NodeID) -> Bool { byAuthor[author] != nil }

    mutating func add(_ item: Item) -> Outcome {
        guard !positions.contains(item.position) else { return .duplicate }
        guard count < maxEntries, bytes + item.bytes.count <= maxBytes else {
            noteDropped(item)
            return .dropped
        }
        positions.insert(item.position)
        byAuthor[item.position.author, default: []].append(item)
        count += 1
        bytes += item.bytes.count
        return .held
    }

    /// Removes and returns up to `limit` of `author`'s entries, oldest first, and with them,
    /// where the last one taken of a conversation carries no signature of its own (§4.3),
    /// the author's entries there up to its next signed one: a run goes whole, so it is
    /// authenticated by its signed entry (§7 step 3), and this node's copy of the log never
    /// ends on an entry it could not send on as the last of a message (§12 step 3).
    mutating func take(_ author: NodeID, limit: Int) -> [Item] {
        guard var items = byAuthor[author], limit > 0 else { return [] }
        var taken = Set(items.indices.prefix(limit))
        // Each conversation's last entry taken: is it signed?
        var last: [ConversationID: Int] = [:]
        for index in items.indices.prefix(limit) { last[items[index].position.conversation] = index }
        var open = Set(last.filter { EntryCodec.peekSignedHash(items[$0.value].bytes) == nil }.keys)
        for index in items.indices.dropFirst(limit) where !open.isEmpty {
            let conversation = items[index].position.conversation
            guard open.contains(conversation) else { continue }
            taken.insert(index)
            if EntryCodec.peekSignedHash(items[index].bytes) != nil { open.remove(conversation) }
        }
        let result = items.indices.filter(taken.contains).map { items[$0] }
        items = items.indices.filter { !taken.contains($0) }.map { items[$0] }
        byAuthor[author] = items.isEmpty ? nil : items
        for item in result {
            positions.remove(item.position)
            bytes -= item.bytes.count
        }
        count -= result.count
        return result
    }

    private mutating func noteDropped(_ item: Item) {
        let key = Key(conversation: item.position.conversation, author: item.position.author)
        guard var record = dropped[key] ?? (dropped.count < Self.maxDropped ? Dropped(upTo: 0, sources: []) : nil)
        else { return }
        record.upTo = max(record.upTo, item.position.seq)
        if !record.sources.contains(item.source), record.sources.count < Self.maxSources {
            record.sources.append(item.source)
        }
        dropped[key] = record
    }
}
