import ConfabModel

extension Simulation {
    /// A partition: when it starts and ends (from the start of the writes), the nodes it
    /// cuts off, and the sessions it closed, opened again when it ends.
    struct Partition {
        let start: Duration
        let end: Duration
        let side: Set<Int>
        var cut: [LinkID] = []
    }

    struct PlannedWrite {
        let at: Duration
        let node: Int
        let group: Int
        let number: Int
    }

    static func draw(_ range: ClosedRange<Duration>, using random: inout SplitMix64) -> Duration {
        let span = (range.upperBound - range.lowerBound) / .microseconds(1)
        return range.lowerBound + .microseconds(Int64((Double.random(in: 0...1, using: &random) * span).rounded()))
    }

    /// One partition after another within the write window, each in its own slot.
    func planPartitions(using random: inout SplitMix64) -> [Partition] {
        guard config.partitions > 0 else { return [] }
        let slot = config.writeWindow / config.partitions
        let cutOff = Int((Double(config.nodes) * config.partitionShare).rounded())
        return (0..<config.partitions).map { number in
            let slack = max(.zero, slot - config.partitionLength)
            let start = slot * number + Self.draw(.zero...slack, using: &random)
            let side = Set(Array(0..<config.nodes).shuffled(using: &random).prefix(cutOff))
            return Partition(start: start, end: start + config.partitionLength, side: side)
        }
    }

    /// The writers, and for each of their messages a moment of the window and a group.
    func planWrites(using random: inout SplitMix64) -> [PlannedWrite] {
        let writers = Int((Double(config.nodes) * config.writerShare).rounded())
        var groupsOf: [Int: [Int]] = [:]
        for (group, members) in topology.groups.enumerated() {
            for member in members { groupsOf[member, default: []].append(group) }
        }
        var writes: [PlannedWrite] = []
        for node in Array(0..<config.nodes).shuffled(using: &random).prefix(writers) {
            for number in 0..<config.messagesPerWriter {
                let at = Self.draw(.zero...config.writeWindow, using: &random)
                let group = groupsOf[node]?.randomElement(using: &random) ?? 0
                writes.append(PlannedWrite(at: at, node: node, group: group, number: number))
            }
        }
        return writes
    }

    func startWritesAndPartitions(at start: Duration) {
        for write in plannedWrites {
            pending += 1
            events.schedule(
                .work(node: write.node, .write(group: write.group, number: write.number)), at: start + write.at)
        }
        for (number, partition) in partitions.enumerated() {
            pending += 2
            events.schedule(.cut(partition: number), at: start + partition.start)
            events.schedule(.heal(partition: number), at: start + partition.end)
        }
    }

    var lastPlannedWrite: Duration { plannedWrites.map(\.at).max() ?? .zero }

    func cut(_ number: Int) {
        let side = partitions[number].side
        let across = topology.links.filter { side.contains($0.low) != side.contains($0.high) && links[$0]?.up == true }
        for link in across { close(link) }
        partitions[number].cut = across
    }

    func heal(_ number: Int) {
        for link in partitions[number].cut { open(link) }
    }
}
