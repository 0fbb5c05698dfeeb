import ConfabModel

/// The session between two nodes, named by their indices, lower first.
struct LinkID: Hashable, Comparable {
    let low: Int
    let high: Int

    init(_ a: Int, _ b: Int) {
        (low, high) = a < b ? (a, b) : (b, a)
    }

    static func < (a: LinkID, b: LinkID) -> Bool { (a.low, a.high) < (b.low, b.high) }

    func other(than node: Int) -> Int { node == low ? high : low }
}

/// Who is in which group and who has a session with whom.
struct Topology {
    /// Members of each group, by node index; the first creates the conversation.
    let groups: [[Int]]
    let links: [LinkID]

    /// Each of `groupsPerNode` rounds deals every node, shuffled, into groups of
    /// `groupSize`: every node is in exactly that many groups, each group's members drawn
    /// at random from all nodes.
    init(_ config: SimulationConfig, random: inout SplitMix64) {
        var groups: [[Int]] = []
        for _ in 0..<config.groupsPerNode {
            let dealt = Array(0..<config.nodes).shuffled(using: &random)
            for start in stride(from: 0, to: dealt.count, by: config.groupSize) {
                groups.append(Array(dealt[start..<start + config.groupSize]))
            }
        }
        self.groups = groups
        var links = Set<LinkID>()
        switch config.topology {
        case .everyone:
            for a in 0..<config.nodes {
                for b in a + 1..<config.nodes { links.insert(LinkID(a, b)) }
            }
        case .members:
            for group in groups {
                for (index, a) in group.enumerated() {
                    for b in group[(index + 1)...] { links.insert(LinkID(a, b)) }
                }
            }
        case .bounded(let k):
            // The ring keeps each group connected whatever the random picks are.
            for group in groups {
                let ring = group.shuffled(using: &random)
                for (index, member) in ring.enumerated() {
                    links.insert(LinkID(member, ring[(index + 1) % ring.count]))
                    let others = ring.filter { $0 != member }.shuffled(using: &random)
                    for other in others.prefix(max(0, k - 1)) { links.insert(LinkID(member, other)) }
                }
            }
        }
        self.links = links.sorted()
    }
}
