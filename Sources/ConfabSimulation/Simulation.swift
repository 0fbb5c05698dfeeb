import ConfabModel
import ConfabStore
import ConfabSync
import ConfabWire
import Foundation

/// A network of real nodes in one process: each a real store and the real sync engine,
/// joined by in-memory links that deliver, in order and after a latency, exactly the
/// session messages the engines ask to send (through the real codec). Time is virtual: it
/// jumps from one event to the next, and the engines' clocks and timers follow it.
///
/// The simulator drives the engine only through what the node calls (`peerConnected`,
/// `peerDisconnected`, `handle`, `didWrite`, `offer`, `tick`) and counts what comes out,
/// so it measures whatever dissemination scheme the engine implements.
public final class Simulation {
    enum Work {
        case message(SimulatedNode.Arrival)
        case tick
        case write(group: Int, number: Int)
    }

    enum Event {
        /// Work reaches a node: it is done at once when the node is idle, else queued.
        case work(node: Int, Work)
        /// A node finished what it was doing and takes its next work.
        case done(node: Int)
        case timer(node: Int)
        case cut(partition: Int)
        case heal(partition: Int)
    }

    public let config: SimulationConfig
    let clock = VirtualClock()
    let nodes: [SimulatedNode]
    let topology: Topology
    var links: [LinkID: LinkState] = [:]
    let index: [NodeID: Int]
    var events = EventQueue<Event>()
    /// Events other than timers still to come: zero when nothing is in flight.
    var pending = 0
    var lastActivity: Duration = .zero
    var tally = SimulationTally()
    /// The conversation of each group, once created.
    var conversations: [ConversationID] = []
    var partitions: [Partition] = []
    var plannedWrites: [PlannedWrite] = []
    /// Called with every message sent (virtual time, sender, receiver, message): for tests
    /// and for tracing one run.
    public var observer: ((Duration, Int, Int, SessionMessage) -> Void)?
    /// How long creating the nodes (stores and engines) took, by the wall clock.
    public let setupSeconds: Double

    public init(_ config: SimulationConfig) throws {
        // A room lists nobody: its size is the network's (only its writers are in clocks).
        let largest =
            config.room ? config.nodes : config.large ? Limits.maxLargeGroupMembers : Limits.maxParticipants
        guard config.nodes >= 2, (2...largest).contains(config.groupSize),
            !config.room || (config.groupSize == config.nodes && config.groupsPerNode == 1)
        else {
            throw SimulationError.configuration(
                "groups have 2 to \(Limits.maxParticipants) members (Protocol.md §4.6), large groups up to "
                    + "\(Limits.maxLargeGroupMembers) (§19), a room is one of all nodes, and each needs 2 nodes or more"
            )
        }
        guard config.groupSize <= config.nodes, config.nodes % config.groupSize == 0, config.groupsPerNode >= 1 else {
            throw SimulationError.configuration(
                "\(config.nodes) nodes do not deal into groups of \(config.groupSize): use a divisor of the node count")
        }
        self.config = config
        var random = SplitMix64(seed: config.seed)
        let start = Date()
        let clock = clock
        nodes = try (0..<config.nodes).map { try SimulatedNode(index: $0, seed: config.seed, clock: clock) }
        setupSeconds = Date().timeIntervalSince(start)
        index = Dictionary(uniqueKeysWithValues: nodes.map { ($0.id, $0.index) })
        topology = Topology(config, random: &random)
        for link in topology.links {
            links[link] = LinkState(latency: Self.draw(config.latency, using: &random))
            nodes[link.low].peers[link.high] = link
            nodes[link.high].peers[link.low] = link
        }
        for node in nodes {
            events.schedule(.timer(node: node.index), at: Self.draw(.zero...config.tickInterval, using: &random))
        }
        partitions = planPartitions(using: &random)
        plannedWrites = planWrites(using: &random)
    }

    /// Opens every session, creates the groups and waits until every member holds its
    /// conversation; then counts from zero while the writers write and the partitions come
    /// and go, until the network is quiet.
    public func run() throws -> SimulationReport {
        if config.room { try joinRoom() }
        for link in topology.links { open(link) }
        try runUntilQuiet(limit: config.timeLimit)
        for group in topology.groups where !config.room {
            let creator = nodes[group[0]]
            let others = group.dropFirst().map { nodes[$0].id }
            let (id, _) = try creator.store.createConversation(
                with: others, title: "group \(conversations.count)", large: config.large)
            conversations.append(id)
            var output = try creator.engine.holdLargeGroups(try creator.store.largeGroups())
            output.merge(try creator.engine.offer([id]))
            dispatch(output, from: creator, replyTo: nil, after: .zero)
        }
        try runUntilQuiet(limit: clock.time + config.timeLimit)
        let missing = try membersMissingTheirGroup()
        guard missing == 0 else { throw SimulationError.setupDidNotConverge(missing: missing) }
        let memory = ProcessMemory.residentMiB
        tally = SimulationTally()
        let start = clock.time
        startWritesAndPartitions(at: start)
        let wall = Date()
        let quiet = try runUntilQuiet(limit: start + config.timeLimit)
        return SimulationReport(
            config: config, sessions: links.count, degrees: nodes.map(\.peers.count), tally: tally,
            start: start, lastWrite: start + lastPlannedWrite, lastHeal: partitions.map { start + $0.end }.max(),
            quiet: quiet, diverged: try divergedGroups(), wallSeconds: Date().timeIntervalSince(wall),
            setupSeconds: setupSeconds, residentMiB: memory, peakMiB: ProcessMemory.peakMiB)
    }

    /// Every node joins the room before any session opens: it holds the room's create,
    /// made from the name as a person's node makes it.
    private func joinRoom() throws {
        let genesis = RoomGenesis(name: RoomName(exactly: "everyone")!, network: .default)
        for node in nodes {
            try node.store.joinRoom(genesis)
            _ = try node.engine.holdRooms([genesis.conversationID])
        }
        conversations = [genesis.conversationID]
    }

    /// Takes events until nothing is in flight and nothing happened for the quiet span, or
    /// until `limit`; returns whether it went quiet.
    @discardableResult
    func runUntilQuiet(limit: Duration) throws -> Bool {
        while let (time, event) = events.next() {
            clock.move(to: time)
            let quiet = pending == 0 && time - lastActivity >= config.quietSpan
            if case .timer = event, quiet {
                // Put back: the node's timer goes on in the next run.
                events.schedule(event, at: time)
                return true
            }
            if time > limit {
                events.schedule(event, at: time)
                return false
            }
            try take(event)
        }
        return pending == 0
    }

    private func take(_ event: Event) throws {
        switch event {
        case .timer(let node):
            events.schedule(.timer(node: node), at: clock.time + config.tickInterval)
            try arrive(.tick, at: nodes[node])
        case .work(let node, let work):
            pending -= 1
            try arrive(work, at: nodes[node])
        case .done(let node):
            pending -= 1
            nodes[node].busy = false
            try startNext(nodes[node])
        case .cut(let partition):
            pending -= 1
            cut(partition)
        case .heal(let partition):
            pending -= 1
            heal(partition)
        }
    }

    private func arrive(_ work: Work, at node: SimulatedNode) throws {
        node.enqueue(work)
        if !node.busy { try startNext(node) }
    }

    /// The node does its next piece of work; what it sends leaves when the work's cost has
    /// passed, and the node is busy until then.
    private func startNext(_ node: SimulatedNode) throws {
        while let work = node.takeNext() {
            guard let cost = try perform(work, on: node) else { continue }
            node.busy = true
            pending += 1
            events.schedule(.done(node: node.index), at: clock.time + cost)
            return
        }
    }

    /// Does one piece of work and returns what it cost, or nil for a message whose session
    /// closed before the node came to it.
    private func perform(_ work: Work, on node: SimulatedNode) throws -> Duration? {
        let cost: Duration
        let output: SyncOutput
        var replyTo: Int?
        switch work {
        case .message(let arrival):
            let link = links[LinkID(node.index, arrival.from)]
            guard let link, link.up, link.session == arrival.session else { return nil }
            var entries = 0
            if case .entries(let list) = arrival.message { entries = list.count }
            cost = (config.costPerMessage + config.costPerEntry * entries) * config.slowdown
            var handled = try node.engine.handle(arrival.message, from: nodes[arrival.from].id)
            // The node tells the engine which rooms a peer is in from its Rooms message,
            // which follows its Hello (Protocol.md §18.4).
            if config.room, case .hello = arrival.message {
                handled.merge(try node.engine.peerRooms(Set(conversations), of: nodes[arrival.from].id))
            }
            // As the node does: a create stored is a conversation the engine may not know
            // is large yet (Protocol.md §19.6).
            if config.large, handled.appended.contains(where: { $0.kind == .create }) {
                handled.merge(try node.engine.holdLargeGroups(try node.store.largeGroups()))
            }
            output = handled
            replyTo = arrival.from
        case .tick:
            cost = .zero
            output = try node.engine.tick()
        case .write(let group, let number):
            cost = config.costPerEntry * config.slowdown
            let text = "message \(number) from node \(node.index)"
            output = try node.engine.didWrite([try node.store.sendMessage(text, to: conversations[group])])
        }
        let done = clock.time + cost
        tally.absorb(output, me: node.id, at: done)
        if !output.appended.isEmpty { lastActivity = max(lastActivity, done) }
        dispatch(output, from: node, replyTo: replyTo, after: cost)
        if let reason = output.misbehavior, let peer = replyTo {
            tally.misbehavior.append("node \(node.index) closed its session with node \(peer): \(reason)")
            close(LinkID(node.index, peer))
        }
        return cost
    }
}
