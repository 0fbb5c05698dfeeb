import ConfabModel
import Testing

@testable import ConfabSimulation

/// The simulator itself: real engines and stores over in-memory links must end with every
/// member of a group holding the same entries, through partitions and over more than one
/// hop, and a network that cannot converge must be reported as such.
@Suite struct SimulationTests {
    /// Ten nodes in one group, half of them writing, three cut off for two seconds
    /// mid-burst.
    private func tenNodes(
        partitionLength: Duration = .seconds(2), timeLimit: Duration = .seconds(120)
    )
        -> SimulationConfig
    {
        SimulationConfig(
            nodes: 10, groupSize: 10, topology: .members, writerShare: 0.5, messagesPerWriter: 4,
            writeWindow: .seconds(4), partitions: 1, partitionShare: 0.3, partitionLength: partitionLength,
            timeLimit: timeLimit, seed: 7)
    }

    @Test func tenNodesThroughAPartitionEndWithTheSameEntries() throws {
        let simulation = try Simulation(tenNodes())
        let report = try simulation.run()
        #expect(report.converged, "\(report.lines())")
        #expect(report.tally.written["message"] == 20)
        #expect(report.tally.deliveredCount == report.expectedDeliveries)
        #expect((report.tally.messages["hello"] ?? 0) > 0, "the partition closed no session")
        let first = try simulation.clock(ofGroup: 0, onMember: 0)
        for member in 1..<10 { #expect(try simulation.clock(ofGroup: 0, onMember: member) == first) }
        // Every writer's five messages (four and the receipts it wrote) are in the clock.
        #expect(first.sum == UInt64(report.tally.writtenCount + 1), "the create entry and everything written")
    }

    /// Nodes sharing cores (as 100 processes on a 2-core machine do) handle each message
    /// that many times slower: the same run converges, later.
    @Test func nodesSharingCoresConvergeLater() throws {
        var shared = tenNodes()
        shared.partitions = 0
        var own = shared
        shared.sharedCores = 1
        let slow = try Simulation(shared).run()
        let fast = try Simulation(own).run()
        #expect(slow.converged && fast.converged)
        #expect(slow.tally.deliveredCount == fast.tally.deliveredCount)
        let (late, early) = (try #require(slow.messagesConverged), try #require(fast.messagesConverged))
        #expect(late > early, "\(late) after the last write sharing one core, \(early) with a core each")
        own.sharedCores = 10
        #expect(own.slowdown == 1, "ten nodes on ten cores")
    }

    /// A node's engine is told how many bytes of entries wait unhandled in its inbox, as a
    /// real node's is (it asks nobody while more than 64 KiB wait).
    @Test func aNodesEngineSeesTheEntriesWaitingInItsInbox() throws {
        let node = try SimulatedNode(index: 0, seed: 1, clock: VirtualClock())
        let entries: [[UInt8]] = [Array(repeating: 1, count: 300), Array(repeating: 2, count: 200)]
        #expect(node.engine.configuration.backlog() == 0)
        node.enqueue(.tick)
        node.enqueue(.message(.init(from: 1, session: 0, message: .entries(entries))))
        #expect(node.engine.configuration.backlog() == 500)
        _ = node.takeNext()
        #expect(node.engine.configuration.backlog() == 500, "the timer went, the entries wait")
        _ = node.takeNext()
        #expect(node.engine.configuration.backlog() == 0)
    }

    @Test func theSameSeedGivesTheSameRun() throws {
        let first = try Simulation(tenNodes()).run()
        let second = try Simulation(tenNodes()).run()
        #expect(first.tally.messages == second.tally.messages)
        #expect(first.tally.delivered == second.tally.delivered)
        #expect(first.messagesConverged == second.messagesConverged)
    }

    /// A ring: most members have no session with a writer, so its entries reach them only
    /// through the others, hop by hop.
    @Test func onARingEntriesTravelThroughTheOthers() throws {
        let config = SimulationConfig(
            nodes: 12, groupSize: 12, topology: .bounded(1), writerShare: 0.25, messagesPerWriter: 3, partitions: 1,
            partitionShare: 0.25, seed: 3)
        let report = try Simulation(config).run()
        #expect(report.degrees.allSatisfy { $0 == 2 })
        #expect(report.converged, "\(report.lines())")
        #expect(report.tally.deliveredCount == report.expectedDeliveries)
    }

    /// A room of 70 (Protocol.md §18), more members than a group may have, over a few
    /// sessions each and through a partition: every member ends with every message, and
    /// nobody wrote a receipt.
    @Test func aRoomLargerThanAGroupOverFewSessionsConverges() throws {
        let config = SimulationConfig(
            nodes: 70, groupSize: 70, topology: .bounded(3), writerShare: 0.1, messagesPerWriter: 3, partitions: 1,
            partitionShare: 0.2, seed: 5, room: true)
        let simulation = try Simulation(config)
        let report = try simulation.run()
        #expect(report.converged, "\(report.lines())")
        #expect(report.tally.written["message"] == 21)
        #expect(report.tally.written["receipt"] == nil)
        #expect(report.tally.deliveredCount == report.expectedDeliveries)
        #expect(report.degrees.max()! < 20)
        let first = try simulation.clock(ofGroup: 0, onMember: 0)
        for member in [1, 35, 69] { #expect(try simulation.clock(ofGroup: 0, onMember: member) == first) }
    }

    /// A large group of more members than a group may have (Protocol.md §19), over bounded
    /// sessions and a partition: every member holds everything, nobody wrote a receipt, and
    /// an entry reached a node about once.
    @Test func aLargeGroupOverFewSessionsConverges() throws {
        let config = SimulationConfig(
            nodes: 70, groupSize: 70, topology: .bounded(3), writerShare: 0.1, messagesPerWriter: 3, partitions: 1,
            partitionShare: 0.2, seed: 5, large: true)
        let simulation = try Simulation(config)
        let report = try simulation.run()
        #expect(report.converged, "\(report.lines())")
        #expect(report.tally.written["message"] == 21)
        #expect(report.tally.written["receipt"] == nil)
        #expect(report.tally.deliveredCount == report.expectedDeliveries)
        #expect(report.degrees.max()! < 20)
        #expect(report.duplicatesPerDelivery < 0.5, "\(report.lines())")
        let first = try simulation.clock(ofGroup: 0, onMember: 0)
        for member in [1, 35, 69] { #expect(try simulation.clock(ofGroup: 0, onMember: member) == first) }
    }

    @Test func aPartitionThatOutlastsTheRunIsReportedAsNotConverged() throws {
        let report = try Simulation(tenNodes(partitionLength: .seconds(60), timeLimit: .seconds(20))).run()
        #expect(!report.converged)
        #expect(!report.quiet)
        #expect(report.diverged == [0])
    }
}
