import ConfabModel

/// Which entry of a batch vouches for each one (Protocol.md §7 step 3). An entry's content
/// is fixed by the hash its successor names in `previous`, and so on up its author's log:
/// one signature that verifies at the top of a chain authenticates every entry below it in
/// the batch, and only the tops need their own signature checked.
public enum ChainAnchors {
    /// For each entry, the index of the entry whose signature authenticates it: itself when
    /// nothing in the batch names it as `previous`, else its successor's anchor. Nil for
    /// nil (an entry that did not decode, or one already held).
    public static func anchors(_ entries: [Entry?]) -> [Int?] {
        // The first entry in the batch that names each (place, predecessor): a second one
        // naming the same predecessor is a fork and stands alone, so it is checked itself.
        var successor: [Place: Int] = [:]
        // A second copy of one entry (same place, same content) is vouched for with the first.
        var first: [Place: Int] = [:]
        var copyOf = [Int?](repeating: nil, count: entries.count)
        for (index, entry) in entries.enumerated() {
            guard let entry else { continue }
            if let previous = entry.previous {
                let link = Place(entry, seq: entry.seq, hash: previous)
                if successor[link] == nil { successor[link] = index }
            }
            let copy = Place(entry, seq: entry.seq, hash: entry.hash)
            if let earlier = first[copy] { copyOf[index] = earlier } else { first[copy] = index }
        }
        var anchors = [Int?](repeating: nil, count: entries.count)
        // Highest seq first, so a successor's anchor is known before its predecessor asks.
        let order = entries.indices.filter { entries[$0] != nil && copyOf[$0] == nil }
            .sorted { entries[$0]!.seq > entries[$1]!.seq }
        for index in order {
            let entry = entries[index]!
            let next = Place(entry, seq: entry.seq + 1, hash: entry.hash)
            anchors[index] = successor[next].map { anchors[copyOf[$0] ?? $0] ?? $0 } ?? index
        }
        for (index, earlier) in copyOf.enumerated() {
            if let earlier { anchors[index] = anchors[earlier] }
        }
        return anchors
    }

    /// A seq of one author's log in one conversation with a hash: an entry's own (to find
    /// copies), or the one an entry names as its predecessor's (to find successors).
    private struct Place: Hashable {
        let conversation: ConversationID
        let author: NodeID
        let seq: UInt64
        let hash: EntryHash

        init(_ entry: Entry, seq: UInt64, hash: EntryHash) {
            conversation = entry.conversationID
            author = entry.author
            self.seq = seq
            self.hash = hash
        }
    }
}
