import ConfabModel

extension Simulation {
    /// Members that do not hold their group's conversation yet.
    func membersMissingTheirGroup() throws -> Int {
        var missing = 0
        for (group, members) in topology.groups.enumerated() {
            for member in members where try nodes[member].store.clock(of: conversations[group]).isEmpty {
                missing += 1
            }
        }
        return missing
    }

    /// Groups whose members do not all hold the same entries. Identical clocks mean
    /// identical entries (Protocol.md §12), and every author is a member, so a group whose
    /// members' clocks are all equal holds everything anyone wrote in it, everywhere.
    func divergedGroups() throws -> [Int] {
        try topology.groups.enumerated().compactMap { group, members in
            let clocks = try members.map { try nodes[$0].store.clock(of: conversations[group]) }
            return clocks.allSatisfy({ $0 == clocks[0] }) ? nil : group
        }
    }

    /// The clock of a group on one of its members, for tests and reports.
    public func clock(ofGroup group: Int, onMember member: Int) throws -> VectorClock {
        try nodes[topology.groups[group][member]].store.clock(of: conversations[group])
    }

    public var groups: [[Int]] { topology.groups }
}

extension Simulation {
    public func nodeID(_ node: Int) -> NodeID { nodes[node].id }
    public var linkList: [String] { topology.links.map { "\($0.low)-\($0.high)" } }
}
