/// Events in time order; events due at the same moment come out in the order they were
/// scheduled, so a run depends on nothing but its inputs (and a link delivers in order).
struct EventQueue<Event> {
    private struct Item {
        let time: Duration
        let order: UInt64
        let event: Event

        func precedes(_ other: Item) -> Bool { (time, order) < (other.time, other.order) }
    }

    private var heap: [Item] = []
    private var scheduled: UInt64 = 0

    var isEmpty: Bool { heap.isEmpty }

    mutating func schedule(_ event: Event, at time: Duration) {
        scheduled += 1
        heap.append(Item(time: time, order: scheduled, event: event))
        var child = heap.count - 1
        while child > 0 {
            let parent = (child - 1) / 2
            guard heap[child].precedes(heap[parent]) else { break }
            heap.swapAt(child, parent)
            child = parent
        }
    }

    mutating func next() -> (time: Duration, event: Event)? {
        guard let first = heap.first else { return nil }
        let last = heap.removeLast()
        if !heap.isEmpty {
            heap[0] = last
            var parent = 0
            while true {
                let left = 2 * parent + 1
                let right = left + 1
                var smallest = parent
                if left < heap.count, heap[left].precedes(heap[smallest]) { smallest = left }
                if right < heap.count, heap[right].precedes(heap[smallest]) { smallest = right }
                guard smallest != parent else { break }
                heap.swapAt(parent, smallest)
                parent = smallest
            }
        }
        return (first.time, first.event)
    }
}
