import ConfabSimulation
import Foundation

/// Dissemination beyond one machine: hundreds of nodes, each a real store and the real
/// sync engine, over in-memory links in virtual time (ConfabSimulation). Groups have at
/// most 64 members (Protocol.md §4.6), so a large network is many overlapping groups; each
/// size runs with a full mesh of sessions and with a bounded set per node.
enum SimulationBenchmark {
    /// `only`: the scenarios to run, by node count or node count and topology
    /// (`CONFAB_BENCH_SIM=200,1000/bounded`: everyone, members or bounded); nil for every
    /// scenario.
    static func run(verifyRate: Double, only: Set<String>? = nil) throws {
        print("simulation: real engines and in-memory stores over in-memory links, virtual time")
        // `CONFAB_BENCH_SIM_PARTITIONS=0`: no partition, so that the time after the last
        // write is measured apart from the time after a heal.
        let partitions = ProcessInfo.processInfo.environment["CONFAB_BENCH_SIM_PARTITIONS"].flatMap { Int($0) }
        for var config in scenarios where only.map({ selects($0, config) }) ?? !(config.room || config.large) {
            if let partitions { config.partitions = partitions }
            let report = try Simulation(config).run()
            for line in report.lines(verifyRate: verifyRate) { print(line) }
            // A run takes minutes: show each as it ends, even into a pipe.
            fflush(nil)
        }
    }

    private static func selects(_ only: Set<String>, _ config: SimulationConfig) -> Bool {
        let topology =
            switch config.topology {
            case .everyone: "everyone"
            case .members: "members"
            case .bounded: "bounded"
            }
        if config.room { return only.contains("\(config.nodes)/room") }
        if config.sharedCores != nil { return only.contains("\(config.nodes)/lan") }
        if config.large { return only.contains("\(config.nodes)/large") }
        return only.contains("\(config.nodes)") || only.contains("\(config.nodes)/\(topology)")
    }

    /// 20% of the nodes write 5 messages each within 6 s, into one of their groups; two
    /// partitions cut 30% of the nodes off for 2 s each meanwhile. At 1,000 nodes only 1%
    /// write: every member of a group that gets a message writes receipts that go to all
    /// 49 others, and at 200 nodes those deliveries already take this machine about 90,000
    /// store appends per run.
    static let scenarios: [SimulationConfig] = [
        SimulationConfig(nodes: 200, groupSize: 50, groupsPerNode: 2, topology: .everyone),
        SimulationConfig(nodes: 200, groupSize: 50, groupsPerNode: 2, topology: .members),
        SimulationConfig(nodes: 200, groupSize: 50, groupsPerNode: 2, topology: .bounded(3)),
        SimulationConfig(nodes: 1000, groupSize: 50, groupsPerNode: 2, topology: .members, writerShare: 0.01),
        SimulationConfig(nodes: 1000, groupSize: 50, groupsPerNode: 2, topology: .bounded(3), writerShare: 0.01),
        // One room of everyone (Protocol.md §18), over bounded sessions: run only when asked
        // for (`CONFAB_BENCH_SIM=1000/room`).
        SimulationConfig(nodes: 200, groupSize: 200, topology: .bounded(3), room: true),
        SimulationConfig(nodes: 1000, groupSize: 1000, topology: .bounded(3), writerShare: 0.05, room: true),
        SimulationConfig(nodes: 10000, groupSize: 10000, topology: .bounded(3), writerShare: 0.005, room: true),
        // One large group of everyone (Protocol.md §19), over bounded sessions: run only when
        // asked for (`CONFAB_BENCH_SIM=1000/large`).
        SimulationConfig(nodes: 200, groupSize: 200, topology: .bounded(3), large: true),
        SimulationConfig(nodes: 1000, groupSize: 1000, topology: .bounded(3), writerShare: 0.05, large: true),
        // `LARGE=1 Bench/lan-group.sh 100 20` in virtual time: 100 nodes sharing 2 cores,
        // each about 8 sessions, every one writing 20 messages within 5 s into one large
        // group of all: run only when asked for (`CONFAB_BENCH_SIM=100/lan`).
        SimulationConfig(
            nodes: 100, groupSize: 100, topology: .bounded(4), writerShare: 1, messagesPerWriter: 20,
            writeWindow: .seconds(5), partitions: 0, large: true, sharedCores: 2),
    ]
}
