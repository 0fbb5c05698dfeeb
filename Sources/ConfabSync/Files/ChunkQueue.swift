/// The chunks of a file still to ask for, in the order this node asks for them: a random
/// order drawn per file, so that members fetching one file from its sender start on
/// different chunks and can then fetch from each other (Protocol.md §17.5). Chunks given
/// back (a peer did not have one, sent a bad one, or went away) are asked for first.
struct ChunkQueue {
    private var items: [Int]
    private var head = 0
    private var returned: [Int] = []

    init(_ chunks: [Int]) {
        items = chunks.shuffled()
    }

    var isEmpty: Bool { returned.isEmpty && head == items.count }
    var count: Int { returned.count + items.count - head }

    /// The next chunk that `holds` says a peer has; looks a bounded way ahead, so a peer
    /// that holds little costs little.
    mutating func next(where holds: (Int) -> Bool) -> Int? {
        if let position = returned.lastIndex(where: holds) { return returned.remove(at: position) }
        var position = head
        let end = min(items.count, head + 1024)
        while position < end {
            if holds(items[position]) {
                items.swapAt(position, head)
                head += 1
                return items[head - 1]
            }
            position += 1
        }
        if head > 4096, head * 2 > items.count {
            items.removeFirst(head)
            head = 0
        }
        return nil
    }

    mutating func giveBack(_ chunk: Int) {
        returned.append(chunk)
    }
}
