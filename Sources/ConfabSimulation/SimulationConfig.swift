/// What one simulated network looks like and what happens in it. Everything random (who is
/// in which group, who dials whom, who writes when, which nodes a partition cuts off) is
/// drawn from `seed`, so the same configuration gives the same schedule on every run.
public struct SimulationConfig: Sendable {
    /// Which sessions exist between the nodes.
    public enum Topology: Sendable, Equatable, CustomStringConvertible {
        /// Every node has a session with every other: what a LAN gives when every node
        /// dials every beacon it hears (up to the 64-session bound, Protocol.md §10.7).
        case everyone
        /// Every node has a session with every node it shares a group with, and no other.
        case members
        /// In each group, every member dials its successor on a random ring of the group
        /// and `k − 1` other random members: each node keeps about `2k` sessions per group,
        /// whatever the group's size, and entries travel more than one hop.
        case bounded(Int)

        public var description: String {
            switch self {
            case .everyone: "full mesh of all nodes"
            case .members: "full mesh of each group"
            case .bounded(let k): "bounded, \(k) dials per member per group"
            }
        }
    }

    public var nodes: Int
    /// Members per group conversation (at most 64, Protocol.md §4.6).
    public var groupSize: Int
    /// Groups each node is in; `nodes × groupsPerNode` must be a multiple of `groupSize`.
    public var groupsPerNode: Int
    public var topology: Topology
    /// Share of the nodes that write, each `messagesPerWriter` messages at random moments
    /// of the write window, each into one of its groups at random.
    public var writerShare: Double
    public var messagesPerWriter: Int
    public var writeWindow: Duration
    /// Partitions during the write window, one after the other: each cuts a random
    /// `partitionShare` of the nodes off from the rest (every session across is closed)
    /// for `partitionLength`, then every cut session is opened again.
    public var partitions: Int
    public var partitionShare: Double
    public var partitionLength: Duration
    /// One-way latency of each link, drawn once per link within this range.
    public var latency: ClosedRange<Duration>
    /// What handling a message costs the receiving node, which handles one at a time: a
    /// node that many peers talk to at once queues (the costs are those of this machine:
    /// about 12,800 entries a second verified and stored by one core).
    public var costPerMessage: Duration
    public var costPerEntry: Duration
    /// The cores every node shares, as real processes on one machine do: each node's costs
    /// are then `nodes / sharedCores` times the above (every node busy at once, as while a
    /// group of all of them converges). Nil: a core per node.
    public var sharedCores: Int?
    /// The engine's timer, as the node runs it.
    public var tickInterval: Duration
    /// The run ends once nothing is in flight and nothing happened for this long; it must
    /// be longer than any delay of the engine's timers (receipt pacing, the lazy path).
    public var quietSpan: Duration
    /// A run that has not gone quiet by this virtual time is reported as not converged.
    public var timeLimit: Duration
    public var seed: UInt64
    /// One room of every node (Protocol.md §18) instead of groups: `groupSize` is then the
    /// node count and `groupsPerNode` 1; no receipts are written in a room.
    public var room: Bool
    /// Large groups (Protocol.md §19), of up to 1,024 members: spread along the eager tree,
    /// no receipts written.
    public var large: Bool

    public init(
        nodes: Int, groupSize: Int, groupsPerNode: Int = 1, topology: Topology = .members,
        writerShare: Double = 0.2, messagesPerWriter: Int = 5, writeWindow: Duration = .seconds(6),
        partitions: Int = 2, partitionShare: Double = 0.3, partitionLength: Duration = .seconds(2),
        latency: ClosedRange<Duration> = .microseconds(200) ... .milliseconds(1),
        costPerMessage: Duration = .microseconds(20), costPerEntry: Duration = .microseconds(80),
        tickInterval: Duration = .milliseconds(300), quietSpan: Duration = .seconds(10),
        timeLimit: Duration = .seconds(600), seed: UInt64 = 1, room: Bool = false, large: Bool = false,
        sharedCores: Int? = nil
    ) {
        self.sharedCores = sharedCores
        self.room = room
        self.large = large
        self.nodes = nodes
        self.groupSize = groupSize
        self.groupsPerNode = groupsPerNode
        self.topology = topology
        self.writerShare = writerShare
        self.messagesPerWriter = messagesPerWriter
        self.writeWindow = writeWindow
        self.partitions = partitions
        self.partitionShare = partitionShare
        self.partitionLength = partitionLength
        self.latency = latency
        self.costPerMessage = costPerMessage
        self.costPerEntry = costPerEntry
        self.tickInterval = tickInterval
        self.quietSpan = quietSpan
        self.timeLimit = timeLimit
        self.seed = seed
    }

    /// What one node's handling costs, once the cores are shared.
    var slowdown: Int { sharedCores.map { max(1, nodes / max(1, $0)) } ?? 1 }
}
